package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"time"
)

// Retention bounds the disk the history takes: the output, diff, prompt and logs of the
// newest Keep iterations are kept, as long as together they stay within MaxBytes; older
// iterations lose them (their small record stays, marked pruned, so numbering and the
// table stay whole). Zero means no bound.
type Retention struct {
	Keep     int
	MaxBytes int64
}

// The defaults: 100 iterations, 500 MiB. An overnight run rarely does 100 iterations, so
// the usual history is kept whole; an agent that leaves megabytes of generated files in
// each diff is stopped from filling the disk (20 such iterations made 789 MB).
const (
	DefaultHistoryKeep    = 100
	DefaultHistoryMaxSize = 500 << 20
)

// savedFiles are the big files of an iteration, which pruning removes.
var savedFiles = []string{outputFile, diffFile, validationFile, untilFile, judgeFile, promptFile}

// Prune removes the saved files of the oldest iterations beyond r and marks their records
// pruned; it returns their numbers, oldest first. The newest iteration is always kept.
// It walks down from the newest and stops at the first iteration already pruned, since
// pruning always takes the oldest: the cost is that of the iterations kept.
func (s *Store) Prune(r Retention) ([]int, error) {
	pruned, _, err := s.pruneAll(r)
	return pruned, err
}

// pruneAll is Prune, and also lists what it kept, oldest first.
func (s *Store) pruneAll(r Retention) (pruned []int, kept []savedIteration, err error) {
	numbers, err := s.Numbers()
	if err != nil {
		return nil, nil, err
	}
	var total int64
	full := false
	for _, n := range numbers {
		size, present := s.savedSize(n)
		if !present {
			if rec, err := s.Get(n); err == nil && rec.Pruned {
				break
			}
			continue
		}
		if len(kept) == 0 || !full && r.fits(len(kept)+1, total+size) {
			kept, total = append(kept, savedIteration{n, size}), total+size
			continue
		}
		full = true // everything older goes too, even what would still fit
		if err := s.prune(n); err != nil {
			return pruned, nil, err
		}
		pruned = append([]int{n}, pruned...)
	}
	slices.Reverse(kept)
	return pruned, kept, nil
}

// savedIteration is an iteration whose saved files the history keeps, and their bytes.
type savedIteration struct {
	n    int
	size int64
}

// fits reports whether r allows keeping that many iterations of that many bytes.
func (r Retention) fits(iterations int, bytes int64) bool {
	return (r.Keep <= 0 || iterations <= r.Keep) && (r.MaxBytes <= 0 || bytes <= r.MaxBytes)
}

// Pruner applies a retention after each iteration of a run without walking the whole
// history each time (seven lstats per iteration kept, up to 100 of them): it remembers
// what its last walk kept, adds each new iteration's files to that, and when the sum
// exceeds the bounds by one iteration too many it prunes the oldest it knows, after
// checking that its files are still as the walk saw them. Anything else (an iteration it
// was not told of, the size bound exceeded, files changed) makes it walk again. This
// holds because the loop holding the lock is the only writer of the history and an
// iteration's files do not change once it is saved.
type Pruner struct {
	Store     *Store
	Retention Retention
	known     bool             // kept is what the last walk kept, plus the iterations added since
	kept      []savedIteration // oldest first
	bytes     int64            // of kept
	last      int              // the iteration Pruned was last told of
	walks     int              // how many times it walked the history
}

// Pruned applies the retention now that iteration n is saved, and returns the numbers of
// the iterations it pruned, oldest first, as Store.Prune would.
func (p *Pruner) Pruned(n int) ([]int, error) {
	if p.known && n == p.last+1 { // an iteration it was not told of may hold files: walk
		p.last = n
		if size, present := p.Store.savedSize(n); present {
			p.kept, p.bytes = append(p.kept, savedIteration{n, size}), p.bytes+size
		}
		if p.Retention.fits(len(p.kept), p.bytes) {
			return nil, nil
		}
		if pruned, ok, err := p.pruneOldest(); ok {
			return pruned, err
		}
	}
	p.walks++
	pruned, kept, err := p.Store.pruneAll(p.Retention)
	p.known, p.kept, p.bytes, p.last = err == nil, kept, 0, n
	for _, k := range kept {
		p.bytes += k.size
	}
	return pruned, err
}

