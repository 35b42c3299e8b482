#!/usr/bin/env bash
# The agent of bench/trials.sh's worktree trials: it adds and commits one file named
# after its work tree ($AUDIT_PREFIX: main or other) and the iteration.
f="$AUDIT_PREFIX-$RALPH_ITERATION.txt"
echo "$AUDIT_PREFIX $RALPH_RUN $RALPH_ITERATION" >"$f"
sleep "0.$((200 + RANDOM % 200))"
git add "$f" && git commit -qm "$AUDIT_PREFIX: iteration $RALPH_ITERATION"
