#!/bin/sh
# What the pre-push hook costs when there is nothing to validate: `git push` to a local
# bare remote with git-ralph's hook installed against the same push with no hook, and
# `git-ralph pre-push` alone against `true` and git-ralph's bare start, all interleaved
# in the same run (see docs/dev/benchmarks.md).
#
#   bench/prepush.sh [RUNS]     RUNS: timed runs of each (default 50)
set -eu

runs=${1:-50}
case $runs in '' | *[!0-9]* | 0*) echo "usage: bench/prepush.sh [RUNS]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools
export GIT_CONFIG_NOSYSTEM=1 HOME="$tmp" GIT_AUTHOR_NAME=bench GIT_AUTHOR_EMAIL=bench@example.com
export GIT_COMMITTER_NAME=bench GIT_COMMITTER_EMAIL=bench@example.com

# two identical repositories, each pushing to its own bare remote; one has the hook
for r in plain hooked; do
	git init -q --bare "$tmp/$r.git"
	git init -q -b main "$tmp/$r"
	git -C "$tmp/$r" remote add origin "$tmp/$r.git"
	git -C "$tmp/$r" commit -q --allow-empty -m base
done
(cd "$tmp/hooked" && git ralph hook install >/dev/null)
refs="refs/heads/main $(git -C "$tmp/hooked" rev-parse HEAD) refs/heads/main 0000000000000000000000000000000000000000"

# the measured commands, one shell snippet each; every push sends one new commit, so that
# git runs the hook every time, and `git commit` alone is measured to subtract it
set -- \
	"cd '$tmp/plain' && git commit -q --allow-empty -m x && git push -q origin main" \
	"cd '$tmp/hooked' && git commit -q --allow-empty -m x && git push -q origin main" \
	"cd '$tmp/plain' && git commit -q --allow-empty -m x" \
	"echo '$refs' | true" \
	"git-ralph --version" \
	"cd '$tmp/hooked' && echo '$refs' | git-ralph pre-push origin '$tmp/hooked.git'" \
	"cd '$tmp/hooked' && echo '$refs' | .git/hooks/pre-push origin '$tmp/hooked.git'"

now_us() { date +%s%6N; }

# round robin: run k of every command, then run k+1 of every command, so that a noisy
# moment of the machine hits them all alike
i=0
while [ $i -lt "$runs" ]; do
	k=0
	for cmd in "$@"; do
		start=$(now_us)
		sh -c "$cmd" >/dev/null 2>&1
		end=$(now_us)
		echo $((end - start)) >>"$tmp/times.$k"
		k=$((k + 1))
	done
	i=$((i + 1))
done

# median K: median wall time in ms (two decimals) of command K.
median() {
	us=$(sort -n "$tmp/times.$1" | sed -n "$(((runs + 1) / 2))p")
	printf '%d.%02d' $((us / 1000)) $((us % 1000 / 10))
}

echo
echo "git-ralph: $(git rev-parse --short HEAD 2>/dev/null || echo unknown); $(go version | cut -d' ' -f3); $(git --version); cores: $(nproc); medians of $runs interleaved runs"
echo
echo "| what | median |"
echo "|---|---:|"
echo "| \`git commit\` + \`git push\`, no hook | $(median 0) ms |"
echo "| \`git commit\` + \`git push\`, git-ralph's hook | $(median 1) ms |"
echo "| \`git commit\` alone | $(median 2) ms |"
echo "| \`true\` (starting a process) | $(median 3) ms |"
echo "| \`git-ralph --version\` (starting git-ralph) | $(median 4) ms |"
echo "| \`git-ralph pre-push\` | $(median 5) ms |"
echo "| the hook script (\`sh\` + \`git-ralph pre-push\`) | $(median 6) ms |"
