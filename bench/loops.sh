#!/bin/sh
# Loops in worktrees side by side: with an agent that takes 2 s per iteration and uses
# little CPU (it sleeps, then commits one line), 4 loops in worktrees of their own must
# complete at least 3.5x the iterations per minute of one loop, measured in the same run
# against one loop as the baseline (see docs/dev/benchmarks.md). Three ways, one after the
# other, in one scratch repository:
#
#   one         git ralph loop --worktree one --max N
#   four        4 x git ralph loop --worktree fourK --max N, started together
#   best-of     git ralph loop --best-of 4 --jobs 4 --max N (one process driving four)
#
#   bench/loops.sh [ITERATIONS]     iterations per loop; default 10
set -eu

iterations=${1:-10}
case $iterations in '' | *[!0-9]* | 0*) echo "usage: bench/loops.sh [ITERATIONS]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools
export PATH GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
git config --global user.name bench
git config --global user.email bench@example.com

repo="$tmp/repo"
mkdir -p "$repo"
cd "$repo"
git init -q -b main .
git config gc.auto 0
echo "Do the next step." >PROMPT_build.md
echo "a file the agents add lines to" >work.txt
git add -A
git commit -qm init

# the agent: 2 s of waiting (a model thinking), then one line committed
cat >"$tmp/agent" <<'AGENT'
cat >/dev/null
sleep 2
echo "iteration $RALPH_ITERATION" >>work.txt
git commit -qm "iteration $RALPH_ITERATION" work.txt
AGENT

now_ms() { date +%s%3N; }

# loop NAME: one loop in its worktree, N iterations; exit 2 is max-iters, as wanted.
loop() {
	git ralph loop --worktree "$1" --quiet --max "$iterations" --idle-threshold 0 --agent-cmd "sh $tmp/agent" 2>"$tmp/$1.err" || [ $? -eq 2 ] || {
		cat "$tmp/$1.err" >&2
		return 1
	}
}

# iterations_done NAME...: iterations the loops recorded (the commits on their branches)
iterations_done() {
	total=0
	for name in "$@"; do
		total=$((total + $(git rev-list --count "main..ralph/$name")))
	done
	echo $total
}

# per_minute ITERATIONS MS: iterations per minute, two decimals
per_minute() { awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.2f", n * 60000 / ms }'; }

echo "one loop, $iterations iterations of 2 s..." >&2
start=$(now_ms)
loop one
one_ms=$(($(now_ms) - start))
one_n=$(iterations_done one)

echo "four loops at once, $iterations iterations each..." >&2
start=$(now_ms)
pids=
for k in 1 2 3 4; do
	loop "four$k" &
	pids="$pids $!"
done
failed=0
for pid in $pids; do wait "$pid" || failed=1; done
four_ms=$(($(now_ms) - start))
[ $failed -eq 0 ] || { echo "a loop failed" >&2; exit 1; }
four_n=$(iterations_done four1 four2 four3 four4)

echo "best-of 4 (--jobs 4), $iterations iterations each..." >&2
start=$(now_ms)
git ralph loop --best-of 4 --jobs 4 --worktree best --quiet --max "$iterations" --idle-threshold 0 --agent-cmd "sh $tmp/agent" >"$tmp/best.out" 2>"$tmp/best.err" || {
	cat "$tmp/best.err" >&2
	exit 1
}
best_ms=$(($(now_ms) - start))
best_n=$(iterations_done best-1 best-2 best-3 best-4)

one_pm=$(per_minute "$one_n" "$one_ms")
four_pm=$(per_minute "$four_n" "$four_ms")
best_pm=$(per_minute "$best_n" "$best_ms")
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
four_x=$(ratio "$four_pm" "$one_pm")
best_x=$(ratio "$best_pm" "$one_pm")

echo "| Loops | Iterations | Wall time | Iterations per minute | Against one loop |"
echo "|---|---:|---:|---:|---:|"
printf '| one loop in a worktree | %d | %d.%03d s | %s | 1.00x |\n' "$one_n" $((one_ms / 1000)) $((one_ms % 1000)) "$one_pm"
printf '| 4 loops in worktrees, 4 processes | %d | %d.%03d s | %s | %sx |\n' "$four_n" $((four_ms / 1000)) $((four_ms % 1000)) "$four_pm" "$four_x"
printf '| `--best-of 4 --jobs 4` | %d | %d.%03d s | %s | %sx |\n' "$best_n" $((best_ms / 1000)) $((best_ms % 1000)) "$best_pm" "$best_x"

ok=$(awk -v a="$four_x" -v b="$best_x" 'BEGIN { print (a >= 3.5 && b >= 3.5) ? "yes" : "no" }')
if [ "$ok" = yes ]; then
	echo "target met: 4 loops at least 3.5x one loop's iterations per minute" >&2
else
	echo "target MISSED: 4 loops below 3.5x one loop's iterations per minute" >&2
	exit 1
fi
