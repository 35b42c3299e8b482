package history

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/pelletier/go-toml/v2"
)

func openStore(t testing.TB, root string) *Store {
	t.Helper()
	s, err := OpenStore(root)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func next(t testing.TB, s *Store) int {
	t.Helper()
	n, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func sampleRecord(n int) Record {
	start := time.Date(2026, 11, 21, 10, n%60, 0, 0, time.UTC)
	return Record{Iteration: n, Run: "run-1", RunIteration: n, Mode: "build", StartedAt: start,
		EndedAt: start.Add(90 * time.Second), DurationMS: 90_000, ExitCode: 0, Outcome: "success",
		Signal: "SUCCESS", CommitBefore: "aaaa", CommitAfter: "bbbb", FilesChanged: 2,
		Insertions: 10, Deletions: 3, OutputPath: ".ralph/history/" + strconv.Itoa(n) + "/output.log"}
}

func iterations(recs []Record) string {
	var ns []string
	for _, r := range recs {
		ns = append(ns, strconv.Itoa(r.Iteration))
	}
	return strings.Join(ns, ",")
}

func TestOpenStoreCreatesNothing(t *testing.T) {
	root := t.TempDir()
	s := openStore(t, root)
	if n, err := s.Last(); err != nil || n != 0 {
		t.Errorf("Last() on no history = %d, %v", n, err)
	}
	if recs, err := s.List(0); err != nil || len(recs) != 0 {
		t.Errorf("List(0) on no history = %v, %v", recs, err)
	}
	if _, err := os.Stat(filepath.Join(root, Dir)); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("OpenStore, Last or List created %s: %v", Dir, err)
	}
	if _, err := OpenStore(filepath.Join(root, "missing")); err == nil {
		t.Error("OpenStore on a missing directory succeeded")
	}
}

func TestNumbersAreUniqueAcrossOpens(t *testing.T) {
	root := t.TempDir()
	s1 := openStore(t, root)
	for want := 1; want <= 3; want++ {
		if n := next(t, s1); n != want {
			t.Fatalf("Next() = %d, want %d", n, want)
		}
	}
	// None of 1–3 has a record: their numbers are still used up.
	s2 := openStore(t, root)
	if n := next(t, s2); n != 4 {
		t.Errorf("Next() after reopening = %d, want 4", n)
	}
	if n, err := s2.Last(); err != nil || n != 4 {
		t.Errorf("Last() = %d, %v; want 4", n, err)
	}
	if info, err := os.Stat(s2.IterationDir(4)); err != nil || !info.IsDir() {
		t.Errorf("Next did not create the iteration directory: %v", err)
	}
	if _, err := os.Stat(filepath.Join(root, Dir, ".gitignore")); err != nil {
		t.Errorf("Next did not write .ralph/.gitignore: %v", err)
	}
}

func TestNextRecoversWithoutItsCounter(t *testing.T) {
	tests := []struct {
		name, counter string // "" = no counter file
		want          int
	}{
		{"counter deleted", "", 6},
		{"counter unreadable", "garbage\n", 6},
		{"counter behind the directories", "2\n", 6},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := openStore(t, t.TempDir())
			for range 5 {
				next(t, s)
			}
			counter := filepath.Join(s.dir, counterFile)
			os.Remove(counter)
			if tt.counter != "" {
				os.WriteFile(counter, []byte(tt.counter), 0o644)
			}
			if n := next(t, s); n != tt.want {
				t.Errorf("Next() = %d, want %d", n, tt.want)
			}
		})
	}
}

func TestGetAndList(t *testing.T) {
	s := openStore(t, t.TempDir())
	for range 6 {
		n := next(t, s)
		if n == 3 || n == 6 {
			continue // died before its record was saved
		}
		if err := s.Save(sampleRecord(n)); err != nil {
			t.Fatal(err)
		}
	}
	got, err := s.Get(2)
	if err != nil || asJSON(t, got) != asJSON(t, sampleRecord(2)) {
		t.Errorf("Get(2) = %s, %v\nwant %s", asJSON(t, got), err, asJSON(t, sampleRecord(2)))
	}
	for _, n := range []int{0, 3, 6, 99} {
		if _, err := s.Get(n); !errors.Is(err, ErrNoRecord) || !strings.Contains(err.Error(), strconv.Itoa(n)) {
			t.Errorf("Get(%d) error = %v, want ErrNoRecord naming %d", n, err, n)
		}
	}
	for _, tt := range []struct {
		limit int
		want  string
	}{{0, "1,2,4,5"}, {2, "4,5"}, {3, "2,4,5"}, {10, "1,2,4,5"}} {
		recs, err := s.List(tt.limit)
		if err != nil || iterations(recs) != tt.want {
			t.Errorf("List(%d) = %s, %v; want %s", tt.limit, iterations(recs), err, tt.want)
		}
	}
}

