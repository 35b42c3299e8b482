package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
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
	numbers, err := s.Numbers()
	if err != nil {
		return nil, err
	}
	var pruned []int
	kept, total, full := 0, int64(0), false
	for _, n := range numbers {
		size, present := s.savedSize(n)
		if !present {
			if rec, err := s.Get(n); err == nil && rec.Pruned {
				break
			}
			continue
		}
		if kept == 0 || !full && (r.Keep <= 0 || kept < r.Keep) && (r.MaxBytes <= 0 || total+size <= r.MaxBytes) {
			kept, total = kept+1, total+size
			continue
		}
		full = true // everything older goes too, even what would still fit
		if err := s.prune(n); err != nil {
			return pruned, err
		}
		pruned = append([]int{n}, pruned...)
	}
	return pruned, nil
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
