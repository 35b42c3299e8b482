#!/bin/sh
# Test for bin/count; run from the repository root.
expected='5'
actual=$(printf 'one two\n  three\tfour\n\nfive' | sh bin/count)
if [ "$actual" != "$expected" ]; then
	printf 'count: got %s, want %s\n' "$actual" "$expected"
	exit 1
fi
printf 'count: ok\n'
