package launch

import (
	"os"
	"time"
)

// TestGraceEnv names a hidden environment variable that sets the agent's grace period
// (SIGTERM to its group, then SIGKILL) for the test suite, whose stories would otherwise
// sit out the real 5 s. It is not a setting: no flag or config file reaches it, so a
// repository's config cannot shorten or lengthen the grace the user gets.
const TestGraceEnv = "RALPH_TEST_GRACE"

// testGrace is the grace TestGraceEnv asks for, or 0 (the default grace) when it is unset
// or not a positive duration.
func testGrace() time.Duration {
	d, err := time.ParseDuration(os.Getenv(TestGraceEnv))
	if err != nil || d <= 0 {
		return 0
	}
	return d
}
