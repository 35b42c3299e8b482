#!/bin/sh
# Test for bin/reverse; run from the repository root.
expected='third line
second
first'
actual=$(printf 'first\nsecond\nthird line' | sh bin/reverse)
if [ "$actual" != "$expected" ]; then
	printf 'reverse: got\n%s\nwant\n%s\n' "$actual" "$expected"
	exit 1
fi
printf 'reverse: ok\n'
