#!/bin/sh
# Per-iteration overhead: everything git-ralph does around the agent (prompt, process
# group, checkpoints, diff and record, refs, state) on a repository of 20,000 files,
# next to a shell loop doing the minimum a Ralph loop does per iteration, measured in the
# same run, interleaved (see docs/dev/benchmarks.md). Three agents, the same in both loops:
#
#   idle        does nothing
#   committing  appends a line to a tracked file and commits it
#   dirty       appends a line to a tracked file and rewrites an untracked file, and
#               commits nothing: the work tree stays dirty
#
#   bench/iteration.sh [ITERATIONS]     default 20
#   CASES="committing" bench/iteration.sh   only the agents named
#   BASELINE=REV bench/iteration.sh     also git-ralph as of commit REV, measured in turn
#                                       with the other two
set -eu

iterations=${1:-20}
case $iterations in '' | *[!0-9]* | 0*) echo "usage: bench/iteration.sh [ITERATIONS]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools
build_baseline
export PATH GIT_CONFIG_NOSYSTEM=1 HOME="$tmp"
git config --global user.name bench
git config --global user.email bench@example.com

echo "making a repository of 20,000 files..." >&2
repo="$tmp/repo"
mkdir -p "$repo"
cd "$repo"
git init -q .
git config gc.auto 0
d=0
while [ $d -lt 200 ]; do
	mkdir "dir$d"
	f=0
	while [ $f -lt 100 ]; do
		printf 'file %d of directory %d\nsecond line\nthird line\n' $f $d >"dir$d/file$f.txt"
		f=$((f + 1))
	done
	d=$((d + 1))
done
echo "Do nothing." >PROMPT_build.md
git add -A
git commit -qm "20,000 files"
git gc -q

now_us() { date +%s%6N; }

# The agents; the iteration number is $2 in the shell loop, $RALPH_ITERATION in git-ralph.
cat >"$tmp/agent" <<'AGENT'
cat >/dev/null
n=${RALPH_ITERATION:-$2}
case $1 in
idle) ;;
committing) echo "line $n" >>dir1/file1.txt && git commit -q -m "iteration $n" dir1/file1.txt ;;
dirty) echo "line $n" >>dir2/file2.txt && echo "draft $n" >untracked.txt ;;
esac
AGENT

# shell_loop AGENT N: the minimum per iteration, as the shell-script Ralph loops do it.
shell_loop() {
	i=0
	while [ $i -lt "$2" ]; do
		cat PROMPT_build.md | sh "$tmp/agent" "$1" $i
		git rev-parse HEAD >/dev/null
		git status --porcelain >/dev/null
		git diff --stat >/dev/null
		echo "iteration $i $(date +%s)" >"$tmp/state"
		i=$((i + 1))
	done
}

# ralph_loop AGENT N: git-ralph with the same agent.
ralph_loop() {
	git ralph loop --fresh --quiet --max "$2" --idle-threshold 0 --agent-cmd "sh $tmp/agent $1" 2>/dev/null || [ $? -eq 2 ]
}

# base_loop AGENT N: the same with git-ralph as of $BASELINE.
base_loop() {
	"$base" loop --fresh --quiet --max "$2" --idle-threshold 0 --agent-cmd "sh $tmp/agent $1" 2>/dev/null || [ $? -eq 2 ]
}

# time_per_iteration AGENT LOOP: microseconds per iteration of LOOP over $iterations, wall
# time and CPU time. It runs in a subshell ($(...)), whose CPU time and its children's
# (every process it waited for, and theirs: git-ralph, git, the agent) start at zero; the
# `times` builtin reports them.
time_per_iteration() {
	start=$(now_us)
	"$2" "$1" "$iterations"
	end=$(now_us)
	times >"$tmp/times.$$"
	cpu=$(awk '{ for (i = 1; i <= NF; i++) { split($i, t, /[ms]/); us += (t[1] * 60 + t[2]) * 1000000 } } END { printf "%d", us }' "$tmp/times.$$")
	echo $(((end - start) / iterations)) $((cpu / iterations))
}

# reset_repo: back to the committed 20,000 files, nothing dirty, before each measurement.
reset_repo() {
	git reset -q --hard base
	rm -f untracked.txt
}

ms() { printf '%d.%d' $(($1 / 1000)) $(($1 % 1000 / 100)); }
hundredths() { printf '%d.%02d' $(($1 / 100)) $(($1 % 100)); }

ralph_loop idle 2 # warm the caches; writes .ralph/.gitignore, which a user commits
git add .ralph/.gitignore
git commit -qm "git-ralph bookkeeping stays out of git"
git tag base
cases=${CASES:-idle committing dirty} # CASES=committing: only that agent
runs=${RUNS:-5}
r=0
while [ $r -lt "$runs" ]; do
	r=$((r + 1))
	for c in $cases; do
		reset_repo
		set -- $(time_per_iteration "$c" shell_loop)
		reset_repo
		set -- "$@" $(time_per_iteration "$c" ralph_loop)
		echo "run $r, $c: shell loop $(ms "$1") ms/iteration (CPU $(ms "$2") ms), git-ralph $(ms "$3") ms/iteration (CPU $(ms "$4") ms)" >&2
		echo "$1 $3" >>"$tmp/results.$c"
		echo "$2 $4" >>"$tmp/cpu.$c"
		if [ -n "$base" ]; then
			reset_repo
			set -- "$@" $(time_per_iteration "$c" base_loop)
			echo "run $r, $c: git-ralph at $BASELINE $(ms "$5") ms/iteration (CPU $(ms "$6") ms)" >&2
			echo "$1 $5" >>"$tmp/results-base.$c"
			echo "$2 $6" >>"$tmp/cpu-base.$c"
		fi
	done
done
reset_repo

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
echo
echo "git-ralph: $(cd - >/dev/null && git rev-parse --short HEAD 2>/dev/null || echo unknown); $(go version | cut -d' ' -f3); cores: $(nproc)"
echo "20,000 files, $iterations iterations per measurement, shell loop and git-ralph interleaved; medians of $runs runs"
echo
# table TITLE RESULTS: the medians of both loops and of the runs' ratios, per agent (each
# run's ratio compares two measurements taken back to back, under the same load).
table() {
	echo
	echo "| $1 | shell loop | git-ralph | git-ralph / shell | the runs' ratios |"
	echo "|---|---:|---:|---:|---:|"
	for c in $cases; do
		shell=$(cut -d' ' -f1 "$tmp/$2.$c" | median)
		ralph=$(cut -d' ' -f2 "$tmp/$2.$c" | median)
		awk '{ print int($2 * 100 / $1) }' "$tmp/$2.$c" >"$tmp/ratios"
		ratio=$(median <"$tmp/ratios")
		all=$(while read -r x; do printf '%s ' "$(hundredths "$x")"; done <"$tmp/ratios")
		echo "| $c | $(ms "$shell") ms | $(ms "$ralph") ms | $(hundredths "$ratio")× | ${all% } |"
	done
}
table "wall time per iteration" results
table "CPU time per iteration" cpu
if [ -n "$base" ]; then
	echo
	echo "git-ralph at $BASELINE, measured in turn with the two above:"
	table "wall time per iteration" results-base
	table "CPU time per iteration" cpu-base
fi
