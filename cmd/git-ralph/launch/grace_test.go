package launch

import (
	"testing"
	"time"
)

// The tests' grace knob takes a positive duration; anything else leaves the default grace.
func TestTestGraceTakesOnlyAPositiveDuration(t *testing.T) {
	for value, want := range map[string]time.Duration{
		"": 0, "500ms": 500 * time.Millisecond, "300s": 300 * time.Second,
		"0s": 0, "-1s": 0, "5": 0, "soon": 0,
	} {
		t.Setenv(TestGraceEnv, value)
		if got := testGrace(); got != want {
			t.Errorf("%s=%q: grace %v, want %v", TestGraceEnv, value, got, want)
		}
	}
}
