#!/bin/sh
# Keeping up with the agent CLIs: runs the realagents scenarios twice, with the versions
# pinned in realagents/versions.txt and with the newest ones npm has, recording what each
# CLI printed, and prints per CLI the two versions, which scenarios pass in each run and
# what changed in what the CLI printed (event types and messages, without ids, times,
# numbers and paths).
#
#   scripts/agents-latest.sh [--update] [CLI...]
#
# CLI names a test CLI (claude, claude-subscriber, codex, …); none: all of them.
# --update also makes the newest the pinned, for each CLI whose newest version differs:
# its newest recordings replace loop/agentcli/testdata/recorded/CLI/ and its newest
# version goes into realagents/versions.txt. Then `git diff` shows what changed and
# `go test ./loop/agentcli` which fixtures the readers no longer read as expected.
#
# Exit status: 0 when the newest versions behave as the pinned ones, 1 when anything
# differs (a version, a scenario's result, what a CLI printed), 2 on an error.
# RALPH_AGENTS_KEEP=1 keeps the runs' logs and recordings (their directory is printed).
set -eu
cd "$(dirname "$0")/.."

usage() {
	sed -n '2,/^set -eu/p' "$0" | sed '$d; s/^# \{0,1\}//'
}

update=
while [ $# -gt 0 ]; do
	case $1 in
	--update) update=-update; shift ;;
	-h | --help) usage; exit 0 ;;
	--) shift; break ;;
	-*) echo "error: unknown option $1" >&2; echo "hint: scripts/agents-latest.sh --help" >&2; exit 2 ;;
	*) break ;;
	esac
done

# the CLI names, checked before the long runs: an option after them, a typo or a
# regular expression would otherwise go into go test's -run pattern
for name in "$@"; do
	case $name in
	'' | -* | *[!A-Za-z0-9-]*)
		echo "error: '$name' is not a CLI name (options come before the names)" >&2
		echo "hint: scripts/agents-latest.sh --help" >&2
		exit 2 ;;
	esac
	if ! awk -v n="$name" '!/^#/ && NF == 3 && (n == $1 || index(n, $1 "-") == 1) { found = 1 }
		END { exit !found }' realagents/versions.txt; then
		echo "error: $name: no line for it in realagents/versions.txt" >&2
		echo "hint: the CLIs: $(awk '!/^#/ && NF == 3 { printf "%s ", $1 }' realagents/versions.txt)(claude-subscriber, copilot-anthropic: other accounts)" >&2
		exit 2
	fi
done

tmp=$(mktemp -d "${TMPDIR:-/tmp}/agents-latest.XXXXXX")
if [ -n "${RALPH_AGENTS_KEEP:-}" ]; then
	echo "keeping the runs in $tmp" >&2
else
	trap 'rm -rf "$tmp"' EXIT
fi
trap 'exit 130' INT TERM

# -run pattern: the named CLIs' scenarios, or all of them
run='TestRealAgents'
if [ $# -gt 0 ]; then
	run="TestRealAgents/^($(echo "$*" | tr ' ' '|'))\$/"
fi

# scenarios: runs the scenarios once, recording into $tmp/$1, its log in $tmp/$1.log.
# A failing scenario is a result to report, not an error of this script.
scenarios() {
	label=$1
	shift
	echo "running the scenarios with the $label versions (go test ./realagents -run '$run')..." >&2
	env "$@" RALPH_REALAGENTS_RECORD="$tmp/$label" \
		go test ./realagents -run "$run" -count=1 -v -timeout 60m >"$tmp/$label.log" 2>&1 || true
	if ! grep -Eq -- '--- (PASS|FAIL|SKIP): TestRealAgents/' "$tmp/$label.log"; then
		echo "error: no scenario ran with the $label versions; the end of its log:" >&2
		tail -n 30 "$tmp/$label.log" >&2
		exit 2
	fi
}

scenarios pinned RALPH_AGENT_VERSIONS=
scenarios latest RALPH_AGENT_VERSIONS=latest

# a build that fails is an error of this script (2), not a difference found (1)
go build -o "$tmp/agentsdiff" ./scripts/agentsdiff || exit 2
"$tmp/agentsdiff" $update -pinned "$tmp/pinned" -latest "$tmp/latest" "$@"
