package history

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// readFile is the content of path, "" when it does not exist.
func readFile(t *testing.T, path string) string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

func openTestLog(t *testing.T, maxBytes int64, keep int) (*RotatingFile, string) {
	t.Helper()
	path := LogPath(t.TempDir())
	f, err := OpenRotating(path, maxBytes, keep)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f, path
}

func write(t *testing.T, f *RotatingFile, s string) {
	t.Helper()
	if n, err := f.Write([]byte(s)); err != nil || n != len(s) {
		t.Fatalf("Write(%q) = %d, %v", s, n, err)
	}
}

func TestOpenRotatingCreatesTheDirectoryAndAppends(t *testing.T) {
	root := t.TempDir()
	path := LogPath(root)
	if want := filepath.Join(root, ".ralph", "logs", "ralph.log"); path != want {
		t.Fatalf("LogPath = %s, want %s", path, want)
	}
	for _, line := range []string{"one\n", "two\n"} {
		f, err := OpenRotating(path, 100, 1)
		if err != nil {
			t.Fatal(err)
		}
		write(t, f, line)
		if err := f.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := readFile(t, path); got != "one\ntwo\n" {
		t.Fatalf("log = %q, want both lines appended", got)
	}
	info, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if info.Mode().Perm() != 0o644 {
		t.Errorf("mode = %v, want 0644", info.Mode().Perm())
	}
}

func TestRotationAtTheBoundary(t *testing.T) {
	f, path := openTestLog(t, 10, 2)
	write(t, f, "12345")
	write(t, f, "6789\n") // exactly 10: still fits
	if got := readFile(t, path); got != "123456789\n" {
		t.Fatalf("log = %q, want 10 bytes in one file", got)
	}
	if _, err := os.Stat(path + ".1"); !os.IsNotExist(err) {
		t.Fatalf("rotated at exactly the maximum: %v", err)
	}
	write(t, f, "a") // 11 would be too many
	if got, want := readFile(t, path+".1"), "123456789\n"; got != want {
		t.Errorf("%s.1 = %q, want %q", path, got, want)
	}
	if got := readFile(t, path); got != "a" {
		t.Errorf("log = %q, want the new write alone", got)
	}
}

func TestRotationKeepsOnlyKeepFiles(t *testing.T) {
	f, path := openTestLog(t, 4, 2)
	for _, s := range []string{"aaa\n", "bbb\n", "ccc\n", "ddd\n"} {
		write(t, f, s)
	}
	want := map[string]string{path: "ddd\n", path + ".1": "ccc\n", path + ".2": "bbb\n", path + ".3": ""}
	for p, content := range want {
		if got := readFile(t, p); got != content {
			t.Errorf("%s = %q, want %q", filepath.Base(p), got, content)
		}
	}
}

func TestRotationWithKeepZeroStartsOver(t *testing.T) {
	f, path := openTestLog(t, 4, 0)
	write(t, f, "aaa\n")
	write(t, f, "bbb\n")
	if got := readFile(t, path); got != "bbb\n" {
		t.Errorf("log = %q, want only the newest write", got)
	}
	if files := LogFiles(path); !slices.Equal(files, []string{path}) {
		t.Errorf("LogFiles = %v, want only the log", files)
	}
}

func TestRotationRemovesFilesBeyondASmallerKeep(t *testing.T) {
	path := LogPath(t.TempDir())
	os.MkdirAll(filepath.Dir(path), 0o755)
	for i := 1; i <= 5; i++ {
		os.WriteFile(rotatedName(path, i), []byte("old"), 0o644)
	}
	os.WriteFile(path, []byte("current"), 0o644)
	if err := RotateIfLarger(path, 1, 2); err != nil {
		t.Fatal(err)
	}
	if files, want := LogFiles(path), []string{path + ".2", path + ".1"}; !slices.Equal(files, want) {
		t.Errorf("LogFiles = %v, want %v", files, want)
	}
	if got := readFile(t, path+".1"); got != "current" {
		t.Errorf("%s.1 = %q, want the rotated log", path, got)
	}
}

func TestAWriteLargerThanTheMaximumGoesWholeIntoAFreshFile(t *testing.T) {
	f, path := openTestLog(t, 8, 3)
	write(t, f, "small\n")
	big := strings.Repeat("x", 20) + "\n"
	write(t, f, big)
	if got := readFile(t, path); got != big {
		t.Errorf("log = %q, want the big write whole", got)
	}
	if got := readFile(t, path+".1"); got != "small\n" {
		t.Errorf("%s.1 = %q, want the earlier write", path, got)
	}
	write(t, f, "next\n") // the oversized file is full: the next write rotates it
	if got := readFile(t, path+".1"); got != big {
		t.Errorf("%s.1 = %q, want the big write", path, got)
	}
}

func TestAWriteLargerThanTheMaximumIntoAnEmptyFileDoesNotRotate(t *testing.T) {
	f, path := openTestLog(t, 4, 3)
	write(t, f, "0123456789")
	if files := LogFiles(path); !slices.Equal(files, []string{path}) {
		t.Errorf("LogFiles = %v: an empty file was rotated", files)
	}
}

func TestRotatingFileContinuesAnExistingFile(t *testing.T) {
	path := LogPath(t.TempDir())
	os.MkdirAll(filepath.Dir(path), 0o755)
	os.WriteFile(path, []byte("12345678"), 0o644)
	f, err := OpenRotating(path, 10, 1)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	write(t, f, "abc") // 11: the existing size counts
	if got := readFile(t, path+".1"); got != "12345678" {
		t.Errorf("%s.1 = %q, want the earlier content", path, got)
	}
}

func TestWriteAfterCloseFails(t *testing.T) {
	f, _ := openTestLog(t, 10, 1)
	f.Close()
	if _, err := f.Write([]byte("late")); err == nil {
		t.Fatal("Write after Close succeeded")
	}
}

func TestOpenRotatingRejectsANegativeKeep(t *testing.T) {
	if _, err := OpenRotating(LogPath(t.TempDir()), 10, -1); err == nil {
		t.Fatal("OpenRotating accepted keep -1")
	}
}

// TestConcurrentWritersKeepEveryLineWhole writes from many goroutines with a small maximum,
// so that rotations happen under contention, then checks that every line is in exactly one
// file, whole.
func TestConcurrentWritersKeepEveryLineWhole(t *testing.T) {
	const writers, lines = 8, 200
	f, path := openTestLog(t, 2000, writers*lines) // keep everything, to count it
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range lines {
				line := fmt.Sprintf("writer %d line %d %s\n", w, i, strings.Repeat("=", i%50))
				if _, err := f.Write([]byte(line)); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	files := LogFiles(path)
	if len(files) < 10 {
		t.Fatalf("only %d files: the test did not rotate under contention", len(files))
	}
	seen := map[string]bool{}
	for _, file := range files {
		if info, _ := os.Stat(file); info.Size() > 2000 {
			t.Errorf("%s has %d bytes, more than the maximum", file, info.Size())
		}
		fh, err := os.Open(file)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(fh)
		for sc.Scan() {
			var w, i int
			var pad string
			n, _ := fmt.Sscanf(sc.Text(), "writer %d line %d %s", &w, &i, &pad)
			if (n != 3 && !(n == 2 && i%50 == 0)) || len(pad) != i%50 || seen[sc.Text()] {
				t.Errorf("%s: torn or repeated line %q", filepath.Base(file), sc.Text())
			}
			seen[sc.Text()] = true
		}
		fh.Close()
	}
	if len(seen) != writers*lines {
		t.Errorf("%d lines in the files, want %d", len(seen), writers*lines)
	}
}

func TestRotateIfLarger(t *testing.T) {
	path := filepath.Join(t.TempDir(), "cron.log")
	if err := RotateIfLarger(path, 4, 2); err != nil {
		t.Fatalf("a missing log: %v", err)
	}
	os.WriteFile(path, []byte("1234"), 0o644)
	if err := RotateIfLarger(path, 4, 2); err != nil {
		t.Fatal(err)
	}
	if files := LogFiles(path); !slices.Equal(files, []string{path}) {
		t.Fatalf("rotated a log that is not larger than the maximum: %v", files)
	}
	for _, content := range []string{"first!", "second", "third!"} {
		os.WriteFile(path, []byte(content), 0o644)
		if err := RotateIfLarger(path, 4, 2); err != nil {
			t.Fatal(err)
		}
	}
	if files, want := LogFiles(path), []string{path + ".2", path + ".1"}; !slices.Equal(files, want) {
		t.Fatalf("LogFiles = %v, want %v", files, want)
	}
	if got := readFile(t, path+".2") + readFile(t, path+".1"); got != "secondthird!" {
		t.Errorf("rotated files hold %q, want the two newest", got)
	}
}

func TestLogFilesOrder(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ralph.log")
	if files := LogFiles(path); len(files) != 0 {
		t.Fatalf("LogFiles of nothing = %v", files)
	}
	for _, name := range []string{"ralph.log", "ralph.log.1", "ralph.log.2", "ralph.log.10", "ralph.log.01", "ralph.log.x", "ralph.logger", "other.log.1"} {
		os.WriteFile(filepath.Join(dir, name), nil, 0o644)
	}
	os.Mkdir(filepath.Join(dir, "ralph.log.3"), 0o755)
	want := []string{path + ".10", path + ".2", path + ".1", path}
	if files := LogFiles(path); !slices.Equal(files, want) {
		t.Errorf("LogFiles = %v, want %v", files, want)
	}
	os.Remove(path)
	if files := LogFiles(path); !slices.Equal(files, want[:3]) {
		t.Errorf("LogFiles without the current log = %v, want %v", files, want[:3])
	}
}