func TestSaveRefusesUnallocatedNumbers(t *testing.T) {
	s := openStore(t, t.TempDir())
	next(t, s)
	for _, n := range []int{0, 2} {
		if err := s.Save(sampleRecord(n)); err == nil {
			t.Errorf("Save of iteration %d (last allocated: 1) succeeded", n)
		}
	}
}

func TestSaveReplacesARecord(t *testing.T) {
	s := openStore(t, t.TempDir())
	n := next(t, s)
	rec := sampleRecord(n)
	s.Save(rec)
	rec.Outcome, rec.Validation = "validation-failed", "exit 1"
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	if got, err := s.Get(n); err != nil || got.Outcome != "validation-failed" || got.Validation != "exit 1" {
		t.Errorf("Get after a second Save = %+v, %v", got, err)
	}
}

func TestGetNamesTheLineOfACorruptRecord(t *testing.T) {
	s := openStore(t, t.TempDir())
	n := next(t, s)
	path := filepath.Join(s.IterationDir(n), recordFile)
	os.WriteFile(path, []byte("iteration = 1\nrun = 'r'\nexit_code = 'zero'\n"), 0o644)
	_, err := s.Get(n)
	if err == nil || !strings.Contains(err.Error(), path+", line 3") {
		t.Errorf("Get error = %v, want one naming %s, line 3", err, path)
	}
}

