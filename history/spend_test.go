package history

import (
	"errors"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestSpendAddsUpPerLocalDay(t *testing.T) {
	s := Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.Local)
	if d, err := s.Day(now); err != nil || d.CostUSD != 0 || d.Day != "2026-11-23" {
		t.Fatalf("an empty store's day = %+v, %v", d, err)
	}
	for _, cost := range []float64{0.25, 0.5} {
		if _, err := s.Add(now, cost, 100); err != nil {
			t.Fatal(err)
		}
	}
	d, err := s.Day(now.Add(time.Hour))
	if err != nil || d.CostUSD != 0.75 || d.Tokens != 200 || d.Attempts != 2 {
		t.Errorf("the day = %+v, %v; want $0.75, 200 tokens, 2 attempts", d, err)
	}
	tomorrow := time.Date(2026, 11, 24, 0, 0, 1, 0, time.Local)
	if d, err := s.Day(tomorrow); err != nil || d.CostUSD != 0 {
		t.Errorf("the next day starts from zero: %+v, %v", d, err)
	}
	if _, err := s.Add(now, -1, 0); err == nil {
		t.Error("a negative cost was added")
	}
	if _, err := s.Add(now, math.NaN(), 0); err == nil {
		t.Error("NaN was added")
	}
}

// An attempt that reported tokens but no cost is counted apart, so that a day's cost is
// known to be a lower bound; a file written before that count was kept reads as before.
func TestSpendCountsAttemptsWithoutACost(t *testing.T) {
	s := Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.Local)
	older := "day = '2026-11-23'\ncost_usd = 0.5\ntokens = 100\nattempts = 1\n"
	os.MkdirAll(s.Dir, 0o700)
	if err := os.WriteFile(s.file("2026-11-23"), []byte(older), 0o600); err != nil {
		t.Fatal(err)
	}
	if d, err := s.Day(now); err != nil || d.CostUSD != 0.5 || d.Attempts != 1 || d.Uncosted != 0 {
		t.Fatalf("the older file reads as %+v, %v", d, err)
	}
	d, err := s.AddUncosted(now, 2300)
	if err != nil || d.CostUSD != 0.5 || d.Tokens != 2400 || d.Attempts != 2 || d.Uncosted != 1 {
		t.Errorf("after a run without a cost: %+v, %v; want $0.50, 2,400 tokens, 2 attempts, 1 without a cost", d, err)
	}
}

func TestSpendPrunesOldDays(t *testing.T) {
	s := Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.Local)
	old := now.AddDate(0, 0, -40)
	if _, err := s.Add(old, 1, 1); err != nil {
		t.Fatal(err)
	}
	recent := now.AddDate(0, 0, -3)
	if _, err := s.Add(recent, 1, 1); err != nil {
		t.Fatal(err)
	}
	os.WriteFile(filepath.Join(s.Dir, "notes.txt"), []byte("mine"), 0o600)
	if _, err := s.Add(now, 1, 1); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]bool{dayName(old) + ".toml": false, dayName(recent) + ".toml": true, "notes.txt": true} {
		if _, err := os.Stat(filepath.Join(s.Dir, name)); (err == nil) != want {
			t.Errorf("%s kept = %v, want %v", name, err == nil, want)
		}
	}
}

// Loops in other processes add to the same day at the same time: none loses another's.
// Each add waits for the lock as long as it takes: on a busy machine the 200 adds queued
// on one lock outlast the 10 s a loop waits, and an add refused for that is not one lost.
func TestSpendConcurrentAddsAreAllCounted(t *testing.T) {
	defer func(old time.Duration) { limitsLockWait = old }(limitsLockWait)
	limitsLockWait = time.Hour
	s := Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	now := time.Now()
	const workers, each = 8, 25
	var wg sync.WaitGroup
	for range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for range each {
				if _, err := s.Add(now, 0.01, 10); err != nil {
					t.Error(err)
				}
			}
		}()
	}
	wg.Wait()
	d, err := s.Day(now)
	if err != nil || d.Attempts != workers*each || d.Tokens != workers*each*10 || math.Abs(d.CostUSD-workers*each*0.01) > 1e-9 {
		t.Errorf("after %d concurrent adds: %+v, %v", workers*each, d, err)
	}
}

