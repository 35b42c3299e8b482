#!/usr/bin/env bash
# The agent of bench/trials.sh's hygiene trials: it starts children and grandchildren of
# every kind a process group and session can hold, tells the script they all exist (a
# line on $AUDIT_FIFO), then waits in the foreground (or exits, with AUDIT_EXIT=1) until
# git-ralph ends it. Every process inherits AUDIT_MARK, by which the script finds them.
sleep 300 &                                  # a background child, holding the output pipe
bash -c 'sleep 300 & sleep 300' &            # a child with a grandchild
nohup sleep 300 >/dev/null 2>&1 &            # a nohup child (ignores SIGHUP)
sleep 300 | cat &                            # a background pipeline
timeout 300 sleep 300 &                      # a process group of its own, in the session
if [ "${AUDIT_IGNORE_TERM:-0}" = 1 ]; then  # ignores SIGTERM, and so does its grandchild
	bash -c 'trap "" TERM; sleep 300 & sleep 300' &
fi
if [ "${AUDIT_SETSID:-0}" = 1 ]; then       # leaves the session (found by RALPH_RUN only)
	setsid sleep 300 &
fi
if [ "${AUDIT_ESCAPE:-0}" = 1 ]; then       # the instrument's self-check: a child that
	env -u RALPH_RUN setsid sleep 300 &       # no loop can find (own session, no RALPH_RUN)
fi
sleep 0.05 # let the children exec
echo ready >"$AUDIT_FIFO"
if [ "${AUDIT_EXIT:-0}" = 1 ]; then
	exit 0
fi
sleep 300
