#!/bin/sh
# Reading history as it grows: `git ralph history --diff N` and `git ralph history`
# (the newest 20) with 10 recorded iterations against 5,000, in the same run
# (see docs/dev/benchmarks.md).
#
#   bench/history.sh [RUNS]     RUNS: timed runs of each command (default 50)
set -eu

runs=${1:-50}
case $runs in '' | *[!0-9]* | 0*) echo "usage: bench/history.sh [RUNS]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools mkhistory
export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"

for n in 10 5000; do
	git init -q "$tmp/r$n"
	echo "recording $n iterations..." >&2
	mkhistory "$tmp/r$n" $n
done

now_us() { date +%s%6N; }

# median_ms DIR ARGS...: median wall time in ms (two decimals) of `git ralph ARGS` in DIR.
median_ms() {
	dir=$1
	shift
	: >"$tmp/times"
	i=0
	while [ $i -lt "$runs" ]; do
		start=$(now_us)
		(cd "$dir" && git ralph "$@" >/dev/null)
		end=$(now_us)
		echo $((end - start)) >>"$tmp/times"
		i=$((i + 1))
	done
	us=$(sort -n "$tmp/times" | sed -n "$(((runs + 1) / 2))p")
	printf '%d.%02d' $((us / 1000)) $((us % 1000 / 10))
}

d10=$(median_ms "$tmp/r10" history --diff 5)
d5000=$(median_ms "$tmp/r5000" history --diff 4990)
l10=$(median_ms "$tmp/r10" history)
l5000=$(median_ms "$tmp/r5000" history)
echo
echo "git-ralph: $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(go version | cut -d' ' -f3); cores: $(nproc); medians of $runs runs"
echo
echo "| command | 10 iterations | 5,000 iterations |"
echo "|---|---:|---:|"
echo "| \`git ralph history --diff N\` | $d10 ms | $d5000 ms |"
echo "| \`git ralph history\` (newest 20) | $l10 ms | $l5000 ms |"
