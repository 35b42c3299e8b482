#!/usr/bin/env bash
# The agent of bench/trials.sh's gc trials: it leaves new uncommitted work every
# iteration (new blobs for git-ralph's checkpoint to write) and, with AUDIT_GC_INSIDE=1,
# runs `git gc --prune=now` itself in iterations 1 and 3.
echo "iteration $RALPH_ITERATION" >>tracked.txt
mkdir -p work
head -c 3000 /dev/urandom | od -An -tx1 >"work/$RALPH_ITERATION.txt"
sleep "0.$((100 + RANDOM % 200))"
if [ "${AUDIT_GC_INSIDE:-0}" = 1 ] && [ $((RALPH_ITERATION % 2)) -eq 1 ]; then
	git gc --prune=now --quiet
fi
sleep "0.$((100 + RANDOM % 200))"
