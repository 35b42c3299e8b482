package loop

import (
	"math"
	"time"
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
