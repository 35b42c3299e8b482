#!/bin/sh
# API loops side by side: an API loop (--agent openai-chat) is one git-ralph process and no
# agent process, so many of them at once must stay light and add up. Against a local mock
# of the Chat Completions API that answers every request after 2 s (bench/apimock: a bash
# call that commits one line, then a final text; two requests an iteration), in one
# scratch repository, one after the other:
#
#   api-1       git-ralph loop --worktree one --agent openai-chat --api-base MOCK --model mock --max N
#   api-10      10 such loops in worktrees of their own, started together
#   api-50      50 such loops, started together
#   cli-50      the same 50 loops driving a CLI-like agent (--agent-cmd: sleeps 2 s, commits,
#               sleeps 2 s: the API loop's two turns)
#
# For each: iterations per minute (wall time of the whole set, worktrees' creation
# included; iterations = the commits on the loops' branches, checked against their
# histories), the CPU time it took, and memory: the process tree sampled every 250 ms by
# bench/treerss (VmRSS, Pss, RssAnon; peaks), git-ralph loops, their watchdogs (a loop
# starts one beside its agents, loop/agent/watchdog.go) and the agents' processes apart.
# Targets (see docs/dev/benchmarks.md): at most 25 MB RSS per API loop (its git-ralph and
# its watchdog); 50 API loops at least 40x the iterations per minute of one. Prints two
# tables on stdout; exits 1 if a target is missed.
#
# 50 loops are 50 worktree loops started together, each its own `git-ralph loop`, as
# someone runs many loops on many tasks; `--best-of 50` would start the same 50 child
# loops from one more git-ralph, on one task.
#
#   bench/apiloops.sh [ITERATIONS]     iterations per loop; default 10 (about 3 minutes)
set -eu

iterations=${1:-10}
case $iterations in '' | *[!0-9]* | 0*) echo "usage: bench/apiloops.sh [ITERATIONS]" >&2; exit 2 ;; esac

cd "$(dirname "$0")/.."
. bench/lib.sh
build_tools apimock treerss
mock_pid=
stop_mock() {
	[ -n "$mock_pid" ] || return 0
	kill "$mock_pid" 2>/dev/null || true
	wait "$mock_pid" 2>/dev/null || true
	mock_pid=
}
trap 'stop_mock; rm -rf "$tmp"' EXIT
export PATH GIT_CONFIG_NOSYSTEM=1 HOME="$tmp" XDG_CONFIG_HOME="$tmp/.config"
export RALPH_STAGNATION_THRESHOLD=0 OPENAI_API_KEY=bench-dummy-key
unset OPENAI_BASE_URL 2>/dev/null || true
git config --global user.name bench
git config --global user.email bench@example.com
# the mock model is free: a price of zero, so that the loop knows its cost
mkdir -p "$XDG_CONFIG_HOME/git-ralph"
printf '[prices.mock]\ninput = 0\noutput = 0\n' >"$XDG_CONFIG_HOME/git-ralph/config.toml"

apimock -latency 2s -port-file "$tmp/port" -stats "$tmp/mock.stats" &
mock_pid=$!
waited=0
until [ -s "$tmp/port" ]; do
	waited=$((waited + 1))
	[ $waited -le 100 ] || { echo "the mock did not start" >&2; exit 1; }
	sleep 0.1
done
export API="http://127.0.0.1:$(cat "$tmp/port")/v1" ITERATIONS="$iterations" BENCH_TMP="$tmp"

repo="$tmp/repo"
mkdir -p "$repo"
cd "$repo"
git init -q -b main .
git config gc.auto 0
echo "Do the next step." >PROMPT_build.md
echo "a file the agents add lines to" >work.txt
git add -A
git commit -qm init

# the CLI-like agent does what the mock has an API loop do: 2 s of waiting (the model's
# first turn), one line committed, 2 s more (its last turn). It is run by name so that
# treerss knows its processes (a script's comm is its file's name).
cat >"$tmp/bin/cli-agent" <<'AGENT'
#!/bin/sh
cat >/dev/null
sleep 2
echo "iteration $RALPH_ITERATION" >>work.txt
git commit -qm "iteration $RALPH_ITERATION" work.txt
sleep 2
AGENT
chmod +x "$tmp/bin/cli-agent"

# set.sh KIND COUNT PREFIX: COUNT loops (KIND api or cli) in worktrees PREFIX1… (PREFIX
# alone for one), started together; fails if one fails. Exit 2 is max-iters, as wanted.
# git-ralph is run as itself, not through `git ralph`, so that each loop is its own
# process without a git in front (git, on a Ctrl+C, ends before the loop it runs has
# stopped); on a Ctrl+C, which reaches the loops too, the set waits for them to stop, and
# the script removes the scratch directory after them.
cat >"$tmp/set.sh" <<'SET'
trap '' INT
kind=$1 count=$2 prefix=$3
loop() {
	if [ "$kind" = api ]; then
		set -- --agent openai-chat --api-base "$API" --model mock
	else
		set -- --agent-cmd "exec cli-agent"
	fi
	git-ralph loop --worktree "$name" --quiet --max "$ITERATIONS" --idle-threshold 0 "$@" 2>"$BENCH_TMP/$name.err" || [ $? -eq 2 ] || {
		cat "$BENCH_TMP/$name.err" >&2
		return 1
	}
}
pids= k=1
while [ $k -le "$count" ]; do
	name=$prefix
	[ "$count" -eq 1 ] || name=$prefix$k
	loop &
	pids="$pids $!"
	k=$((k + 1))
done
failed=0
for pid in $pids; do wait "$pid" || failed=1; done
exit $failed
SET

