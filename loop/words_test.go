package loop

import (
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/history/redact"
)

// TestCutTextsKeepNoPieceOfAKey: the agent's error text is cut to fit a reason (300
// bytes) and the state's last_error (2000). A cut inside a key left a piece too short to
// be recognised (sk-ant-api03- and 17 characters of the key), which the redaction of
// state.toml and record.toml then let through.
func TestCutTextsKeepNoPieceOfAKey(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Zq7Xw2Pk9", 11)
	secret := key[len("sk-ant-api03-"):][:8]
	for _, max := range []int{300, maxErrorText} {
		for shift := 0; shift < 40; shift += 3 {
			text := strings.Repeat("y", max-25+shift) + " " + key + " and more"
			cuts := map[string]string{"oneLine": oneLine(text, max)}
			if max == maxErrorText {
				cuts["bounded"] = bounded(text)
			}
			for name, got := range cuts {
				if saved := redact.String(got); strings.Contains(saved, secret) {
					t.Errorf("%s(max %d, shift %d) keeps a piece of the key: …%s", name, max, shift, saved[len(saved)-60:])
				}
			}
		}
	}
}

// TestValidationTailKeepsNoPieceOfAKey: the end of the validate command's output goes
// into state.toml's feedback; a last line longer than the tail's bytes was cut inside it,
// which could leave the end of a key without its prefix, unrecognisable.
func TestValidationTailKeepsNoPieceOfAKey(t *testing.T) {
	key := "ghp_" + strings.Repeat("Zq7Xw2Pk9", 4)
	secret := key[len(key)-12:]
	for shift := 0; shift < 40; shift += 3 {
		line := "token " + key + strings.Repeat(" x", (feedbackBytes-len(key)+shift)/2)
		if saved := redact.String(tailLines(line, feedbackLines, feedbackBytes)); strings.Contains(saved, secret) {
			t.Errorf("shift %d keeps a piece of the key: %s…", shift, saved[:60])
		}
	}
}
