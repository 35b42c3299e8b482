package loop

import (
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/units"
)

// What the next prompt's "Previous iteration" section carries of the run's failures
// (setting feedback): the last counted iteration's alone, or every one so far (the earlier
// errors too, so that a fresh-context agent does not repeat what already failed).
const (
	FeedbackLast = "last"
	FeedbackAll  = "all"
)

// FeedbackAllBytes bounds the section with feedback = "all": the last iteration's
// feedback goes in whole, as with "last", then the earlier ones, newest first, while the
// section stays within the bound; the oldest are left out, with a line that counts them.
// 32 KiB holds about four failed validations at their own bound (feedbackBytes) and many
// more judges' reasons or nudges, while the prompt stays small next to an agent's context.
const FeedbackAllBytes = 32 << 10

// turnFeedback makes an iteration's feedback (gathered in its classification) the
// state's, as the iteration is saved. With "all" (mode), the feedback it replaces (the
// last counted iteration's, st.Iteration: called before the state takes the new
// iteration's number) goes first into the earlier ones, within FeedbackAllBytes.
func turnFeedback(st *history.State, mode, feedback string) {
	if mode == FeedbackAll && strings.TrimSpace(st.Feedback) != "" {
		st.EarlierFeedback, st.FeedbackLeftOut = keepEarlier(feedbackEntry(st.Iteration, st.Feedback),
			st.EarlierFeedback, st.FeedbackLeftOut, FeedbackAllBytes)
	}
	st.Feedback = feedback
}

// PromptFeedback is the "Previous iteration" section the next prompt gets from the run's
// saved state, with the feedback setting mode.
func PromptFeedback(mode string, st history.State) string {
	if mode != FeedbackAll || strings.TrimSpace(st.EarlierFeedback) == "" {
		return st.Feedback
	}
	return assembleFeedback(st.Iteration, st.Feedback, splitEarlier(st.EarlierFeedback), st.FeedbackLeftOut, FeedbackAllBytes)
}

// feedbackEntry is one iteration's feedback as an earlier entry: under a heading that
// names the iteration, without the entries' separator.
func feedbackEntry(iteration int, text string) string {
	text = strings.ReplaceAll(strings.TrimSpace(text), history.FeedbackSeparator, "")
	return fmt.Sprintf("### Iteration %d\n\n%s", iteration, text)
}

// splitEarlier is the saved earlier entries, newest first.
func splitEarlier(saved string) []string {
	var entries []string
	for _, e := range strings.Split(saved, history.FeedbackSeparator) {
		if strings.TrimSpace(e) != "" {
			entries = append(entries, e)
		}
	}
	return entries
}

// keepEarlier puts entry before the saved earlier entries and keeps, newest first, those
// that fit in bound bytes together; it returns them and the count left out so far.
func keepEarlier(entry, saved string, leftOut, bound int) (string, int) {
	entries := append([]string{entry}, splitEarlier(saved)...)
	kept := fitting(entries, bound)
	return strings.Join(entries[:kept], history.FeedbackSeparator), leftOut + len(entries) - kept
}

// fitting counts the entries, from the first, whose sizes (with a blank line between
// two) add up to at most room bytes.
func fitting(entries []string, room int) int {
	used := 0
	for n, e := range entries {
		if used += len(e) + len("\n\n"); used > room {
			return n
		}
	}
	return len(entries)
}

// assembleFeedback writes the section with every failure so far: the last iteration's
// (iteration last, "" when it raised nothing) whole, then the earlier entries, newest
// first, while the section stays within bound bytes, and a line counting those left out.
func assembleFeedback(iteration int, last string, earlier []string, leftOut, bound int) string {
	var b strings.Builder
	b.WriteString("Every failure of this run so far, newest first.")
	if strings.TrimSpace(last) == "" {
		fmt.Fprintf(&b, " The last iteration (%d) raised none of its own.", iteration)
	} else {
		fmt.Fprintf(&b, "\n\n### Iteration %d (the last)\n\n%s", iteration, strings.TrimSpace(last))
	}
	kept := fitting(earlier, bound-b.Len())
	for _, e := range earlier[:kept] {
		b.WriteString("\n\n" + e)
	}
	if n := leftOut + len(earlier) - kept; n > 0 {
		what := "earlier failures"
		if n == 1 {
			what = "earlier failure"
		}
		fmt.Fprintf(&b, "\n\n(%s %s left out: with feedback = \"all\" this section keeps within %s, the oldest dropped first.)",
			units.Count(int64(n)), what, units.Size(int64(bound)))
	}
	return b.String()
}