now_ms() { date +%s%3N; }
load() { cut -d' ' -f1 /proc/loadavg; }

# names PREFIX COUNT: the loops' names
names() {
	if [ "$2" -eq 1 ]; then echo "$1"; else seq -f "$1%g" 1 "$2"; fi
}

# iterations_done PREFIX COUNT: the commits on the loops' branches, each checked against
# the iterations its history recorded
iterations_done() {
	total=0
	for name in $(names "$1" "$2"); do
		commits=$(git rev-list --count "main..ralph/$name")
		recorded=$(git -C "$(git worktree list --porcelain | sed -n "s|^worktree \(.*\)|\1|p" | grep "/$name\$")" ralph history --json | grep -c '"iteration":' || true)
		[ "$commits" -eq "$recorded" ] || echo "warning: $name: $commits commits, $recorded iterations recorded" >&2
		total=$((total + commits))
	done
	echo $total
}

# field NAME: a field of the last line treerss wrote
field() { tail -n 1 "$tmp/rss" | tr ' ' '\n' | sed -n "s/^$1=//p"; }

# mb KIB [COUNT]: KiB as MB (10^6 bytes, the target's unit), divided by COUNT
mb() { awk -v k="$1" -v n="${2:-1}" 'BEGIN { printf "%.1f", k * 1024 / 1e6 / n }'; }
per_minute() { awk -v n="$1" -v ms="$2" 'BEGIN { printf "%.2f", n * 60000 / ms }'; }

one_pm=
# measure LABEL KIND COUNT PREFIX: runs the set under treerss and prints its table row
measure() {
	label=$1 kind=$2 count=$3 prefix=$4
	before=$(load)
	echo "$label: $count loop(s), $iterations iterations each (load $before)..." >&2
	start=$(now_ms)
	treerss -o "$tmp/rss" -agent cli-agent sh "$tmp/set.sh" "$kind" "$count" "$prefix" || {
		echo "$label: a loop failed" >&2
		exit 1
	}
	ms=$(($(now_ms) - start))
	n=$(iterations_done "$prefix" "$count")
	pm=$(per_minute "$n" "$ms")
	[ -n "$one_pm" ] || one_pm=$pm
	x=$(awk -v a="$pm" -v b="$one_pm" 'BEGIN { printf "%.2f", a / b }')
	cpu=$(awk -v ms="$(field cpu_ms)" -v n="$n" 'BEGIN { printf "%.2f", ms / 1000 / n }')
	printf '| %s | %d | %d.%01d s | %s | %sx | %s s | %s → %s |\n' \
		"$label" "$n" $((ms / 1000)) $((ms % 1000 / 100)) "$pm" "$x" "$cpu" "$before" "$(load)" >>"$tmp/speed"
	printf '| %s | %s (%s) | %s (%s) | %s (%s) | %s | %s | %s | %s (%s) | %s | %s |\n' "$label" \
		"$(mb "$(field loop_rss)")" "$(field loop_n)" "$(mb "$(field watchdog_rss)")" "$(field watchdog_n)" \
		"$(mb "$(field agent_rss)")" "$(field agent_n)" \
		"$(mb "$(field own_rss)" "$count")" "$(mb "$(field own_pss)" "$count")" "$(mb "$(field own_anon)" "$count")" \
		"$(mb "$(field one_loop_rss)")" "$(mb "$(field one_loop_anon)")" "$(mb "$(field total_rss)")" "$(field samples)" >>"$tmp/memory"
	eval "${kind}_${count}_pm=\$pm ${kind}_${count}_x=\$x ${kind}_${count}_one=\$(field one_loop_rss) ${kind}_${count}_own=\$(field own_rss)"
}

measure "1 API loop" api 1 one
measure "10 API loops" api 10 ten
measure "50 API loops" api 50 api
measure "50 CLI-agent loops" cli 50 cli
stop_mock

echo "| Loops | Iterations | Wall time | Iterations per minute | Against one loop | CPU per iteration | Load average, before → after |"
echo "|---|---:|---:|---:|---:|---:|---:|"
cat "$tmp/speed"
echo
echo "| Loops (peaks, MB = 10^6 bytes) | git-ralph loops: RSS (processes) | their watchdogs: RSS (processes) | agents: RSS (processes) | RSS per loop | Pss per loop | anonymous per loop | largest git-ralph loop: RSS (anonymous) | every process: RSS | samples |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
cat "$tmp/memory"
echo "mock: $(cat "$tmp/mock.stats")" >&2

# targets: at most 25 MB (25,000,000 bytes: 24,414 KiB) RSS per API loop, its git-ralph
# and the watchdog it starts, alone and among 50; 50 API loops at least 40x one loop's
# iterations per minute
ok=yes
if [ $((api_1_own)) -le 24414 ] && [ $((api_50_own / 50)) -le 24414 ]; then
	echo "target met: at most 25 MB RSS per API loop (one: $(mb "$api_1_own") MB, among 50: $(mb "$api_50_own" 50) MB)" >&2
else
	echo "target MISSED: above 25 MB RSS per API loop (one: $(mb "$api_1_own") MB, among 50: $(mb "$api_50_own" 50) MB; the git-ralph loop alone at most $(mb "$api_1_one") MB, $(mb "$api_50_one") MB)" >&2
	ok=no
fi
if awk -v x="$api_50_x" 'BEGIN { exit !(x >= 40) }'; then
	echo "target met: 50 API loops at ${api_50_x}x one loop's iterations per minute (at least 40x)" >&2
else
	echo "target MISSED: 50 API loops at ${api_50_x}x one loop's iterations per minute (below 40x)" >&2
	ok=no
fi
[ "$ok" = yes ]