// The same across processes (flock is per open file, but the test checks what loops do).
func TestSpendConcurrentProcesses(t *testing.T) {
	if os.Getenv("SPEND_CHILD") != "" {
		s := Spend{Dir: os.Getenv("SPEND_CHILD")}
		for range 20 {
			if _, err := s.Add(time.Now(), 0.5, 1); err != nil {
				t.Fatal(err)
			}
		}
		return
	}
	dir := filepath.Join(t.TempDir(), "spend")
	var cmds []*exec.Cmd
	for range 4 {
		cmd := exec.Command(os.Args[0], "-test.run=^TestSpendConcurrentProcesses$")
		cmd.Env = append(os.Environ(), "SPEND_CHILD="+dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		cmds = append(cmds, cmd)
	}
	for _, cmd := range cmds {
		if err := cmd.Wait(); err != nil {
			t.Fatal(err)
		}
	}
	d, err := Spend{Dir: dir}.Day(time.Now())
	if err != nil || d.Attempts != 80 || d.CostUSD != 40 {
		t.Errorf("4 processes × 20 adds of $0.50: %+v, %v", d, err)
	}
}

func TestSpendCorruptFile(t *testing.T) {
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.Local)
	for name, content := range map[string]string{
		"torn":           "day = \"2026-11-23\"\ncost_usd = 1.",
		"not toml":       "\x00\x01garbage",
		"negative":       "day = \"2026-11-23\"\ncost_usd = -5.0\n",
		"nan":            "day = \"2026-11-23\"\ncost_usd = nan\n",
		"other day":      "day = \"1999-01-01\"\ncost_usd = 0.0\n",
		"negative count": "day = \"2026-11-23\"\ntokens = -3\n",
	} {
		t.Run(name, func(t *testing.T) {
			s := Spend{Dir: t.TempDir()}
			path := s.file("2026-11-23")
			os.WriteFile(path, []byte(content), 0o600)
			_, err := s.Day(now)
			var corrupt *CorruptSpendError
			if !errors.As(err, &corrupt) || !strings.Contains(err.Error(), path) || corrupt.Hint() == "" {
				t.Fatalf("Day = %v; want a CorruptSpendError naming the file", err)
			}
			d, err := s.Add(now, 0.5, 5)
			if !errors.As(err, &corrupt) || corrupt.Moved == "" || d.CostUSD != 0.5 {
				t.Fatalf("Add = %+v, %v; want the count started again and the file moved aside", d, err)
			}
			if kept, _ := os.ReadFile(corrupt.Moved); string(kept) != content {
				t.Errorf("the corrupt file was not kept as it was: %q", kept)
			}
			if d, err := s.Day(now); err != nil || d.CostUSD != 0.5 {
				t.Errorf("after Add: %+v, %v", d, err)
			}
		})
	}
}

// A symlink or a FIFO in place of the day's file is refused, never followed or waited on.
func TestSpendRefusesOddFiles(t *testing.T) {
	now := time.Now()
	s := Spend{Dir: t.TempDir()}
	target := filepath.Join(t.TempDir(), "elsewhere")
	os.WriteFile(target, []byte("day = \""+dayName(now)+"\"\ncost_usd = 0.0\n"), 0o600)
	if err := os.Symlink(target, s.file(dayName(now))); err != nil {
		t.Fatal(err)
	}
	var corrupt *CorruptSpendError
	if _, err := s.Day(now); !errors.As(err, &corrupt) {
		t.Errorf("a symlink was read: %v", err)
	}
	if _, err := s.Add(now, 1, 1); !errors.As(err, &corrupt) {
		t.Errorf("Add over a symlink: %v", err)
	}
	if data, _ := os.ReadFile(target); strings.Contains(string(data), "attempts") {
		t.Errorf("the symlink's target was written: %s", data)
	}
}

// The day's token count stops at the largest int64 rather than wrapping negative, which
// would make the day's file unreadable and restart the day's count (cost included).
func TestSpendTokensDoNotWrap(t *testing.T) {
	s := Spend{Dir: filepath.Join(t.TempDir(), "spend")}
	now := time.Date(2026, 11, 23, 10, 0, 0, 0, time.Local)
	for range 2 {
		if _, err := s.Add(now, 1, math.MaxInt64); err != nil {
			t.Fatal(err)
		}
	}
	if d, err := s.Day(now); err != nil || d.Tokens != math.MaxInt64 || d.CostUSD != 2 {
		t.Errorf("the day = %+v, %v; want $2 and the largest token count", d, err)
	}
}
