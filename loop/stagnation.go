package loop

import (
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/idle"
)

// Bounds of the agent's final message as the stagnation check compares it: its end, where
// an agent sums up, as much as a validation failure's feedback.
const (
	finalLines = feedbackLines
	finalBytes = feedbackBytes
)

// finalKept bounds what finalWords reads of the agent's last words before cutting them to
// lines: a plain-text agent's are its whole output (up to max_output_buffer), and tailLines
// redacts all it is given when that is longer than its bound.
const finalKept = 4 * finalBytes

// finalWords is what the stagnation check compares of the agent's last words: their end,
// without an echo of the prompt (which is the same every iteration).
func finalWords(final, prompt string) string {
	// an echo that reaches into the last finalKept bytes lies wholly in this window
	window := final[max(0, len(final)-finalKept-len(prompt)):]
	words := withoutEcho(window, prompt)
	return tailLines(words[max(0, len(words)-finalKept):], finalLines, finalBytes)
}

// failure is what a failed validation said, for the stagnation check: its result and the
// end of its output, as the next prompt shows them; "" when it passed or did not run.
func (v Validation) failure() string {
	if !v.Ran || v.Passed {
		return ""
	}
	return v.Summary() + "\n" + v.Tail
}

// nudge is the part of the next prompt that tells a fresh-context agent it is repeating
// what the iterations before it did.
func nudge(rep idle.Repetition) string {
	return "You are repeating the same attempt: " + rep.Repeated() + ". " +
		"Each iteration starts afresh and cannot see what the ones before it tried, so the same approach is easy to try again. " +
		"Step back and try another approach: re-read what fails and the code around it, question the assumption the last attempts shared, " +
		"and take a different route (or write down in the plan what blocks you) instead of making the same change again."
}

// similarityRecord is the record's form of the check's figures; nil when nothing was
// compared (the first iteration, the check off, an iteration that ended uncounted or failed).
func similarityRecord(rep idle.Repetition) *history.Similarity {
	if !rep.Measured {
		return nil
	}
	s := &history.Similarity{Oscillation: rep.Oscillation, Repeats: rep.Repeats, Coarse: rep.Coarse}
	s.Message, s.Validation = percent(rep.Message), percent(rep.Failure)
	return s
}

// percent is p for the record, nil when it was not measured.
func percent(p int) *int {
	if p == idle.Unmeasured {
		return nil
	}
	return &p
}
