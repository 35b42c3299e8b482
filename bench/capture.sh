#!/bin/sh
# Output-capture benchmark: how fast git-ralph swallows an agent's output, next to
# `cat > /dev/null` reading the same stream in the same run, and git-ralph's peak RSS for
# a large output next to a tiny one (see docs/dev/benchmarks.md).
#
#   bench/capture.sh [SIZE_MB]     SIZE_MB: MiB the agent prints (default 1024)
#   BASELINE=REV bench/capture.sh  also git-ralph as of commit REV, its peak RSS measured
#                                  alternately with the checkout's build
#
# Exit status 1 when git-ralph's peak RSS for SIZE_MB of output is above 32 MiB.
#
# Needs only Go, git and coreutils: the wall time and the peak RSS come from
# bench/peakrss, a small Go program built along with git-ralph.
set -eu

usage() { echo "usage: bench/capture.sh [SIZE_MB]" >&2; exit 2; }
[ $# -le 1 ] || usage
size_mb=${1:-1024}
case $size_mb in '' | *[!0-9]* | 0*) usage ;; esac
runs=3
tiny_bytes=1024

cd "$(dirname "$0")/.."
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$rev" != unknown ] && ! git diff --quiet HEAD -- . ':!bench' ':!docs'; then
	rev="$rev with uncommitted changes"
fi
. bench/lib.sh
build_tools peakrss
build_baseline
if [ -e "$(git --exec-path)/git-ralph" ]; then
	echo "warning: 'git ralph' runs $(git --exec-path)/git-ralph, not the one just built" >&2
fi

repo="$tmp/repo"
mkdir "$repo"
cd "$repo"
git init -q .
echo "Benchmark agent: prints a lot, then signals success." >PROMPT_build.md

# gen BYTES: a shell command that prints BYTES of chatty output, then the SUCCESS tag.
line='a line of agent output, as chatty agents print it: tool calls, diffs, test logs ...'
gen() { echo "{ yes '$line' | head -c $1; echo '<promise>SUCCESS</promise>'; }"; }
big=$(gen $((size_mb * 1024 * 1024)))
tiny=$(gen $tiny_bytes)

# secs MICROSECONDS: seconds with two decimals. mib KIB: MiB with one decimal.
secs() { printf '%d.%02d' $((($1 + 5000) / 1000000)) $(((($1 + 5000) % 1000000) / 10000)); }
mib() { printf '%d.%d' $((($1 * 10 + 512) / 1024 / 10)) $((($1 * 10 + 512) / 1024 % 10)); }

# measure NAME COMMAND...: run COMMAND once, appending "PEAK_KIB WALL_US" to $tmp/NAME;
# it must exit 0 (for git-ralph: the agent signalled SUCCESS).
measure() {
	name=$1
	shift
	status=0
	peakrss -o "$tmp/$name" "$@" >"$tmp/log" 2>&1 || status=$?
	if [ $status -ne 0 ]; then
		echo "bench/capture.sh: $name: exit status $status (0 expected); its output:" >&2
		cat "$tmp/log" >&2
		exit 1
	fi
	set -- $(tail -n 1 "$tmp/$name")
	echo "  $name: $(secs "$2") s, peak RSS $(mib "$1") MiB" >&2
}

# median NAME FIELD: the median of field FIELD (1: peak KiB, 2: wall µs) over the runs.
median() {
	n=$(wc -l <"$tmp/$1")
	cut -d' ' -f"$2" "$tmp/$1" | sort -n | head -n $(((n + 1) / 2)) | tail -n 1
}

i=0
while [ $i -lt $runs ]; do
	i=$((i + 1))
	echo "run $i/$runs: peak RSS, $tiny_bytes bytes of output..." >&2
	measure rss-tiny git-ralph loop --max 1 --agent-cmd "$tiny"
done
i=0
while [ $i -lt $runs ]; do
	i=$((i + 1))
	echo "run $i/$runs: throughput, $size_mb MiB: cat > /dev/null, then git ralph loop..." >&2
	measure cat sh -c "$big | cat > /dev/null"
	measure ralph git ralph loop --max 1 --agent-cmd "$big"
done
i=0
while [ $i -lt $runs ]; do
	i=$((i + 1))
	echo "run $i/$runs: peak RSS, $size_mb MiB of output..." >&2
	measure rss-big git-ralph loop --max 1 --agent-cmd "$big"
	[ -z "$base" ] || measure rss-base "$base" loop --max 1 --agent-cmd "$big"
done

cat_us=$(median cat 2)
ralph_us=$(median ralph 2)
tiny_kib=$(median rss-tiny 1)
big_kib=$(median rss-big 1)
ratio=$((cat_us * 1000 / ralph_us)) # git-ralph's throughput over cat's, in tenths of a percent

cat <<EOF

git-ralph: $rev; go: $(go version | cut -d' ' -f3-); cores: $(nproc); kernel: $(uname -r)
stream: $size_mb MiB (\`yes | head -c\`) + the SUCCESS tag; medians of $runs runs

| Reader of the stream | Wall time | Throughput |
|---|---:|---:|
| \`sh -c '… \| cat > /dev/null'\` | $(secs "$cat_us") s | $((size_mb * 1000000 / cat_us)) MiB/s |
| \`git ralph loop --max 1 --agent-cmd '…'\` | $(secs "$ralph_us") s | $((size_mb * 1000000 / ralph_us)) MiB/s |
| git-ralph / cat | | $((ratio / 10)).$((ratio % 10)) % |

| Peak RSS of git-ralph | |
|---|---:|
| $tiny_bytes bytes of output | $(mib "$tiny_kib") MiB |
| $size_mb MiB of output | $(mib "$big_kib") MiB |
| difference (output buffer: 10 MiB) | $(mib $((big_kib - tiny_kib))) MiB |
EOF
if [ -n "$base" ]; then
	echo "| $size_mb MiB of output, git-ralph at $BASELINE | $(mib "$(median rss-base 1)") MiB |"
fi
echo
if [ "$big_kib" -gt $((32 * 1024)) ]; then
	echo "Target (peak RSS at most 32 MiB for $size_mb MiB of output): NOT met"
	exit 1
fi
echo "Target (peak RSS at most 32 MiB for $size_mb MiB of output): met"
