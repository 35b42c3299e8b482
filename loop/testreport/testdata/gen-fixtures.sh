#!/bin/sh
# Writes the JUnit XML and TAP fixtures the tests read, as real tools print them:
# Node's test runner (node --test, its junit and tap reporters; Node 20) and Perl's
# Test::More (run with perl). The go test -json fixture is not here: the
# tests run `go test -json` on testdata/gomod themselves.
set -u
cd "$(dirname "$0")"
node --test --test-reporter=junit node/sample.test.mjs > node.junit.xml
node --test --test-reporter=tap node/sample.test.mjs > node.tap
perl perl/sample.t > perl.tap 2>/dev/null
# a run that bailed out after its second test: the plan's first lines, then the bail out
head -3 perl.tap > perl-bailout.tap
printf 'Bail out! the database is down\n' >> perl-bailout.tap
exit 0
