#!/bin/sh
# Test for bin/number; run from the repository root.
expected=$(printf '1: alpha\n2: \n3: gamma delta')
actual=$(printf 'alpha\n\ngamma delta\n' | sh bin/number)
if [ "$actual" != "$expected" ]; then
	printf 'number: got\n%s\nwant\n%s\n' "$actual" "$expected"
	exit 1
fi
printf 'number: ok\n'
