package loop

import (
	"strings"
	"testing"
)

// The limits an API agent's loops share are keyed by a fingerprint of the key: the same
// key, the same account; another key, another; the key itself never.
func TestAPIAccountIsAFingerprint(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
	a := (&APIAgent{Key: key, BaseURL: "https://one.example"}).Account()
	b := (&APIAgent{Key: key, BaseURL: "https://two.example"}).Account()
	c := (&APIAgent{Key: key + "x"}).Account()
	if a != b || a == c || !strings.HasPrefix(a, "key ") || len(a) != len("key ")+12 {
		t.Errorf("accounts %q %q %q", a, b, c)
	}
	for _, part := range []string{key, key[:12], key[len(key)-12:]} {
		if strings.Contains(a, part) {
			t.Errorf("the account %q shows the key", a)
		}
	}
	if got := (&APIAgent{BaseURL: "http://127.0.0.1:11434/v1"}).Account(); got != "no key, http://127.0.0.1:11434/v1" {
		t.Errorf("no key: account %q", got)
	}
}
