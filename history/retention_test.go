package history

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// iterationsOfSize makes a history of len(sizes) iterations whose saved output and diff
// together take sizes[i] bytes.
func iterationsOfSize(t *testing.T, sizes ...int) *Store {
	t.Helper()
	s := openStore(t, t.TempDir())
	for _, size := range sizes {
		n := next(t, s)
		if err := s.Save(Record{Iteration: n, Run: "r"}); err != nil {
			t.Fatal(err)
		}
		os.WriteFile(s.OutputPath(n), []byte(strings.Repeat("o", size/2)), 0o644)
		os.WriteFile(s.DiffPath(n), []byte(strings.Repeat("d", size-size/2)), 0o644)
	}
	return s
}

func TestPrune(t *testing.T) {
	tests := []struct {
		name  string
		sizes []int
		r     Retention
		want  []int
	}{
		{"no bounds", []int{10, 10, 10}, Retention{}, nil},
		{"keep 2", []int{10, 10, 10, 10}, Retention{Keep: 2}, []int{1, 2}},
		{"size", []int{10, 10, 10, 10}, Retention{MaxBytes: 25}, []int{1, 2}},
		{"oldest go first, even small ones", []int{1, 50, 10, 10}, Retention{MaxBytes: 25}, []int{1, 2}},
		{"the newest stays whatever its size", []int{10, 100}, Retention{MaxBytes: 20}, []int{1}},
		{"both bounds", []int{1, 1, 1, 1, 1}, Retention{Keep: 4, MaxBytes: 2}, []int{1, 2, 3}},
		{"exactly at the size bound", []int{10, 10, 10}, Retention{MaxBytes: 30}, nil},
		{"one byte over the size bound", []int{10, 10, 10}, Retention{MaxBytes: 29}, []int{1}},
		{"exactly at the count bound", []int{10, 10, 10}, Retention{Keep: 3}, nil},
		{"keep 1", []int{10, 10, 10}, Retention{Keep: 1}, []int{1, 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := iterationsOfSize(t, tt.sizes...)
			got, err := s.Prune(tt.r)
			if err != nil || !slices.Equal(got, tt.want) {
				t.Fatalf("Prune = %v, %v; want %v", got, err, tt.want)
			}
			for n := 1; n <= len(tt.sizes); n++ {
				rec, err := s.Get(n)
				_, statErr := os.Stat(s.OutputPath(n))
				pruned := slices.Contains(tt.want, n)
				if err != nil || rec.Pruned != pruned || (statErr == nil) == pruned {
					t.Errorf("iteration %d: record %+v, %v, output %v; want pruned %v", n, rec, err, statErr, pruned)
				}
			}
			if again, _ := s.Prune(tt.r); len(again) != 0 {
				t.Errorf("a second Prune pruned %v again", again)
			}
		})
	}
}

// A damaged record does not stop the pruning: its files go, the record is left as it is.
func TestPruneWithADamagedRecord(t *testing.T) {
	s := iterationsOfSize(t, 5, 5, 5)
	os.WriteFile(s.recordPath(1), []byte("run = 'x\n"), 0o644)
	got, err := s.Prune(Retention{Keep: 1})
	if err != nil || fmt.Sprint(got) != "[1 2]" {
		t.Fatalf("Prune = %v, %v", got, err)
	}
	if _, err := os.Stat(s.DiffPath(1)); !os.IsNotExist(err) {
		t.Errorf("diff of the damaged iteration kept: %v", err)
	}
}

func TestRemoveLeftovers(t *testing.T) {
	s := iterationsOfSize(t, 1, 1)
	root := filepath.Dir(filepath.Dir(s.dir))
	SaveState(root, State{Run: "r"})
	leftovers := []string{
		filepath.Join(root, Dir, ".state.toml.1"+tempSuffix),
		filepath.Join(s.dir, ".last.2"+tempSuffix),
		filepath.Join(s.IterationDir(1), ".record.toml.3"+tempSuffix),
		filepath.Join(s.IterationDir(2), ".record.toml.4"+tempSuffix),
	}
	others := []string{StatePath(root), s.counterPath(), s.recordPath(1), s.OutputPath(2),
		filepath.Join(root, Dir, ".config.toml.5"+tempSuffix)}
	for _, p := range append(leftovers, others[4]) {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	if n := RemoveLeftovers(root); n != len(leftovers) {
		t.Errorf("removed %d, want %d", n, len(leftovers))
	}
	for _, p := range leftovers {
		if _, err := os.Stat(p); !os.IsNotExist(err) {
			t.Errorf("%s kept", p)
		}
	}
	for _, p := range others {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}

// An iteration directory that is a symlink (a repository can commit one, and Next skips
// its number) is not pruned: the files it leads to are not the history's. Pruning used to
// delete output.log and diff.patch wherever it led.
func TestPruneLeavesASymlinkedIterationAlone(t *testing.T) {
	s := iterationsOfSize(t, 5, 5, 5)
	elsewhere := t.TempDir()
	for _, name := range []string{outputFile, diffFile} {
		os.WriteFile(filepath.Join(elsewhere, name), []byte("not the history's"), 0o644)
	}
	os.RemoveAll(s.IterationDir(1))
	if err := os.Symlink(elsewhere, s.IterationDir(1)); err != nil {
		t.Skip(err)
	}
	if _, err := s.Prune(Retention{Keep: 1}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{outputFile, diffFile} {
		if _, err := os.Stat(filepath.Join(elsewhere, name)); err != nil {
			t.Errorf("%s where the symlink leads: %v", name, err)
		}
	}
	if _, err := os.Stat(s.DiffPath(2)); !os.IsNotExist(err) {
		t.Errorf("iteration 2 not pruned: %v", err)
	}
}

// A 'git ralph inject' killed between writing its temp file and renaming it left the temp
// file in the queue for good; the next loop removes it once it is old enough that no
// inject can still be writing it.
func TestRemoveLeftoversOfInject(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, Dir, injectDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	old := filepath.Join(dir, ".00000000000000000001-7.md.1"+tempSuffix)
	young := filepath.Join(dir, ".00000000000000000002-8.md.2"+tempSuffix)
	queued := filepath.Join(dir, "00000000000000000003-9.md")
	for _, p := range []string{old, young, queued} {
		os.WriteFile(p, []byte("x"), 0o600)
	}
	past := time.Now().Add(-2 * staleTempAge)
	os.Chtimes(old, past, past)
	os.Chtimes(queued, past, past)
	if n := RemoveLeftovers(root); n != 1 {
		t.Errorf("removed %d, want 1", n)
	}
	if _, err := os.Stat(old); !os.IsNotExist(err) {
		t.Errorf("the old temp file is kept: %v", err)
	}
	for _, p := range []string{young, queued} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s removed: %v", p, err)
		}
	}
}
