#!/usr/bin/env bash
# Reliability trials: the reliability review as a script that can be run again. Against the
# git-ralph built from this checkout, in scratch repositories, it runs
#
#   hygiene    TRIALS loops whose agent leaves children and grandchildren behind (background
#              sleeps, a nohup child, a pipeline, a child in its own process group, in every
#              third round of endings one that ignores SIGTERM), ended in turn by --timeout,
#              by SIGINT to git-ralph and by `git ralph cancel --now`; then counts the
#              processes left.
#   kill       TRIALS loops (dirty tree, untracked and ignored files of the user's, an agent
#              that edits, adds files, writes to an ignored file and commits every other
#              iteration) killed with -9 at a random moment of loop start, agent run or
#              end-of-iteration bookkeeping, then `git ralph status` and `git ralph loop`
#              to resume; checks the state, the records, the files and the processes.
#   orphans    ORPHAN_TRIALS loops killed with -9 while their agent runs past --timeout 2s:
#              the agent must be gone within the timeout and grace, or `git ralph status`
#              must show it and `git ralph cancel --now` stop it.
#   gc         GC_TRIALS loops with a dirty tree while `git gc --prune=now` runs beside them
#              in a tight loop (odd trials) or inside the agent (even trials).
#   worktrees  WT_TRIALS pairs of loops run at once in the main work tree and in a linked
#              worktree; then history, history --diff A..B and rollback in each.
#
#   bench/trials.sh [hygiene] [kill] [orphans] [gc] [worktrees]     default: all five
#
# Environment: TRIALS (100), ORPHAN_TRIALS (10), GC_TRIALS (20), WT_TRIALS (10), JOBS
# (trials run at once in hygiene and kill; worktrees at most 2, orphans at most 10; 4), SEED (for the random choices; default: the pid),
# HYGIENE_ENDINGS ("timeout sigint cancel"; "exit" adds an agent that exits leaving its
# children), HYGIENE_SETSID=1 (the agent also starts a `setsid` child, which leaves its
# process group and session), HYGIENE_ESCAPE=1 (the instrument's self-check: a child
# that leaves the session without RALPH_RUN, which no loop can find, so every trial must
# report one leftover), KEEP=1 (keep the scratch directory with every trial's logs).
#
# Each section prints a one-line summary on stdout, failed trials' details on stderr; the
# exit status is 1 when any check failed. See docs/dev/benchmarks.md.
set -u

sections=${*:-hygiene kill orphans gc worktrees}
for s in $sections; do
	case $s in hygiene | kill | orphans | gc | worktrees) ;; *)
		echo "usage: bench/trials.sh [hygiene] [kill] [orphans] [gc] [worktrees]" >&2
		exit 2
		;;
	esac
done
TRIALS=${TRIALS:-100} GC_TRIALS=${GC_TRIALS:-20} WT_TRIALS=${WT_TRIALS:-10} JOBS=${JOBS:-4}
ORPHAN_TRIALS=${ORPHAN_TRIALS:-10}
SEED=${SEED:-$$} HYGIENE_ENDINGS=${HYGIENE_ENDINGS:-timeout sigint cancel}
HYGIENE_SETSID=${HYGIENE_SETSID:-0} HYGIENE_ESCAPE=${HYGIENE_ESCAPE:-0} KEEP=${KEEP:-0}

cd "$(dirname "$0")/.."
rev=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
if [ "$rev" != unknown ] && ! git diff --quiet HEAD -- . ':!bench' ':!docs'; then
	rev="$rev with uncommitted changes"
fi
. bench/lib.sh
build_tools trialcheck
agents=$PWD/bench/trials
session=trials$$ # every process a trial starts carries AUDIT_MARK=$session-…

# Hermetic: no user or system git config, no loop settings from the environment.
export HOME="$tmp/home" XDG_CONFIG_HOME="$tmp/home/.config" GIT_CONFIG_NOSYSTEM=1
unset GIT_DIR GIT_WORK_TREE GIT_INDEX_FILE GIT_COMMON_DIR $(compgen -e | grep '^RALPH_')
mkdir -p "$HOME"
git config --global user.name trials
git config --global user.email trials@example.com
git config --global init.defaultBranch main
if [ -e "$(git --exec-path)/git-ralph" ]; then
	echo "warning: 'git ralph' runs $(git --exec-path)/git-ralph, not the one just built" >&2
fi

# marked MARK: the pids of live processes whose environment has AUDIT_MARK=MARK (zombies
# have no environment left, so they never match).
marked() {
	grep -lszxF "AUDIT_MARK=$1" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
}

