package reporting

import (
	"os"
	"testing"
)

// NO_COLOR turns colour off when it is set and not empty (https://no-color.org): an
// empty NO_COLOR is as if it were unset.
func TestNoColorFollowsNoColorOrg(t *testing.T) {
	t.Setenv("NO_COLOR", "")
	if NoColor() {
		t.Error("NO_COLOR= (empty) turns colour off")
	}
	t.Setenv("NO_COLOR", "1")
	if !NoColor() {
		t.Error("NO_COLOR=1 leaves colour on")
	}
	os.Unsetenv("NO_COLOR") // t.Setenv restores it after the test
	if NoColor() {
		t.Error("no NO_COLOR turns colour off")
	}
}
