#!/usr/bin/env bash
# The agent of bench/trials.sh's orphan trials: it says it runs (a line on $AUDIT_FIFO),
# then works far longer than the loop's --timeout allows.
echo ready >"$AUDIT_FIFO"
sleep 30
