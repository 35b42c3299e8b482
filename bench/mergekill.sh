#!/bin/sh
# kill -9 at random moments of `git ralph merge`, many times: after each kill the next
# command (`git ralph runs`) finishes or undoes the merge, and the base branch must be at
# its old commit or at the merge of the loop's branch, never anything else; no scratch
# worktree, no entry left merging, and the clean main work tree matching its branch.
# With "edits", the main work tree has an uncommitted change of notes.txt (a file the
# merge does not touch) during each merge: then git status must show that change and
# nothing else, whether main was left or merged (a tree left behind its branch would
# show the merged files as staged deletions).
#
#   bench/mergekill.sh [ROUNDS] [edits]     ROUNDS: kills (default 200)
set -eu

rounds=${1:-200}
edits=${2:-}
usage() { echo "usage: bench/mergekill.sh [ROUNDS] [edits]" >&2; exit 2; }
case $rounds in '' | *[!0-9]* | 0*) usage ;; esac
case $edits in '' | edits) ;; *) usage ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools
export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp" GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

mkdir "$tmp/repo"
cd "$tmp/repo"
git init -q -b main
echo Build. >PROMPT_build.md
echo .ralph/ >.gitignore
echo notes >notes.txt
git add -A
git commit -qm init
git ralph loop --worktree k --max 1 --agent-cmd 'echo k > k.txt; git add k.txt; git commit -qm k' >/dev/null 2>&1 || true
echo user >user.txt
git add user.txt
git commit -qm user
old=$(git rev-parse main)
tip=$(git rev-parse ralph/k)

# how long one whole merge takes here: the kills fall anywhere in 0..1.2 of it
start=$(date +%s%N)
git ralph merge k --validate 'sleep 0.05' >/dev/null 2>&1
span_us=$((($(date +%s%N) - start) / 1000 * 12 / 10))
git reset -q --hard "$old"
echo "one merge: $((span_us * 10 / 12 / 1000)) ms; $rounds kills at random moments within $((span_us / 1000)) ms${edits:+, the main work tree with an edit}" >&2

# the main work tree's status after a round: clean, or the edit of notes.txt only
edit() { [ -z "$edits" ] || echo mine >>notes.txt; }
expected=""
[ -z "$edits" ] || expected=" M notes.txt"

undone=0 merged=0 round=0
while [ $round -lt "$rounds" ]; do
	round=$((round + 1))
	delay_us=$(($(od -An -N4 -tu4 /dev/urandom) % span_us))
	edit
	git-ralph merge k --validate 'sleep 0.05' >/dev/null 2>&1 &
	pid=$!
	sleep "$(printf '0.%06d' "$delay_us")"
	kill -9 $pid 2>/dev/null || true
	wait $pid 2>/dev/null || true
	sleep 0.2 # git's own children live on in their process groups: let them end
	git ralph runs >/dev/null 2>"$tmp/runs.err"
	now=$(git rev-parse main)
	if [ "$now" = "$old" ]; then
		undone=$((undone + 1))
	elif [ "$(git rev-parse "$now^1" "$now^2" 2>/dev/null | tr '\n' ' ')" = "$old $tip " ]; then
		merged=$((merged + 1))
	else
		echo "round $round (kill after ${delay_us} us): main is at $now, neither $old nor a merge of it with $tip" >&2
		exit 1
	fi
	if git worktree list | grep -q '\.merge-'; then
		echo "round $round: a scratch worktree was left: $(git worktree list)" >&2
		exit 1
	fi
	if grep -qs 'state = .merging.\|state = .queued.' .git/ralph/merges/k.toml; then
		echo "round $round: the merge was left $(grep 'state =' .git/ralph/merges/k.toml)" >&2
		exit 1
	fi
	if [ "$(git status --porcelain --untracked-files=no)" != "$expected" ]; then
		echo "round $round: the main work tree does not match main${edits:+ and the edit}: $(git status --porcelain)" >&2
		exit 1
	fi
	if [ -n "$edits" ] && ! grep -q mine notes.txt; then
		echo "round $round: the edit of notes.txt was lost" >&2
		exit 1
	fi
	git reset -q --hard "$old"
done
echo "$rounds kills: main left at its old commit $undone times, at the merge $merged times, never anything else"
