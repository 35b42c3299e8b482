#!/bin/sh
# A huge change: an agent commits one big generated file (lines of a log). What git-ralph
# spends around the agent (the checkpoint, the saved diff and its counts, the record, the
# refs), less what it spends around an agent that commits a one-line file (its cost of an
# iteration, whatever the change), is set against `git diff --stat` of the same change,
# timed in the same run; the target is at most 2x (see docs/dev/benchmarks.md).
#
#   bench/bigdiff.sh [SIZE_MB...]       default: 1 84 500
#   BASELINE=REV bench/bigdiff.sh       also git-ralph as of commit REV, in turn
#   RUNS=N                              measurements of each (default 3)
#
# Exit status 1 when the change costs git-ralph more than 2x `git diff --stat` (medians).
set -eu

[ $# -gt 0 ] || set -- 1 84 500
for size in "$@"; do
	case $size in '' | *[!0-9]* | 0*) echo "usage: bench/bigdiff.sh [SIZE_MB...]" >&2; exit 2 ;; esac
done
runs=${RUNS:-3}

cd "$(dirname "$0")/.."
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
. bench/lib.sh
build_tools peakrss
build_baseline
export PATH GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
git config --global user.name bench
git config --global user.email bench@example.com

repo="$tmp/repo"
mkdir "$repo"
cd "$repo"
git init -q .
git config gc.auto 0
echo "Commit the file." >PROMPT_build.md
git add -A
git commit -qm start
git tag base

ms() { echo $((($1 + 500) / 1000)); }
median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

# bookkeeping BINARY SAVED: git-ralph's wall time around the agent, in µs: the loop's wall time
# less the agent's own (the record's duration_ms). Appends the saved diff's size to
# the file SAVED.
bookkeeping() {
	git reset -q --hard base
	rm -rf .ralph
	peakrss -o "$tmp/wall" "$1" loop --max 1 --idle-threshold 0 --quiet \
		--agent-cmd "cat >/dev/null; cp ${3:-$tmp/big.txt} big.txt && git add big.txt && git commit -qm big" >/dev/null 2>&1 || [ $? -eq 2 ]
	wall=$(tail -n 1 "$tmp/wall" | cut -d' ' -f2)
	agent=$(sed -n 's/^duration_ms = //p' .ralph/history/1/record.toml)
	wc -c <.ralph/history/1/diff.patch >>"$2"
	echo $((wall - agent * 1000))
}

# stat: `git diff --stat` of the same change, in µs.
stat() {
	peakrss -o "$tmp/wall" git diff --stat base HEAD >/dev/null
	tail -n 1 "$tmp/wall" | cut -d' ' -f2
}

echo "one line" >"$tmp/line.txt"
echo "| file committed | \`git diff --stat\` | git-ralph around the agent | the same, one line committed | the change's cost / \`git diff --stat\` | saved diff |${BASELINE:+ git-ralph at $BASELINE | saved diff |}"
echo "|---:|---:|---:|---:|---:|---:|${BASELINE:+---:|---:|}"
failed=0
for size in "$@"; do
	echo "making a file of $size MB..." >&2
	seq -f 'a log line, number %.0f, as a build or a test run prints it' 1 $((size * 1024 * 1024 / 40)) | head -c $((size * 1024 * 1024)) >"$tmp/big.txt"
	: >"$tmp/stat"
	: >"$tmp/ralph"
	: >"$tmp/baseline"
	: >"$tmp/saved"
	: >"$tmp/saved-base"
	: >"$tmp/line"
	r=0
	while [ $r -lt "$runs" ]; do
		r=$((r + 1))
		l=$(bookkeeping git-ralph /dev/null "$tmp/line.txt")
		b=$(bookkeeping git-ralph "$tmp/saved")
		s=$(stat)
		echo "$l" >>"$tmp/line"
		echo "$b" >>"$tmp/ralph"
		echo "$s" >>"$tmp/stat"
		line="$size MB, run $r: git diff --stat $(ms "$s") ms, git-ralph $(ms "$b") ms (one line: $(ms "$l") ms)"
		if [ -n "$base" ]; then
			x=$(bookkeeping "$base" "$tmp/saved-base")
			echo "$x" >>"$tmp/baseline"
			line="$line, git-ralph at $BASELINE $(ms "$x") ms"
		fi
		echo "$line" >&2
	done
	s=$(median <"$tmp/stat")
	b=$(median <"$tmp/ralph")
	l=$(median <"$tmp/line")
	ratio=$(((b - l) * 100 / s))
	row="| $size MB | $(ms "$s") ms | $(ms "$b") ms | $(ms "$l") ms | $((ratio / 100)).$(printf %02d $((ratio % 100 < 0 ? -(ratio % 100) : ratio % 100)))× | $(head -n 1 "$tmp/saved") bytes |"
	if [ -n "$base" ]; then
		row="$row $(ms "$(median <"$tmp/baseline")") ms | $(tail -n 1 "$tmp/saved-base") bytes |"
	fi
	echo "$row"
	[ $ratio -le 200 ] || failed=1
	rm -f "$tmp/big.txt"
done
echo
echo "git-ralph: $rev; $(go version | cut -d' ' -f3); cores: $(nproc); medians of $runs runs"
if [ $failed = 1 ]; then
	echo "Target (the change's cost to git-ralph at most 2x \`git diff --stat\`): NOT met"
	exit 1
fi
echo "Target (the change's cost to git-ralph at most 2x \`git diff --stat\`): met"
