package launch

import "testing"

// A pace is a positive, finite multiple: NaN compares false with every bound, and would
// reach the replaying agent as "--speed NaN".
func TestReplaySpeedRefusesWhatIsNoPace(t *testing.T) {
	for _, text := range []string{"NaN", "nan", "-1", "0", "inf", "+Inf", "1001", "fast"} {
		if f, err := replaySpeed(text); err == nil {
			t.Errorf("replaySpeed(%q) = %v, want an error", text, f)
		}
	}
	for text, want := range map[string]float64{"": 0, "full": 0, "recorded": 1, "2": 2, "2x": 2, "0.5": 0.5} {
		if f, err := replaySpeed(text); err != nil || f != want {
			t.Errorf("replaySpeed(%q) = %v, %v; want %v", text, f, err, want)
		}
	}
}
