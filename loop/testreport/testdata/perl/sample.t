# A real Test::More script whose TAP the parser's tests read (see gen-fixtures.sh).
use strict;
use warnings;
use Test::More tests => 5;

ok(1, 'parses a number');
is(2 - 1, 0, 'subtracts');
SKIP: {
    skip 'no network here', 1;
    ok(1, 'fetches');
}
TODO: {
    local $TODO = 'not written yet';
    ok(0, 'reverses');
}
ok(1);
