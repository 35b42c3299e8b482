package loop

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/history/redact"
)

// How the loop puts into words what the agent and git said: reasons, feedback.

// maxReasonError bounds the agent's error text in an iteration's one-line reason (the
// record's error field has more).
const maxReasonError = 300

// oneLine is s on one line, its lines joined with " / ", cut to about max bytes.
func oneLine(s string, max int) string {
	return cutRedacted(strings.Join(strings.Fields(strings.ReplaceAll(strings.TrimSpace(s), "\n", " / ")), " "), max)
}

// cutRedacted is s cut to about max bytes, at a rune boundary, with "…" where it was cut.
func cutRedacted(s string, max int) string {
	if len(s) <= max {
		return s
	}
	// Redacted before the cut: the piece of a key the cut leaves may be too short to be
	// recognised when what holds the text is redacted.
	s = redact.String(s)
	if len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// exitReason names the agent's exit code as its program means it. A preset's program
// is exec'd by the shell, so a code above 128 is its own, not a shell's report of a
// signal: gemini exits 144 for an HTTP 400.
func (c Config) exitReason(code int) string {
	if what, ok := c.Agent.ExitMeaning(code); ok {
		return fmt.Sprintf("exit code %d (%s)", code, what)
	}
	if c.runsPreset() {
		return fmt.Sprintf("exit code %d", code)
	}
	return exitReason(code)
}

// pushFeedback tells the next iteration's agent that its work did not reach the
// remote, with git's own message, so that it can pull or rebase and try again.
// git's message is bounded (a hook may print megabytes): the feedback is saved with the
// state and goes into every prompt until an iteration clears it.
func pushFeedback(i int, target string, err error) string {
	msg := cutRedacted(strings.TrimSpace(err.Error()), feedbackBytes)
	fence := codeFence(msg)
	var found *SecretsFound
	if errors.As(err, &found) {
		return fmt.Sprintf("After iteration %d, git-ralph did not push to %s: the commits add secrets. "+
			"Never commit credentials; take them out of the files and read them from the environment instead. "+
			"The commits that hold them stay unpushed until the user rewrites or allows them:\n\n%s\n%s\n%s",
			i, target, fence, msg, fence)
	}
	return fmt.Sprintf("After iteration %d, `git push` to %s failed, so the commits are only local. "+
		"If the remote has commits you do not have, pull or rebase onto them (resolving any conflict) "+
		"and commit; git-ralph pushes again after the next iteration. git said:\n\n%s\n%s\n%s",
		i, target, fence, msg, fence)
}

// joinFeedback puts two pieces of feedback for the next prompt one after the other.
func joinFeedback(a, b string) string {
	if strings.TrimSpace(a) == "" {
		return b
	}
	return a + "\n\n" + b
}