# describe PID...: "pid:command line" for each, for the report.
describe() {
	for p in "$@"; do
		printf '%s:%s ' "$p" "$(tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null | cut -c1-60 | sed 's/ *$//; s/ /_/g')"
	done
}

# kill_marked MARK: SIGKILL every live process marked MARK.
kill_marked() {
	local pids
	pids=$(marked "$1")
	[ -z "$pids" ] || kill -9 $pids 2>/dev/null
}

cleanup() {
	local pids
	pids=$(grep -lsz "^AUDIT_MARK=$session-" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3)
	[ -z "$pids" ] || kill -9 $pids 2>/dev/null
	if [ "$KEEP" = 1 ]; then
		echo "kept: $tmp" >&2
	else
		rm -rf "$tmp"
	fi
}
trap cleanup EXIT

# secs LO HI: a random duration of LO to HI milliseconds, in seconds for sleep.
secs() {
	local ms=$(($1 + RANDOM % ($2 - $1 + 1)))
	printf '%d.%03d' $((ms / 1000)) $((ms % 1000))
}

now_ms() { echo $(($(date +%s%N) / 1000000)); }

# new_repo DIR: a repository with one commit: the prompt, a tracked file, a .gitignore
# that ignores *.log.
new_repo() {
	mkdir -p "$1" && cd "$1" || return 1
	git init -q .
	git config gc.auto 0
	echo "Trial agent." >PROMPT_build.md
	echo "tracked" >tracked.txt
	echo "*.log" >.gitignore
	git add -A && git commit -qm "initial"
}

# watchdog PID SECONDS: SIGKILL PID after SECONDS unless the watchdog is killed first
# (it then takes its sleep with it). Prints the watchdog's pid.
watchdog() {
	(
		trap 'kill $s 2>/dev/null; exit 0' TERM
		sleep "$2" &
		s=$!
		wait $s
		kill -9 "$1" 2>/dev/null
	) >/dev/null 2>&1 &
	echo $!
}

# ralph DIR MARK [ENV=VALUE...] -- ARGS...: start `git-ralph ARGS` in DIR in the
# background with AUDIT_MARK=MARK (and the other assignments) in its environment; git-ralph
# itself is the background job, so $! is its pid. Output goes to DIR.out.
ralph() {
	local dir=$1 mark=$2
	shift 2
	local vars=()
	while [ "$1" != -- ]; do
		vars+=("$1")
		shift
	done
	shift
	(cd "$dir" && exec env AUDIT_MARK="$mark" "${vars[@]}" git-ralph "$@") >>"$dir.out" 2>&1 &
}

# run_trials SECTION COUNT JOBS FUNCTION: FUNCTION 1 … COUNT, JOBS at a time, each in
# a subshell that writes its result line to $tmp/res/SECTION/N.
run_trials() {
	local section=$1 count=$2 jobs=$3 fn=$4 i
	mkdir -p "$tmp/res/$section"
	for ((i = 1; i <= count; i++)); do
		while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do
			wait -n
		done
		(
			RANDOM=$((SEED * 1000 + i))
			"$fn" "$i" >"$tmp/res/$section/$i" 2>"$tmp/res/$section/$i.err"
		) &
		[ $((i % 10)) -eq 0 ] && echo "  $section: $i/$count started" >&2
	done
	wait
}

# field NAME LINE...: the value of NAME=VALUE in a result line (values have no spaces).
field() {
	local name=$1
	shift
	sed -n "s/.*\\b$name=\\([^ ]*\\).*/\\1/p" <<<"$*"
}

# count NAME TEXT: how many words the list NAME=W1 W2 … of trialcheck's output TEXT holds.
count() {
	grep "^$1=" <<<"$2" | cut -d= -f2- | wc -w
}

# sum NAME FILE...: the sum of field NAME over result files.
sum() {
	local name=$1 t=0 v f
	shift
	for f in "$@"; do
		v=$(field "$name" "$(cat "$f")")
		t=$((t + ${v:-0}))
	done
	echo $t
}

failed=0
# fail SECTION MESSAGE: a failed check, reported on stderr.
fail() {
	failed=1
	echo "FAIL $1: $2" >&2
}

# ---------------------------------------------------------------------------- hygiene

