package loop

import (
	"math"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// Stats summarises iteration durations in constant memory (Welford's online algorithm).
type Stats struct {
	Count    int
	Min, Max time.Duration
	mean, m2 float64 // in seconds
}

// Add records one iteration's duration.
func (s *Stats) Add(d time.Duration) {
	s.Count++
	if s.Count == 1 || d < s.Min {
		s.Min = d
	}
	if d > s.Max {
		s.Max = d
	}
	x := d.Seconds()
	delta := x - s.mean
	s.mean += delta / float64(s.Count)
	s.m2 += delta * (x - s.mean)
}

// Mean is the average duration.
func (s Stats) Mean() time.Duration { return seconds(s.mean) }

// Stddev is the population standard deviation of the durations.
func (s Stats) Stddev() time.Duration {
	if s.Count < 2 {
		return 0
	}
	return seconds(math.Sqrt(s.m2 / float64(s.Count)))
}

func seconds(x float64) time.Duration { return time.Duration(x * float64(time.Second)) }

// runStats are the timing statistics of the iterations that run completed before this
// invocation resumed it, read back from their records (the newest first, down to the
// run's first or counted of them), so that the run's summary covers the whole run, as
// its count of iterations does. An iteration that crashed was not timed; one whose
// record cannot be read is left out.
func runStats(store *history.Store, run string, counted int) Stats {
	var s Stats
	last, err := store.Last()
	if err != nil {
		return s
	}
	for n := last; n >= 1 && s.Count < counted; n-- {
		rec, err := store.Get(n)
		if err != nil {
			continue // a number allocated and never saved, or a damaged record
		}
		if rec.Run != run {
			break // an older run's: a run's records are contiguous
		}
		if o := Outcome(rec.Outcome); o.Counts() && o != OutcomeCrashed {
			s.Add(time.Duration(rec.DurationMS) * time.Millisecond)
		}
	}
	return s
}
