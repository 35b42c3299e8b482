#!/usr/bin/env bash
# The agent of bench/trials.sh's kill -9 trials: it edits a tracked file, adds a file,
# appends to an ignored log, works for 0.1-0.3 s and commits its work every other
# iteration, telling the script on $AUDIT_FIFO when it starts and when it is done, and
# noting both in $AUDIT_DIR (outside the repository) for the checks.
echo "start $RALPH_ITERATION" >"$AUDIT_FIFO"
echo "$RALPH_RUN $RALPH_ITERATION" >>agent.log # ignored (*.log)
echo "$RALPH_RUN $RALPH_ITERATION" >>"$AUDIT_DIR/starts"
echo "iteration $RALPH_ITERATION of $RALPH_RUN" >>tracked.txt
mkdir -p work
echo "$RALPH_RUN $RALPH_ITERATION" >"work/$RALPH_RUN-$RALPH_ITERATION.txt"
sleep "0.$((100 + RANDOM % 200))"
if [ $((RALPH_ITERATION % 2)) -eq 0 ]; then
	git add tracked.txt work && git commit -qm "agent: iteration $RALPH_ITERATION of $RALPH_RUN" || true
fi
echo "$RALPH_RUN $RALPH_ITERATION" >>"$AUDIT_DIR/ends"
echo "end $RALPH_ITERATION" >"$AUDIT_FIFO"
