package gitops

import (
	"context"
	"fmt"
	"testing"
)

// CountMade answers as CountAhead: along one line of commits, across a merge, after a reset
// to an older commit, and with nothing made.
func TestCountMadeAsCountAhead(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	base := run(t, dir, "rev-parse", "HEAD")
	for i := range 3 {
		run(t, dir, "commit", "-q", "--allow-empty", "-m", fmt.Sprint("line ", i))
	}
	line := run(t, dir, "rev-parse", "HEAD")
	run(t, dir, "checkout", "-q", "-b", "side", base)
	run(t, dir, "commit", "-q", "--allow-empty", "-m", "side")
	run(t, dir, "merge", "-q", "--no-ff", "-m", "merge", line)
	merged := run(t, dir, "rev-parse", "HEAD")
	for _, c := range []struct{ base, tip string }{{base, line}, {base, merged}, {line, base}, {base, base}, {line, merged}} {
		want, err := CountAhead(ctx, dir, c.base, c.tip)
		if err != nil {
			t.Fatal(err)
		}
		if got, err := CountMade(ctx, dir, c.base, c.tip); err != nil || got != want {
			t.Errorf("CountMade(%.7s, %.7s) = %d, %v; CountAhead says %d", c.base, c.tip, got, err, want)
		}
	}
	if n, ok := countLinear(dir, base, line); !ok || n != 3 {
		t.Errorf("three commits in a line were not counted in process: %d, %v", n, ok)
	}
}
