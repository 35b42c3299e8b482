package redact

import "testing"

// The rules' regexps are compiled when first used: a pattern that does not compile must
// fail here, not in a user's loop at the first output holding its keyword.
func TestEveryPatternCompiles(t *testing.T) {
	for _, r := range rules {
		if r.re() == nil {
			t.Errorf("rule %s has no regexp", r.name)
		}
	}
	if beginKey() == nil || endKey() == nil {
		t.Error("the private key patterns do not compile")
	}
}