// One record that does not parse must not hide the others: it is skipped and named.
func TestScanSkipsAndNamesACorruptRecord(t *testing.T) {
	s := openStore(t, t.TempDir())
	for i := 1; i <= 3; i++ {
		n := next(t, s)
		if err := s.Save(Record{Iteration: n, Run: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	path := filepath.Join(s.IterationDir(2), recordFile)
	os.WriteFile(path, []byte("iteration = 2\nrun = 'r\n"), 0o644)
	recs, bad, err := s.Scan(0)
	if err != nil || iterations(recs) != "1,3" {
		t.Fatalf("Scan = %s, %v; want [1 3]", iterations(recs), err)
	}
	if len(bad) != 1 || bad[0].Iteration != 2 || !strings.Contains(bad[0].Err.Error(), path+", line 2") {
		t.Errorf("bad = %+v, want iteration 2 naming %s, line 2", bad, path)
	}
	if recs, err := s.List(2); err != nil || iterations(recs) != "1,3" {
		t.Errorf("List(2) = %s, %v; want [1 3]", iterations(recs), err)
	}
}

// writeHistory makes a history of n records quickly (no fsync): setup for benchmarks.
func writeHistory(b *testing.B, root string, n int) *Store {
	s := openStore(b, root)
	for i := 1; i <= n; i++ {
		os.MkdirAll(s.IterationDir(i), 0o755)
		data, _ := toml.Marshal(sampleRecord(i))
		if err := os.WriteFile(filepath.Join(s.IterationDir(i), recordFile), data, 0o644); err != nil {
			b.Fatal(err)
		}
	}
	os.WriteFile(filepath.Join(s.dir, counterFile), []byte(strconv.Itoa(n)+"\n"), 0o644)
	return s
}

// BenchmarkGetRecord shows that reading one record costs the same in a history of ten
// records and in one of thousands.
func BenchmarkGetRecord(b *testing.B) {
	for _, size := range []int{10, 5000} {
		b.Run(fmt.Sprintf("records=%d", size), func(b *testing.B) {
			s := writeHistory(b, b.TempDir(), size)
			i := 0
			for b.Loop() {
				n := size - i%10 // the newest ten, as `history` and `--diff N` mostly ask for
				if _, err := s.Get(n); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkListNewest20 shows that the default `history` view (the newest records) does not
// read the whole history: only the directory's names and 20 records (about 4.5 ms for
// 5000 records on the shared machine, against 1 ms when it counted down from the counter,
// which a committed counter of a billion made hours).
func BenchmarkListNewest20(b *testing.B) {
	for _, size := range []int{20, 5000} {
		b.Run(fmt.Sprintf("records=%d", size), func(b *testing.B) {
			s := writeHistory(b, b.TempDir(), size)
			for b.Loop() {
				if recs, err := s.List(20); err != nil || len(recs) != 20 {
					b.Fatal(len(recs), err)
				}
			}
		})
	}
}

// A counter holding the largest int (a repository can commit one) made Next hand out
// -9223372036854775808, and the iteration's record could then not be saved. A counter
// past MaxCount is taken as unreadable: the directories say where numbering stands.
func TestNextIgnoresACounterThatWouldOverflow(t *testing.T) {
	s := openStore(t, t.TempDir())
	first := next(t, s)
	if err := os.WriteFile(s.counterPath(), []byte("9223372036854775807\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if n := next(t, s); n != first+1 {
		t.Fatalf("Next = %d after iteration %d, want %d", n, first, first+1)
	}
}

// A directory numbered MaxCount (committed by a repository) ends the numbering with an
// error at once, rather than numbers past MaxCount that Last no longer sees (the record of
// iteration MaxCount+1 could then not be saved).
func TestNextStopsAtMaxCount(t *testing.T) {
	s := openStore(t, t.TempDir())
	next(t, s)
	if err := os.Mkdir(s.IterationDir(MaxCount), 0o755); err != nil {
		t.Fatal(err)
	}
	os.Remove(s.counterPath())
	if n, err := s.Next(); err == nil {
		t.Fatalf("Next = %d, want an error", n)
	}
}

// A repository can commit an iteration's directory, or its record, as a symlink to a place
// outside: the store neither writes a record there nor reads one from there.
func TestRecordsNeverGoThroughSymlinks(t *testing.T) {
	root, outside := t.TempDir(), t.TempDir()
	s := openStore(t, root)
	n := next(t, s)
	os.Remove(s.IterationDir(n))
	if err := os.Symlink(outside, s.IterationDir(n)); err != nil {
		t.Fatal(err)
	}
	if err := s.Save(sampleRecord(n)); err == nil {
		t.Error("Save wrote through a symlinked iteration directory")
	}
	if _, err := os.Stat(filepath.Join(outside, "record.toml")); err == nil {
		t.Error("a record.toml was written outside the repository")
	}

	m := next(t, s)
	data, _ := toml.Marshal(sampleRecord(m))
	secret := filepath.Join(outside, "creds.toml")
	os.WriteFile(secret, data, 0o600)
	if err := os.Symlink(secret, s.recordPath(m)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Get(m); err == nil {
		t.Error("Get read a record through a symlink")
	}
}

// A repository can commit a counter of MaxCount with no records below it: Scan (the
// dashboard's loop page, `git ralph history`) reads the iterations that exist rather than
// trying a billion numbers (3 million took 32 s; a billion, hours).
func TestScanOfAHugeCounterIsQuick(t *testing.T) {
	s := openStore(t, t.TempDir())
	for i := 1; i <= 2; i++ {
		n := next(t, s)
		if err := s.Save(Record{Iteration: n, Run: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(s.counterPath(), []byte(strconv.Itoa(MaxCount)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		recs, _, err := s.Scan(0)
		one, _, _ := s.Scan(1)
		done <- fmt.Sprintf("%s %s %v", iterations(recs), iterations(one), err)
	}()
	select {
	case got := <-done:
		if got != "1,2 2 <nil>" {
			t.Errorf("Scan(0), Scan(1) = %s; want 1,2 and 2", got)
		}
	case <-time.After(time.Minute): // counting down from a billion takes hours
		t.Fatal("Scan of a history whose counter says a billion did not end within a minute")
	}
}

// Prune and Numbers walk what the history holds, not every number below a counter a
// repository committed: with a billion, counting down took hours. The bound only tells a
// walk of two directories from one of a billion numbers.
func TestPruneOfAHugeCounterIsQuick(t *testing.T) {
	s := openStore(t, t.TempDir())
	for i := 1; i <= 3; i++ {
		n := next(t, s)
		if err := os.WriteFile(s.OutputPath(n), []byte("output\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if err := s.Save(Record{Iteration: n, Run: "r"}); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(s.counterPath(), []byte(strconv.Itoa(MaxCount)+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	done := make(chan string, 1)
	go func() {
		numbers, err := s.Numbers()
		pruned, perr := s.Prune(Retention{Keep: 1})
		done <- fmt.Sprintf("%v %v %v %v", numbers, err, pruned, perr)
	}()
	select {
	case got := <-done:
		if got != "[3 2 1] <nil> [1 2] <nil>" {
			t.Errorf("Numbers, Prune(keep 1) = %s; want [3 2 1] and [1 2] pruned", got)
		}
	case <-time.After(30 * time.Second):
		t.Fatal("Prune of a history whose counter says a billion did not end within 30 s")
	}
}