// pruneOldest prunes the oldest iteration kept when that alone brings the history back
// within the bounds and its files are as they were when counted; ok is false when it
// cannot say (then the history must be walked).
func (p *Pruner) pruneOldest() (pruned []int, ok bool, err error) {
	if len(p.kept) < 2 {
		return nil, false, nil
	}
	oldest := p.kept[0]
	if !p.Retention.fits(len(p.kept)-1, p.bytes-oldest.size) {
		return nil, false, nil
	}
	if size, present := p.Store.savedSize(oldest.n); !present || size != oldest.size {
		return nil, false, nil
	}
	if err := p.Store.prune(oldest.n); err != nil {
		p.known = false
		return nil, true, err
	}
	p.kept, p.bytes = p.kept[1:], p.bytes-oldest.size
	return []int{oldest.n}, true, nil
}

// savedSize is the size of iteration n's saved files, and whether it has any. A
// directory that is a symlink has none: what it leads to is not the history's.
func (s *Store) savedSize(n int) (int64, bool) {
	if info, err := os.Lstat(s.IterationDir(n)); err != nil || !info.IsDir() {
		return 0, false
	}
	var size int64
	present := false
	for _, name := range savedFiles {
		if info, err := os.Lstat(filepath.Join(s.IterationDir(n), name)); err == nil {
			size, present = size+info.Size(), true
		}
	}
	return size, present
}

// prune removes iteration n's saved files, marking its record first so that a reader
// never finds the files gone without knowing why. A record that cannot be read is left as
// it is (the listing names it); the files go all the same.
func (s *Store) prune(n int) error {
	if rec, err := s.Get(n); err == nil && !rec.Pruned {
		rec.Pruned = true
		if err := s.Save(rec); err != nil {
			return fmt.Errorf("marking iteration %d pruned: %w", n, err)
		}
	}
	for _, name := range savedFiles {
		if err := os.Remove(filepath.Join(s.IterationDir(n), name)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("pruning iteration %d: %w", n, err)
		}
	}
	return nil
}

// RemoveLeftovers deletes the temp files WriteFileAtomic leaves when its process is killed
// between creating and renaming one: of the state, the counter and the records. Only the
// loop holding the repository's lock writes those, so the caller must hold it; then every
// such temp file is a leftover, however young. It returns how many it removed.
func RemoveLeftovers(root string) int {
	removed := removeTemps(StatePath(root)) + removeStaleInjectTemps(root, time.Now())
	dir := filepath.Join(root, Dir, historyDir)
	removed += removeTemps(filepath.Join(dir, counterFile))
	entries, err := os.ReadDir(dir)
	if err != nil {
		return removed
	}
	for _, e := range entries {
		if _, ok := parseNumber(e.Name()); ok && e.IsDir() {
			removed += removeTemps(filepath.Join(dir, e.Name(), recordFile)) + removeTemps(filepath.Join(dir, e.Name(), promptFile))
		}
	}
	return removed
}

// removeStaleInjectTemps deletes the temp files a 'git ralph inject' killed before its
// rename left in the queue (readers skip them, nothing else removed them). inject runs
// without the lock, so only those older than staleTempAge go: a young one may be one
// being written now.
func removeStaleInjectTemps(root string, now time.Time) int {
	matches, _ := filepath.Glob(filepath.Join(root, Dir, injectDir, ".*"+tempSuffix))
	removed := 0
	for _, m := range matches {
		if info, err := os.Lstat(m); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > staleTempAge && os.Remove(m) == nil {
			removed++
		}
	}
	return removed
}

// removeTemps deletes every temp file of WriteFileAtomic for path.
func removeTemps(path string) int {
	dir, base := filepath.Split(path)
	matches, _ := filepath.Glob(filepath.Join(dir, "."+escapeGlob(base)+".*"+tempSuffix))
	removed := 0
	for _, m := range matches {
		if info, err := os.Lstat(m); err == nil && info.Mode().IsRegular() && os.Remove(m) == nil {
			removed++
		}
	}
	return removed
}
