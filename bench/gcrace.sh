#!/bin/sh
# gc at any moment: loops of dirty iterations while `git gc --prune=now` runs again and
# again beside them (see docs/dev/benchmarks.md). Each trial is a fresh repository of 200
# files and a loop of 10 iterations whose agent edits a tracked file and leaves a new
# untracked one; it passes when the loop ends normally (exit 2, max iterations) with 10
# records whose diffs each show that iteration's line.
#
#   bench/gcrace.sh [TRIALS]     default 20
set -eu

trials=${1:-20}
case $trials in '' | *[!0-9]* | 0*) echo "usage: bench/gcrace.sh [TRIALS]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
. bench/lib.sh
build_tools
export PATH GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
git config --global user.name bench
git config --global user.email bench@example.com

passed=0 aborted=0 lost=0 unmeasured=0
t=0
while [ $t -lt "$trials" ]; do
	t=$((t + 1))
	repo="$tmp/repo$t"
	mkdir -p "$repo"
	cd "$repo"
	git init -q .
	i=0
	while [ $i -lt 200 ]; do i=$((i + 1)); echo "$i" >"f$i.txt"; done
	echo "Build." >PROMPT_build.md
	git add -A
	git commit -qm init
	echo "dirty before the loop" >untracked-at-start.txt
	(while [ ! -e stop ]; do git gc -q --prune=now 2>/dev/null || true; done) &
	gc=$!
	code=0
	git ralph loop --quiet --max 10 --idle-threshold 0 \
		--agent-cmd 'echo "$RALPH_ITERATION" >>f1.txt; echo "$RALPH_ITERATION" >draft-$RALPH_ITERATION.txt; sleep 0.05' \
		>out 2>err || code=$?
	touch stop
	wait $gc
	records=$(ls .ralph/history/*/record.toml 2>/dev/null | wc -l)
	diffs=0 n=0
	while [ $n -lt 10 ]; do
		n=$((n + 1))
		if git ralph history --diff $n 2>/dev/null | grep -qx "+$n"; then diffs=$((diffs + 1)); fi
	done
	[ $code -eq 2 ] || aborted=$((aborted + 1))
	lost=$((lost + 10 - records))
	unmeasured=$((unmeasured + records - diffs))
	if [ $code -eq 2 ] && [ "$records" -eq 10 ] && [ $diffs -eq 10 ]; then
		passed=$((passed + 1))
	else
		echo "trial $t: exit $code, $records records, $diffs with their diff" >&2
		tail -2 err >&2
	fi
	cd "$tmp"
	rm -rf "$repo" || true
done
echo "git-ralph: $rev; $(git --version)"
echo "$trials loops of 10 dirty iterations beside a \`git gc --prune=now\` loop:"
echo "$passed whole; $aborted aborted; $lost of $((trials * 10)) records lost; $unmeasured recorded without their changes"
