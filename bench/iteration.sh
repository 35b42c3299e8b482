#!/bin/sh
# Per-iteration overhead: everything git-ralph does around the agent (prompt, process
# group, checkpoints, diff and record, refs, state) on a repository of 20,000 files,
# next to a shell loop doing the minimum a Ralph loop does per iteration, measured in the
# same run (see docs/benchmarks.md).
#
#   bench/iteration.sh [ITERATIONS]     default 20
#
# The agent does nothing (`true`) in both, so what is timed is the loop's own work.
set -eu

iterations=${1:-20}
case $iterations in '' | *[!0-9]* | 0*) echo "usage: bench/iteration.sh [ITERATIONS]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools
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

# shell_loop N: the minimum per iteration, as the shell-script Ralph loops do it.
shell_loop() {
	i=0
	while [ $i -lt "$1" ]; do
		cat PROMPT_build.md | true
		git rev-parse HEAD >/dev/null
		git status --porcelain >/dev/null
		git diff --stat >/dev/null
		i=$((i + 1))
	done
}

# ralph_loop N: git-ralph with an agent that does nothing.
ralph_loop() {
	git ralph loop --fresh --quiet --max "$1" --idle-threshold 0 --agent-cmd true 2>/dev/null || [ $? -eq 2 ]
}

# time_per_iteration FUNC: milliseconds per iteration (one decimal) of FUNC over $iterations.
time_per_iteration() {
	start=$(now_us)
	"$1" "$iterations"
	end=$(now_us)
	us=$(((end - start) / iterations))
	printf '%d.%d' $((us / 1000)) $((us % 1000 / 100))
}

ralph_loop 2 # warm the caches; writes .ralph/.gitignore, which a user commits
git add .ralph/.gitignore
git commit -qm "git-ralph bookkeeping stays out of git"
runs="1 2 3"
for r in $runs; do
	s=$(time_per_iteration shell_loop)
	g=$(time_per_iteration ralph_loop)
	echo "run $r: shell loop $s ms/iteration, git-ralph $g ms/iteration" >&2
	echo "$s $g" >>"$tmp/results"
done

median() { sort -n | sed -n 2p; }
shell=$(cut -d' ' -f1 "$tmp/results" | median)
ralph=$(cut -d' ' -f2 "$tmp/results" | median)
echo
echo "git-ralph: $(cd - >/dev/null && git rev-parse --short HEAD 2>/dev/null || echo unknown); $(go version | cut -d' ' -f3); cores: $(nproc)"
echo "20,000 files, $iterations iterations per measurement, agent \`true\`; medians of 3"
echo
echo "| loop | per iteration |"
echo "|---|---:|"
echo "| shell: \`cat PROMPT | agent; git rev-parse HEAD; git status --porcelain; git diff --stat\` | $shell ms |"
echo "| git-ralph (checkpoint, diff, record, refs, state, process group) | $ralph ms |"
