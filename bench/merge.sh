#!/bin/sh
# What a merge through the queue costs against doing it by hand: `git ralph merge NAME
# --validate true` of a one-commit branch (queue lock, journal, scratch worktree, merge,
# validation, compare-and-swap, the main work tree brought along) against a plain
# `git worktree add` + `git merge` + `git worktree remove` of the same branch, interleaved
# in the same run (see docs/benchmarks.md).
#
#   bench/merge.sh [RUNS [FILES]]     RUNS: timed runs of each (default 30); FILES: files
#                                     in the repository (default 300)
set -eu

runs=${1:-30}
files=${2:-300}
case $runs$files in '' | *[!0-9]* | 0*) echo "usage: bench/merge.sh [RUNS [FILES]]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools
export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp" GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

# a repository of FILES files; the loop's branch has one commit, main one other
mkdir "$tmp/repo"
cd "$tmp/repo"
git init -q -b main
i=0
while [ $i -lt "$files" ]; do mkdir -p "d$((i % 10))"; echo "file $i" >"d$((i % 10))/f$i.txt"; i=$((i + 1)); done
echo Build. >PROMPT_build.md
echo .ralph/ >.gitignore
git add -A
git commit -qm init
git ralph loop --worktree one --max 1 --agent-cmd 'echo one >> d1/f1.txt; git commit -qam one' >/dev/null 2>&1 || true
echo main >>d2/f2.txt
git commit -qam main
old=$(git rev-parse main)

now_us() { date +%s%6N; }

# round robin, so that a noisy moment of the machine hits both alike; main goes back to
# its old commit (untimed) after each
i=0
while [ $i -lt "$runs" ]; do
	start=$(now_us)
	git ralph merge one --validate true >/dev/null 2>&1
	end=$(now_us)
	echo $((end - start)) >>"$tmp/times.queue"
	git rev-parse -q --verify main^2 >/dev/null || { echo "the queue did not merge" >&2; exit 1; }
	git reset -q --hard "$old"

	start=$(now_us)
	git worktree add -q --detach "$tmp/scratch" main
	git -C "$tmp/scratch" merge -q --no-ff --no-edit ralph/one
	git worktree remove --force "$tmp/scratch"
	end=$(now_us)
	echo $((end - start)) >>"$tmp/times.plain"

	start=$(now_us)
	git merge -q --no-ff --no-edit ralph/one
	end=$(now_us)
	echo $((end - start)) >>"$tmp/times.inplace"
	git reset -q --hard "$old"
	i=$((i + 1))
done

median_us() { sort -n "$tmp/times.$1" | sed -n "$(((runs + 1) / 2))p"; }
ms() { printf '%d.%02d' $(($1 / 1000)) $(($1 % 1000 / 10)); }
q=$(median_us queue) p=$(median_us plain) m=$(median_us inplace)

echo
echo "git-ralph: $(git -C "$OLDPWD" rev-parse --short HEAD 2>/dev/null || echo unknown); $(go version | cut -d' ' -f3); $(git --version); cores: $(nproc); $files files; medians of $runs interleaved runs"
echo
echo "| what | median |"
echo "|---|---:|"
echo "| \`git ralph merge one --validate true\` | $(ms "$q") ms |"
echo "| \`git worktree add\` + \`git merge\` + \`git worktree remove\` | $(ms "$p") ms |"
echo "| \`git merge\` in the main work tree | $(ms "$m") ms |"
echo "| queue / scratch-worktree merge | $((q * 100 / p)) % |"
