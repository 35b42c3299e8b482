#!/bin/sh
# What a merge through the queue costs against doing it by hand: `git ralph merge NAME
# --validate true` of a one-commit branch (queue lock, journal, scratch worktree, merge,
# validation, compare-and-swap, the main work tree brought along) against a plain
# `git worktree add` + `git merge` + `git worktree remove` of the same branch, interleaved
# in the same run (see docs/dev/benchmarks.md). Then the same again for CPU time (user and
# system, of each command and of every process it waited for, from wait4 through
# bench/peakrss), which moves much less than the wall time on a machine shared with other
# work; those rounds are not timed, since peakrss adds a process start to each command.
#
#   bench/merge.sh [RUNS [FILES]]     RUNS: timed runs of each (default 30); FILES: files
#                                     in the repository (default 300)
set -eu

runs=${1:-30}
files=${2:-300}
case $runs$files in '' | *[!0-9]* | 0*) echo "usage: bench/merge.sh [RUNS [FILES]]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools peakrss
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

# the CPU rounds: FIELD 3 of peakrss's line, summed over the commands of one round
cpu_round() {
	rm -f "$tmp/ru"
	for cmd in "$@"; do
		eval "peakrss -o \"\$tmp/ru\" $cmd" >/dev/null 2>&1
	done
	awk '{ us += $3 } END { printf "%d\n", us }' "$tmp/ru"
}
i=0
while [ $i -lt "$runs" ]; do
	cpu_round 'git ralph merge one --validate true' >>"$tmp/cpu.queue"
	git reset -q --hard "$old"
	cpu_round 'git worktree add -q --detach "$tmp/scratch" main' 'git -C "$tmp/scratch" merge -q --no-ff --no-edit ralph/one' \
		'git worktree remove --force "$tmp/scratch"' >>"$tmp/cpu.plain"
	cpu_round 'git merge -q --no-ff --no-edit ralph/one' >>"$tmp/cpu.inplace"
	git reset -q --hard "$old"
	i=$((i + 1))
done

median_us() { sort -n "$tmp/$1" | sed -n "$(((runs + 1) / 2))p"; }
ms() { printf '%d.%02d' $(($1 / 1000)) $(($1 % 1000 / 10)); }
q=$(median_us times.queue) p=$(median_us times.plain) m=$(median_us times.inplace)
qc=$(median_us cpu.queue) pc=$(median_us cpu.plain) mc=$(median_us cpu.inplace)

echo
echo "git-ralph: $(git -C "$OLDPWD" rev-parse --short HEAD 2>/dev/null || echo unknown); $(go version | cut -d' ' -f3); $(git --version); cores: $(nproc); $files files; medians of $runs interleaved runs; load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| what | wall time | CPU time |"
echo "|---|---:|---:|"
echo "| \`git ralph merge one --validate true\` | $(ms "$q") ms | $(ms "$qc") ms |"
echo "| \`git worktree add\` + \`git merge\` + \`git worktree remove\` | $(ms "$p") ms | $(ms "$pc") ms |"
echo "| \`git merge\` in the main work tree | $(ms "$m") ms | $(ms "$mc") ms |"
echo "| queue / scratch-worktree merge | $((q * 100 / p)) % | $((qc * 100 / pc)) % |"