hygiene_trial() {
	local i=$1 d=$tmp/hygiene/$i endings=($HYGIENE_ENDINGS)
	local ending=${endings[$(((i - 1) % ${#endings[@]}))]} ignore=0 mark=$session-hygiene-$i
	# Every third round of endings has a child that ignores SIGTERM, so each ending gets it.
	[ $(((i - 1) / ${#endings[@]} % 3)) -eq 2 ] && ignore=1
	new_repo "$d/repo" >/dev/null || return 1
	mkfifo "$d/fifo" && exec {fd}<>"$d/fifo"
	local args=(loop --fresh --max 1 --idle-threshold 0 --agent-cmd "$agents/hygiene-agent.sh")
	[ "$ending" = timeout ] && args+=(--timeout 1s)
	local exit_now=0
	[ "$ending" = exit ] && exit_now=1
	local start
	start=$(now_ms)
	ralph "$d/repo" "$mark" AUDIT_FIFO="$d/fifo" AUDIT_IGNORE_TERM=$ignore AUDIT_EXIT=$exit_now \
		AUDIT_SETSID="$HYGIENE_SETSID" AUDIT_ESCAPE="$HYGIENE_ESCAPE" -- "${args[@]}"
	local pid=$! wd line spawned=0
	wd=$(watchdog $pid 60)
	if read -r -t 30 -u "$fd" line; then
		spawned=$(marked "$mark" | grep -vcx "$pid")
	fi
	case $ending in
	sigint)
		sleep "$(secs 0 300)"
		kill -INT $pid
		;;
	cancel)
		sleep "$(secs 0 300)"
		(cd "$d/repo" && git ralph cancel --now) >>"$d/cancel.out" 2>&1
		;;
	esac
	wait $pid
	local rc=$? took=$(($(now_ms) - start))
	kill $wd 2>/dev/null
	local left
	left=$(marked "$mark")
	kill_marked "$mark"
	local want=130
	case $ending in timeout | exit) want=2 ;; esac
	echo "ending=$ending ignore_term=$ignore rc=$rc want=$want spawned=$spawned ms=$took" \
		"leftovers=$(echo $left | wc -w) left=$(describe $left | sed 's/ $//; s/ /,/g')"
}

hygiene() {
	echo "hygiene: $TRIALS trials, $JOBS at a time..." >&2
	run_trials hygiene "$TRIALS" "$JOBS" hygiene_trial
	local files=("$tmp"/res/hygiene/[0-9]*) f line total=0 per="" e n k
	files=($(printf '%s\n' "${files[@]}" | grep -v '\.err$'))
	local slowest="" ms top
	for e in $HYGIENE_ENDINGS; do
		n=0 k=0 top=0
		for f in "${files[@]}"; do
			line=$(cat "$f")
			[ "$(field ending "$line")" = "$e" ] || continue
			n=$((n + 1))
			k=$((k + $(field leftovers "$line")))
			ms=$(field ms "$line")
			[ "${ms:-0}" -le $top ] || top=$ms
		done
		total=$((total + k))
		per="$per${per:+, }$e $n/$k"
		slowest="$slowest${slowest:+, }$e $((top / 1000)).$((top % 1000 / 100)) s"
	done
	local bad=0 nospawn=0 slow=0
	for f in "${files[@]}"; do
		line=$(cat "$f")
		if [ -z "$line" ]; then
			fail hygiene "trial $(basename "$f"): no result ($(head -c 300 "$f.err"))"
			bad=$((bad + 1))
			continue
		fi
		[ "$(field leftovers "$line")" = 0 ] || fail hygiene "trial $(basename "$f"): $line"
		if [ "$(field rc "$line")" != "$(field want "$line")" ]; then
			bad=$((bad + 1))
			fail hygiene "trial $(basename "$f"): exit status $(field rc "$line"), $(field want "$line") expected: $line"
		fi
		[ "$(field spawned "$line")" -ge 7 ] || nospawn=$((nospawn + 1))
		[ "$(field ms "$line")" -lt 10000 ] || slow=$((slow + 1))
	done
	[ $nospawn -eq 0 ] || fail hygiene "$nospawn trials saw fewer than 7 marked processes while the agent ran: the scan does not work"
	echo "hygiene: ${#files[@]} trials, $total leftover processes (trials/leftovers: $per); unexpected exit statuses: $bad; slowest loop: $slowest; loops that took over 10 s: $slow"
}

# ---------------------------------------------------------------------------- kill -9

kill_trial() {
	local i=$1 d=$tmp/kill/$i phases=(start agent bookkeeping) mark=$session-kill-$i
	local phase=${phases[$(((i - 1) % 3))]} token=$RANDOM$RANDOM
	new_repo "$d/repo" >/dev/null || return 1
	# What the user has before the loop: an uncommitted edit, an untracked file, an ignored one.
	echo "user's edit $token" >>tracked.txt
	echo "user's notes $token" >notes.txt
	echo "user's secret $token" >secret.log
	local notes secret
	notes=$(sha256sum <notes.txt) secret=$(sha256sum <secret.log)
	mkfifo "$d/fifo" && exec {fd}<>"$d/fifo"
	: >"$d/starts"
	: >"$d/ends"
	local args=(loop --max 3 --idle-threshold 0 --agent-cmd "$agents/kill-agent.sh")
	ralph "$d/repo" "$mark" AUDIT_FIFO="$d/fifo" AUDIT_DIR="$d" -- "${args[@]}" --fresh
	local pid=$! k=$((1 + RANDOM % 3)) line
	local wd
	wd=$(watchdog $pid 60)
	case $phase in
	start) sleep "$(secs 0 150)" ;;
	agent | bookkeeping)
		local want="start $k"
		[ "$phase" = bookkeeping ] && want="end $k"
		while read -r -t 30 -u "$fd" line && [ "$line" != "$want" ]; do :; done
		if [ "$phase" = agent ]; then sleep "$(secs 0 250)"; else sleep "$(secs 0 80)"; fi
		;;
	esac
	local missed=0
	kill -9 $pid 2>/dev/null || missed=1 # it had already exited
	wait $pid
	local rc=$?
	kill $wd 2>/dev/null
	# agents still running with nobody watching them, once the grace period (5 s) that
	# the watchdog gives them is over
	local alive=0 waited
	for waited in $(seq 1 14); do
		alive=$(marked "$mark" | wc -l)
		[ "$alive" -eq 0 ] && break
		sleep 0.5
	done
	local before
	before=$(trialcheck journal "$d/repo" "$d/repo/.git")
	local status_rc=0 status_agent=0
	git ralph status >"$d/status.out" 2>&1 || status_rc=$?
	[ "$alive" -gt 0 ] && grep -qi 'agent' "$d/status.out" && status_agent=1
	# Resume: the same command without --fresh, until the run ends (max 3: exit 2).
	ralph "$d/repo" "$mark" AUDIT_FIFO="$d/fifo" AUDIT_DIR="$d" -- "${args[@]}"
	pid=$!
	wd=$(watchdog $pid 60)
	wait $pid
	local resume_rc=$?
	kill $wd 2>/dev/null
	local left
	left=$(marked "$mark")
	kill_marked "$mark"
	local after
	after=$(trialcheck journal "$d/repo" "$d/repo/.git")
	# Lost files: the user's three, every line the agent wrote to its ignored log, every
	# file of an agent run that finished.
	local lost=0 run n
	[ "$(sha256sum <notes.txt 2>/dev/null)" = "$notes" ] || lost=$((lost + 1))
	[ "$(sha256sum <secret.log 2>/dev/null)" = "$secret" ] || lost=$((lost + 1))
	grep -qxF "user's edit $token" tracked.txt 2>/dev/null || lost=$((lost + 1))
	if [ -s "$d/starts" ]; then
		[ -f agent.log ] && ! grep -qvxFf agent.log "$d/starts" || lost=$((lost + 1))
	fi
	while read -r run n; do
		[ "$(cat "work/$run-$n.txt" 2>/dev/null)" = "$run $n" ] || lost=$((lost + 1))
	done <"$d/ends"
	local state_run
	state_run=$(field state_run "$before")
	echo "phase=$phase kill_rc=$rc missed=$missed alive_after_kill=$alive unsupervised=$((alive > 0)) status_rc=$status_rc status_says_agent=$status_agent" \
		"crashed_before_resume=$(count unrecorded "$before")" \
		"resume_rc=$resume_rc resumed_run=$([ -n "$state_run" ] && [ "$state_run" = "$(field state_run "$after")" ] && echo 1 || echo 0)" \
		"state=$(field state "$after") corrupt_states=$(field corrupt_states "$after") records=$(field records "$after")" \
		"bad_records=$(count bad_records "$after")" \
		"unrecorded=$(count unrecorded "$after")" \
		"missing_dirs=$(count missing_dirs "$after")" \
		"duplicates=$(count duplicates "$after")" \
		"run_gaps=$(count run_gaps "$after")" \
		"run_iterations=$(field state_run_iterations "$after")" \
		"scratch=$(($(field scratch_indexes "$after") + $(field scratch_temps "$after")))" \
		"scratch_indexes=$(field scratch_indexes "$after") scratch_temps=$(field scratch_temps "$after") lost=$lost leftovers=$(echo $left | wc -w) left=$(describe $left | sed 's/ $//; s/ /,/g')"
}

kill9() {
	echo "kill -9: $TRIALS trials, $JOBS at a time..." >&2
	run_trials kill "$TRIALS" "$JOBS" kill_trial
	local files f line
	files=($(printf '%s\n' "$tmp"/res/kill/[0-9]* | grep -v '\.err$'))
	for f in "${files[@]}"; do
		line=$(cat "$f")
		if [ -z "$line" ]; then
			fail kill "trial $(basename "$f"): no result ($(head -c 300 "$f.err"))"
			continue
		fi
		local why=""
		case $(field state "$line") in
		ok) ;;
		missing) why="$why no .ralph/state.toml after the resume (bench/trialcheck reads .ralph/: has the layout moved?);" ;;
		*) why="$why torn state;" ;;
		esac
		[ "$(field corrupt_states "$line")" = 0 ] || why="$why a state kept aside as corrupt;"
		for k in bad_records duplicates run_gaps lost leftovers scratch; do
			[ "$(field $k "$line")" = 0 ] || why="$why $k;"
		done
		# One kill can cost at most the one number it interrupted.
		[ $(($(field unrecorded "$line") + $(field missing_dirs "$line"))) -le 1 ] || why="$why more than one number without a record;"
		[ "$(field run_iterations "$line")" = 3 ] || why="$why the last run has $(field run_iterations "$line") of its 3 iterations recorded;"
		[ "$(field resume_rc "$line")" = 2 ] || why="$why resume exited $(field resume_rc "$line");"
		[ "$(field status_rc "$line")" = 0 ] || why="$why status exited $(field status_rc "$line");"
		[ -z "$why" ] || fail kill "trial $(basename "$f"):$why $line"
	done
	local per="" p n
	for p in start agent bookkeeping; do
		n=$(grep -l "phase=$p " "${files[@]}" | wc -l)
		per="$per${per:+, }$p $n"
	done
	local torn
	torn=$(grep -l "state=torn " "${files[@]}" | wc -l)
	echo "kill -9: ${#files[@]} trials ($per; $(sum missed "${files[@]}") ended before the kill):" \
		"torn states $torn, states kept aside $(sum corrupt_states "${files[@]}"), bad records $(sum bad_records "${files[@]}")," \
		"duplicate run iterations $(sum duplicates "${files[@]}"), run gaps $(sum run_gaps "${files[@]}")," \
		"runs not completed by the resume $(grep -L "run_iterations=3 " "${files[@]}" | wc -l), lost files $(sum lost "${files[@]}")," \
		"leftover processes after resume $(sum leftovers "${files[@]}"), failed resumes $(grep -L "resume_rc=2 " "${files[@]}" | wc -l)," \
		"failed status $(grep -L "status_rc=0 " "${files[@]}" | wc -l)," \
		"scratch leftovers $(sum scratch "${files[@]}") ($(sum scratch_indexes "${files[@]}") ralph-index-*, $(sum scratch_temps "${files[@]}") .tmp);" \
		"crashed iterations (numbered, no record) $(sum unrecorded "${files[@]}") (no directory: $(sum missing_dirs "${files[@]}"))," \
		"runs resumed $(sum resumed_run "${files[@]}"); trials with agent processes still running 7 s after the kill" \
		"$(sum unsupervised "${files[@]}") ($(sum alive_after_kill "${files[@]}") processes), 'status' mentioning an agent in $(sum status_says_agent "${files[@]}") of them"
}

# ---------------------------------------------------------------------------- orphans

# gone_within MARK SECONDS: wait until no process marked MARK is left, up to SECONDS;
# prints the milliseconds it took, or nothing if they are still there.
gone_within() {
	local start
	start=$(now_ms)
	while [ -n "$(marked "$1")" ]; do
		[ $(($(now_ms) - start)) -lt $(($2 * 1000)) ] || return 0
		sleep 0.2
	done
	echo $(($(now_ms) - start))
}

orphan_trial() {
	local i=$1 d=$tmp/orphans/$i mark=$session-orphans-$i
	new_repo "$d/repo" >/dev/null || return 1
	mkfifo "$d/fifo" && exec {fd}<>"$d/fifo"
	ralph "$d/repo" "$mark" AUDIT_FIFO="$d/fifo" -- \
		loop --fresh --max 1 --timeout 2s --agent-cmd "$agents/orphan-agent.sh"
	local pid=$! line wd started
	wd=$(watchdog $pid 60)
	read -r -t 30 -u "$fd" line
	started=$(now_ms)
	sleep "$(secs 100 500)"
	kill -9 $pid 2>/dev/null
	wait $pid
	kill $wd 2>/dev/null
	# The agent may live on until its timeout (2 s) and the grace (5 s) are over, plus 1 s.
	local left=$((8 - ($(now_ms) - started) / 1000)) gone status_shows=0 cancel_rc=- after_cancel=
	gone=$(gone_within "$mark" $left)
	if [ -z "$gone" ]; then
		git ralph status >"$d/status.out" 2>&1
		grep -qi agent "$d/status.out" && status_shows=1
		cancel_rc=0
		git ralph cancel --now >"$d/cancel.out" 2>&1 || cancel_rc=$?
		after_cancel=$(gone_within "$mark" 7)
	fi
	kill_marked "$mark"
	echo "gone_by_itself=$([ -n "$gone" ] && echo 1 || echo 0) status_shows=$status_shows" \
		"cancel_rc=$cancel_rc stopped_by_cancel=$([ -n "$after_cancel" ] && echo 1 || echo 0)"
}

orphans() {
	local jobs=$((ORPHAN_TRIALS > 10 ? 10 : ORPHAN_TRIALS))
	echo "orphans: $ORPHAN_TRIALS trials, $jobs at a time..." >&2
	run_trials orphans "$ORPHAN_TRIALS" "$jobs" orphan_trial
	local files f line
	files=($(printf '%s\n' "$tmp"/res/orphans/[0-9]* | grep -v '\.err$'))
	for f in "${files[@]}"; do
		line=$(cat "$f")
		if [ -z "$line" ]; then
			fail orphans "trial $(basename "$f"): no result ($(head -c 300 "$f.err"))"
			continue
		fi
		[ "$(field gone_by_itself "$line")" = 1 ] && continue
		[ "$(field status_shows "$line")" = 1 ] && [ "$(field stopped_by_cancel "$line")" = 1 ] && continue
		fail orphans "trial $(basename "$f"): the agent outlived its killed loop by more than timeout + grace, and status did not show it or cancel --now did not stop it: $line"
	done
	echo "orphans: ${#files[@]} trials (loop killed with -9 while a 30 s agent runs under --timeout 2s):" \
		"agent gone within timeout + grace $(sum gone_by_itself "${files[@]}"); of the others, shown by status" \
		"$(sum status_shows "${files[@]}"), stopped by 'cancel --now' $(sum stopped_by_cancel "${files[@]}")" \
		"('cancel --now' failed in $(grep -l 'cancel_rc=[1-9]' "${files[@]}" | wc -l))"
}

# ---------------------------------------------------------------------------- gc

gc_trial() {
	local i=$1 d=$tmp/gc/$i mark=$session-gc-$i inside=0
	[ $((i % 2)) -eq 0 ] && inside=1
	new_repo "$d/repo" >/dev/null || return 1
	echo "user's edit" >>tracked.txt # a dirty tree: the first checkpoint is a snapshot
	echo "user's notes" >notes.txt
	ralph "$d/repo" "$mark" AUDIT_GC_INSIDE=$inside -- \
		loop --fresh --max 4 --idle-threshold 0 --agent-cmd "$agents/gc-agent.sh"
	local pid=$! gcs=0 wd
	wd=$(watchdog $pid 120)
	if [ $inside = 0 ]; then
		while kill -0 $pid 2>/dev/null; do
			git gc --prune=now --quiet >>"$d/gc.out" 2>&1
			gcs=$((gcs + 1))
		done
	fi
	wait $pid
	local rc=$?
	kill $wd 2>/dev/null
	kill_marked "$mark"
	local j fatal=0 missing=0 diffs=0
	j=$(trialcheck journal "$d/repo" "$d/repo/.git")
	grep -qE 'fatal|bad object|error:' "$d/repo.out" && fatal=1
	# refs/worktree/: where per-worktree checkpoint refs may live.
	missing=$(git for-each-ref --format='%(objectname)' refs/ralph/ refs/worktree/ | git cat-file --batch-check 2>&1 | grep -c missing)
	git ralph history --diff "1..$(field last "$j")" >"$d/diff.out" 2>&1 || diffs=1
	echo "inside=$inside gcs=$gcs rc=$rc error_printed=$fatal records=$(field records "$j")" \
		"unrecorded=$(count unrecorded "$j") state=$(field state "$j")" \
		"missing_objects=$missing failed_range_diff=$diffs"
}

gc() {
	echo "gc: $GC_TRIALS trials, one at a time..." >&2
	run_trials gc "$GC_TRIALS" 1 gc_trial
	local files f line aborted_in=0 aborted_out=0 n_in=0 n_out=0
	files=($(printf '%s\n' "$tmp"/res/gc/[0-9]* | grep -v '\.err$'))
	for f in "${files[@]}"; do
		line=$(cat "$f")
		if [ -z "$line" ]; then
			fail gc "trial $(basename "$f"): no result ($(head -c 300 "$f.err"))"
			continue
		fi
		local in
		in=$(field inside "$line")
		if [ "$in" = 1 ]; then n_in=$((n_in + 1)); else n_out=$((n_out + 1)); fi
		local why=""
		if [ "$(field rc "$line")" != 2 ] || [ "$(field error_printed "$line")" = 1 ]; then
			why="$why aborted (exit $(field rc "$line"): $(grep -m1 -E 'fatal|bad object|error:' "$tmp/gc/$(basename "$f")/repo.out"));"
			if [ "$in" = 1 ]; then aborted_in=$((aborted_in + 1)); else aborted_out=$((aborted_out + 1)); fi
		fi
		local rec
		rec=$(field records "$line")
		[ "$rec" -ge 4 ] || why="$why $rec of 4 iterations recorded;"
		[ "$(field unrecorded "$line")" = 0 ] || why="$why $(field unrecorded "$line") iterations ran without a record;"
		[ "$(field missing_objects "$line")" = 0 ] || why="$why refs to missing objects;"
		[ "$(field failed_range_diff "$line")" = 0 ] || why="$why history --diff 1..N failed;"
		[ -z "$why" ] || fail gc "trial $(basename "$f"):$why $line"
	done
	echo "gc: ${#files[@]} trials ($(sum gcs "${files[@]}") gc runs beside $n_out loops, gc inside the agent of $n_in):" \
		"aborted loops $((aborted_in + aborted_out)) (beside $aborted_out/$n_out, inside $aborted_in/$n_in)," \
		"lost records (iterations numbered, never recorded) $(sum unrecorded "${files[@]}")," \
		"refs to missing objects $(sum missing_objects "${files[@]}"), failed 'history --diff 1..N' $(sum failed_range_diff "${files[@]}")"
}

# ---------------------------------------------------------------------------- worktrees

# wt_side SIDE DIR OTHER: what `git ralph history` shows in the work tree DIR, whose agent
# names its files SIDE-N.txt: how many records of its own run (the one its state names) and
# of others it lists, and how many of its own and of OTHER's files `--diff A..B` shows for
# its first two iterations A and B; and B with the commit before B, for rollback.
wt_side() {
	local side=$1 dir=$2 other=$3
	cd "$dir" || return 1
	local run hist own foreign first second diff_foreign=0 diff_own=0
	run=$(field state_run "$(trialcheck journal "$dir" "$(git rev-parse --absolute-git-dir)")")
	if ! hist=$(git ralph history --limit 0 --json 2>"$dir/../$side.history.err" | trialcheck histjson); then
		echo "${side}_history_failed=1"
		return
	fi
	own=$(grep -c " $run " <<<"$hist")
	foreign=$(grep -vc " $run " <<<"$hist")
	first=$(grep " $run " <<<"$hist" | sed -n 1p)
	second=$(grep " $run " <<<"$hist" | sed -n 2p)
	if [ -z "$second" ]; then
		echo "${side}_own=$own ${side}_foreign=$foreign"
		return
	fi
	if git ralph history --diff "${first%% *}..${second%% *}" >"$dir/../$side.diff" 2>&1; then
		diff_foreign=$(grep -c "^diff --git a/$other-" "$dir/../$side.diff")
		diff_own=$(grep -c "^diff --git a/$side-" "$dir/../$side.diff")
	else
		diff_foreign=-1
	fi
	echo "${side}_own=$own ${side}_foreign=$foreign ${side}_diff_own=$diff_own ${side}_diff_foreign=$diff_foreign" \
		"${side}_second=${second%% *} ${side}_target=${second##* }"
}

worktree_trial() {
	local i=$1 d=$tmp/worktrees/$i mark=$session-worktrees-$i
	new_repo "$d/repo" >/dev/null || return 1
	git worktree add -q -b other "$d/wt" 2>/dev/null || return 1
	# The branches differ before the loops, so that a checkpoint taken from the wrong work
	# tree shows.
	(cd "$d/wt" && echo other >other-base.txt && git add other-base.txt && git commit -qm "other's base") || return 1
	local args=(loop --fresh --max 3 --idle-threshold 0 --agent-cmd "$agents/worktree-agent.sh")
	ralph "$d/repo" "$mark" AUDIT_PREFIX=main -- "${args[@]}"
	local main_pid=$!
	ralph "$d/wt" "$mark" AUDIT_PREFIX=other -- "${args[@]}"
	local other_pid=$! wd1 wd2
	wd1=$(watchdog $main_pid 60)
	wd2=$(watchdog $other_pid 60)
	wait $main_pid
	local main_rc=$?
	wait $other_pid
	local other_rc=$?
	kill $wd1 $wd2 2>/dev/null
	kill_marked "$mark"
	local m o
	m=$(wt_side main "$d/repo" other)
	o=$(wt_side other "$d/wt" main)
	# Rollback in the main work tree to before its own second iteration (the commit its agent
	# made in the first), then in the linked worktree: each must move its own branch to its
	# own checkpoint and leave the other alone.
	local other_was main_was rb_main=0 rb_other=0 main_wrong=0 other_wrong=0 main_touched=0 other_touched=0
	cd "$d/repo" || return 1
	other_was=$(git rev-parse other)
	git ralph rollback "$(field main_second "$m")" --force >"$d/main.rollback" 2>&1 || rb_main=1
	[ "$(git rev-parse main)" = "$(field main_target "$m")" ] || main_wrong=1
	[ "$(git rev-parse other)" = "$other_was" ] || other_touched=1
	main_was=$(git rev-parse main)
	cd "$d/wt" || return 1
	git ralph rollback "$(field other_second "$o")" --force >"$d/other.rollback" 2>&1 || rb_other=1
	[ "$(git rev-parse other)" = "$(field other_target "$o")" ] || other_wrong=1
	[ "$(git rev-parse main)" = "$main_was" ] || main_touched=1
	echo "main_rc=$main_rc other_rc=$other_rc $m $o rollback_failed=$((rb_main + rb_other))" \
		"rollback_wrong=$((main_wrong + other_wrong)) rollback_touched_other=$((main_touched + other_touched))"
}

worktrees() {
	local jobs=$((JOBS > 2 ? 2 : JOBS))
	echo "worktrees: $WT_TRIALS trials, $jobs at a time..." >&2
	run_trials worktrees "$WT_TRIALS" "$jobs" worktree_trial
	local files f line foreign=0 dforeign=0 dfail=0 hfail=0 loops=0
	files=($(printf '%s\n' "$tmp"/res/worktrees/[0-9]* | grep -v '\.err$'))
	for f in "${files[@]}"; do
		line=$(cat "$f")
		if [ -z "$line" ]; then
			fail worktrees "trial $(basename "$f"): no result ($(head -c 300 "$f.err"))"
			continue
		fi
		local why="" s
		for s in main other; do
			[ "$(field ${s}_rc "$line")" = 2 ] || { why="$why $s loop exited $(field ${s}_rc "$line");" && loops=$((loops + 1)); }
			if [ "$(field ${s}_history_failed "$line")" = 1 ]; then
				why="$why $s: history failed;" && hfail=$((hfail + 1))
				continue
			fi
			[ "$(field ${s}_own "$line")" = 3 ] || why="$why $s: $(field ${s}_own "$line") own records, 3 expected;"
			[ "$(field ${s}_foreign "$line")" = 0 ] || { why="$why $s: history lists the other's iterations;" && foreign=$((foreign + 1)); }
			case $(field ${s}_diff_foreign "$line") in
			0) [ "$(field ${s}_diff_own "$line")" -gt 0 ] || why="$why $s: --diff A..B lacks its own files;" ;;
			-1) why="$why $s: --diff A..B failed;" && dfail=$((dfail + 1)) ;;
			"") why="$why $s: fewer than two iterations of its own;" ;;
			*) why="$why $s: --diff A..B shows the other's files;" && dforeign=$((dforeign + 1)) ;;
			esac
		done
		[ "$(field rollback_failed "$line")" = 0 ] || why="$why rollback failed;"
		[ "$(field rollback_wrong "$line")" = 0 ] || why="$why rollback moved a branch to the wrong commit;"
		[ "$(field rollback_touched_other "$line")" = 0 ] || why="$why rollback moved the other worktree's branch;"
		[ -z "$why" ] || fail worktrees "trial $(basename "$f"):$why $line"
	done
	echo "worktrees: ${#files[@]} trials (2 loops at once each): loops not ending with exit 2 $loops," \
		"history listing the other's iterations $foreign, failed history $hfail," \
		"--diff A..B showing the other's files $dforeign (failed $dfail)," \
		"rollback to the wrong commit $(sum rollback_wrong "${files[@]}"), rollback moving the other's branch $(sum rollback_touched_other "${files[@]}")," \
		"failed rollback $(sum rollback_failed "${files[@]}")"
}

echo "git-ralph: $rev; $(go version | cut -d' ' -f3); git $(git --version | cut -d' ' -f3); cores: $(nproc); seed: $SEED" >&2
started=$(now_ms)
for s in $sections; do
	t=$(now_ms)
	case $s in
	hygiene) hygiene ;;
	kill) kill9 ;;
	orphans) orphans ;;
	gc) gc ;;
	worktrees) worktrees ;;
	esac
	echo "  ($s took $((($(now_ms) - t) / 1000)) s)" >&2
done
echo "total: $((($(now_ms) - started) / 1000)) s" >&2
exit $failed
