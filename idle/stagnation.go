package idle

import (
	"fmt"
	"strings"
	"time"
)

// Defaults of the stagnation settings.
const (
	DefaultStagnationThreshold  = 3  // iterations in a row alike before the agent is told
	DefaultStagnationSimilarity = 90 // percent alike that counts as the same
)

// Unmeasured is the percentage of a comparison that was not made: neither iteration had
// that text (no final message; validation passed or did not run, both times).
const Unmeasured = -1

// Stagnation notices a loop that repeats the same attempt: iterations alike in what the
// agent said last and what validation said, or a working tree that goes back and forth.
//
// An iteration is alike the one before it when, comparing its texts with that iteration's:
//   - neither pair of texts differs: the agent's final messages are at least Similarity %
//     alike word by word (WordSimilarity), or both are empty; the validation failures
//     likewise, line by line (an iteration whose validation passed, or had none, has an
//     empty failure);
//   - at least one pair is not empty on both sides: two silences prove nothing; and
//   - either the iteration left the working tree's content as it found it, or validation
//     failed both times with the same output (identical once Similarity's normalising is
//     done: timings and other numbers do not count).
//
// So an agent that changes files is alike only while validation keeps failing exactly the
// same way: passing validation, or a failure that changes as the work goes on (a list of
// what is left that shrinks), is progress, however alike its messages ("Done.").
//
// Threshold iterations in a row alike, or an oscillation (the working tree back to its
// content of two iterations ago, after an iteration that changed it), earn a nudge in the
// next prompt; if the next iteration repeats still, the run stops.
type Stagnation struct {
	Threshold  int           // iterations in a row alike that count as stagnation; 0: off
	Similarity int           // percent alike that counts as the same text
	Timeout    time.Duration // bounds each comparison; 0: DefaultCompareTimeout

	prev    *said  // the last compared iteration; nil before any, or after a failed one
	twoAgo  string // the working tree after the iteration before prev
	repeats int    // iterations in a row alike, the last one included
	nudged  bool   // the agent was told in this streak
}

// said is what one iteration left to compare: its texts and its working tree.
type said struct {
	message, failure, tree string
}

// Repetition is what the stagnation check found about one iteration.
type Repetition struct {
	Measured    bool // compared with a previous iteration
	Message     int  // percent alike the previous final message, word by word; Unmeasured when neither had one
	Failure     int  // percent alike the previous validation failure; Unmeasured when neither failed
	Coarse      bool // a comparison ran into its time limit: the percentages are lower bounds
	Unchanged   bool // the iteration left the working tree's content as it found it
	Oscillation bool // the working tree went back to its content of two iterations ago
	Alike       bool // a repeat of the previous iteration (see Stagnation)
	Repeats     int  // iterations in a row alike, this one included; 1 when it is no repeat
	Nudge       bool // tell the agent, in the next prompt, that it repeats itself
	Stop        bool // it repeated after being told: the run stops
}

// Observe weighs one finished iteration. Only iterations that succeeded are compared: a
// failed one is the consecutive-error breaker's, and ends a streak; an uncounted one
// (interrupted, halted) runs again and is not seen.
func (s *Stagnation) Observe(it Iteration) Repetition {
	if s.Threshold <= 0 || it.Ending == Uncounted {
		return Repetition{}
	}
	cur := &said{message: it.Message, failure: it.Failure, tree: it.After.Tree}
	prev, twoAgo := s.prev, s.twoAgo
	s.prev, s.twoAgo = cur, it.Before.Tree
	if prev != nil {
		s.twoAgo = prev.tree
	}
	if it.Ending == Failed || prev == nil {
		s.repeats, s.nudged = 1, false
		if it.Ending == Failed {
			s.prev = nil
		}
		return Repetition{Message: Unmeasured, Failure: Unmeasured, Repeats: 1}
	}
	r := s.compare(prev, cur, it)
	r.Oscillation = twoAgo != "" && it.After.Tree == twoAgo && !r.Unchanged
	s.decide(&r)
	return r
}

// compare measures cur against prev and applies the rule of what is alike.
func (s *Stagnation) compare(prev, cur *said, it Iteration) Repetition {
	r := Repetition{Measured: true, Unchanged: it.Before.Tree == it.After.Tree}
	var msgSame, failSame, msgDiffer, failDiffer bool
	r.Message, msgSame, msgDiffer = s.pair(prev.message, cur.message, WordSimilarity, &r.Coarse)
	r.Failure, failSame, failDiffer = s.pair(prev.failure, cur.failure, Similarity, &r.Coarse)
	r.Alike = !msgDiffer && !failDiffer && (msgSame || failSame) && (r.Unchanged || r.Failure == 100)
	return r
}

// pair compares one kind of text of two iterations: its percentage, whether the texts are
// the same (both there and alike enough) and whether they differ (one there, or not alike).
func (s *Stagnation) pair(a, b string, measure func(a, b string, limit time.Duration) Likeness, coarse *bool) (percent int, same, differ bool) {
	hasA, hasB := strings.TrimSpace(a) != "", strings.TrimSpace(b) != ""
	switch {
	case !hasA && !hasB:
		return Unmeasured, false, false
	case hasA != hasB:
		return 0, false, true
	}
	l := measure(a, b, s.Timeout)
	*coarse = *coarse || l.Coarse
	return l.Percent, l.Percent >= s.Similarity, l.Percent < s.Similarity
}

// decide counts the streak and decides: a nudge when it reaches the threshold (or the tree
// oscillates), a stop when it goes on after the nudge.
func (s *Stagnation) decide(r *Repetition) {
	if !r.Alike && !r.Oscillation {
		s.repeats, s.nudged = 1, false
		r.Repeats = 1
		return
	}
	s.repeats++
	r.Repeats = s.repeats
	if s.repeats < s.Threshold && !r.Oscillation {
		return
	}
	if s.nudged {
		r.Stop = true
		return
	}
	r.Nudge, s.nudged = true, true
}

// Repeated says in words what repeated, for the agent's nudge and the run's stop reason.
func (r Repetition) Repeated() string {
	var parts []string
	if r.Oscillation {
		parts = append(parts, "the files went back to what they were two iterations ago")
	}
	if r.Alike {
		var same []string
		if r.Failure != Unmeasured {
			same = append(same, "the validation failed the same way")
		}
		if r.Message != Unmeasured {
			same = append(same, "the agent's final message was the same")
		}
		if r.Unchanged {
			same = append(same, "the files did not change")
		}
		parts = append(parts, fmt.Sprintf("%s, %d iterations in a row", strings.Join(same, ", "), r.Repeats))
	}
	return strings.Join(parts, "; ")
}

// Cause names what stopped the run, for run_finished's cause.
func (r Repetition) Cause() string {
	if r.Oscillation && !r.Alike {
		return "oscillation"
	}
	return "repeated_attempt"
}
