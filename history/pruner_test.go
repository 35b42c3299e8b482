package history

import (
	"os"
	"slices"
	"strings"
	"testing"
)

// addIteration saves one more iteration whose output and diff take size bytes.
func addIteration(t *testing.T, s *Store, size int) int {
	t.Helper()
	n := next(t, s)
	if err := s.Save(Record{Iteration: n, Run: "r"}); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(s.OutputPath(n), []byte(strings.Repeat("o", size/2)), 0o644)
	os.WriteFile(s.DiffPath(n), []byte(strings.Repeat("d", size-size/2)), 0o644)
	return n
}

// The Pruner prunes exactly what Store.Prune prunes after each iteration, but walks the
// whole history only when it must: with a bound on the count, once per run, where it
// walked after every iteration before.
func TestPrunerPrunesAsPruneWithoutWalkingEachTime(t *testing.T) {
	sizes := []int{10, 40, 3, 3, 90, 10, 10, 10, 1, 1, 1, 200, 5, 5, 5, 5, 5, 5, 60, 7, 7, 7, 7, 7, 7}
	tests := []struct {
		name     string
		r        Retention
		maxWalks int
	}{
		{"count", Retention{Keep: 4}, 1},
		{"keep 1", Retention{Keep: 1}, 1},
		{"count and a size seldom reached", Retention{Keep: 5, MaxBytes: 250}, 3},
		{"size", Retention{MaxBytes: 100}, len(sizes)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fast, walked := openStore(t, t.TempDir()), openStore(t, t.TempDir())
			p := &Pruner{Store: fast, Retention: tt.r}
			for i, size := range sizes {
				n := addIteration(t, fast, size)
				addIteration(t, walked, size)
				got, err := p.Pruned(n)
				want, _ := walked.Prune(tt.r)
				if err != nil || !slices.Equal(got, want) {
					t.Fatalf("after iteration %d (size %d): Pruned = %v, %v; Prune = %v", n, sizes[i], got, err, want)
				}
			}
			for n := 1; n <= len(sizes); n++ {
				a, _ := fast.Get(n)
				b, _ := walked.Get(n)
				_, aErr := os.Stat(fast.OutputPath(n))
				_, bErr := os.Stat(walked.OutputPath(n))
				if a.Pruned != b.Pruned || (aErr == nil) != (bErr == nil) {
					t.Errorf("iteration %d: pruned %v (output %v), Prune says %v (output %v)", n, a.Pruned, aErr, b.Pruned, bErr)
				}
			}
			if p.walks > tt.maxWalks {
				t.Errorf("walked the history %d times for %d iterations, want at most %d", p.walks, len(sizes), tt.maxWalks)
			}
		})
	}
}

// Files changed behind its back (removed by hand) or an iteration it was not told of
// make the Pruner walk again rather than trust what it counted.
func TestPrunerWalksWhenTheHistoryChangedBehindIt(t *testing.T) {
	s := openStore(t, t.TempDir())
	p := &Pruner{Store: s, Retention: Retention{Keep: 3}}
	for range 3 {
		if _, err := p.Pruned(addIteration(t, s, 10)); err != nil {
			t.Fatal(err)
		}
	}
	os.Remove(s.OutputPath(1)) // iteration 1 still has its diff, 5 bytes
	os.Remove(s.OutputPath(2))
	os.Remove(s.DiffPath(2)) // iteration 2 has nothing left: not counted any more
	got, err := p.Pruned(addIteration(t, s, 10))
	if err != nil || len(got) != 0 || p.walks != 2 {
		t.Fatalf("after files were removed by hand: pruned %v, %v, %d walks; want nothing pruned (3 iterations with files), 2 walks", got, err, p.walks)
	}
	addIteration(t, s, 10) // saved without telling the Pruner
	got, err = p.Pruned(addIteration(t, s, 10))
	if err != nil || !slices.Equal(got, []int{1, 3}) || p.walks != 3 {
		t.Fatalf("after an iteration it was not told of: pruned %v, %v, %d walks; want [1 3], 3 walks", got, err, p.walks)
	}
}
