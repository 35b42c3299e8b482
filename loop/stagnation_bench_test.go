//go:build unix

package loop

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/idle"
)

// benchOutputs writes two 10,000-line validation outputs, as a verbose test run prints
// them, to files: the second run differs in its timings and in every lines-th line
// (0: none). It returns their paths.
func benchOutputs(b *testing.B, every int) (string, string) {
	dir := b.TempDir()
	write := func(name string, run int) string {
		var s strings.Builder
		for i := range 9997 {
			changed := ""
			if run == 2 && every > 0 && i%every == 0 {
				changed = "_changed"
			}
			fmt.Fprintf(&s, "--- PASS: TestCase/%s_%x%s (0.%02ds)\n", []string{"alpha", "bravo", "charlie", "delta"}[i%4], i*7919, changed, (i+run)%100)
		}
		s.WriteString("--- FAIL: TestParse (0.01s)\n    parse_test.go:12: got 3, want 4\nFAIL\n")
		path := filepath.Join(dir, name)
		if err := os.WriteFile(path, []byte(s.String()), 0o644); err != nil {
			b.Fatal(err)
		}
		return path
	}
	return write("validation-1.log", 1), write("validation-2.log", 2)
}

func readBoth(b *testing.B, a, c string) (string, string) {
	x, err := os.ReadFile(a)
	if err != nil {
		b.Fatal(err)
	}
	y, err := os.ReadFile(c)
	if err != nil {
		b.Fatal(err)
	}
	return string(x), string(y)
}

// BenchmarkStagnationCheck measures, in one run: reading two 10,000-line validation
// outputs (the baseline); reading them and cutting the tails the loop keeps for the next
// prompt (what validation costs already, check or no check: the last 64 KiB the output
// buffer holds, then its last 60 lines); the same plus the stagnation
// check as the loop makes it (the tails and the agent's final messages compared with the
// previous iteration's); the check alone; and the whole outputs compared line by line,
// within the comparison's time bound.
//
//	go test ./loop -run '^$' -bench StagnationCheck -benchtime 20x
//
// Each reports, besides the wall time (which a loaded machine stretches), the CPU time
// the process spent per operation (cpu-ms/op, from getrusage: garbage collection included).
func BenchmarkStagnationCheck(b *testing.B) {
	for _, c := range []struct {
		name  string
		every int
	}{{"same-failure", 0}, {"one-line-in-100-changed", 100}, {"every-other-line-changed", 2}} {
		first, second := benchOutputs(b, c.every)
		b.Run(c.name+"/read", func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				readBoth(b, first, second)
			}
		})
		b.Run(c.name+"/read+tail", func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				x, y := readBoth(b, first, second)
				kept(x)
				kept(y)
			}
		})
		b.Run(c.name+"/read+tail+check", func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				x, y := readBoth(b, first, second)
				checkTwo(kept(x), kept(y))
			}
		})
		x, y := readBoth(b, first, second)
		tx, ty := kept(x), kept(y)
		b.Run(c.name+"/check-alone", func(b *testing.B) {
			defer cpuPerOp(b)()
			for b.Loop() {
				checkTwo(tx, ty)
			}
		})
		b.Run(c.name+"/read+compare-whole-10000-lines", func(b *testing.B) {
			coarse, percent := 0, 0
			defer cpuPerOp(b)()
			for b.Loop() {
				x, y := readBoth(b, first, second)
				l := idle.Similarity(x, y, idle.DefaultCompareTimeout)
				percent = l.Percent
				if l.Coarse {
					coarse++
				}
			}
			b.ReportMetric(float64(percent), "percent")
			b.ReportMetric(float64(coarse)/float64(b.N), "coarse/op")
		})
	}
}

// cpuPerOp starts counting the process's CPU time; the function it returns reports it
// per operation of b.
func cpuPerOp(b *testing.B) func() {
	cpu := func() time.Duration {
		var u syscall.Rusage
		if err := syscall.Getrusage(syscall.RUSAGE_SELF, &u); err != nil {
			b.Fatal(err)
		}
		return time.Duration(u.Utime.Nano() + u.Stime.Nano())
	}
	start := cpu()
	return func() {
		b.ReportMetric(float64(cpu()-start)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
	}
}

// kept is the tail of a validation output that the loop keeps for the next prompt: the
// validate command's last validationKept bytes (its output buffer), cut by tailLines.
func kept(output string) string {
	return tailLines(output[max(0, len(output)-validationKept):], feedbackLines, feedbackBytes)
}

// checkTwo is the stagnation check of two iterations whose validation kept tails x and y.
func checkTwo(x, y string) idle.Repetition {
	s := idle.Stagnation{Threshold: DefaultStagnationThreshold, Similarity: DefaultStagnationSimilarity}
	msg := finalWords("I fixed the off-by-one in parse.\nThe tests should pass now.", "")
	s.Observe(idle.Iteration{Before: gitops.Checkpoint{Tree: "a"}, After: gitops.Checkpoint{Tree: "b"}, Message: msg,
		Failure: Validation{Ran: true, ExitCode: 1, Tail: x}.failure()})
	return s.Observe(idle.Iteration{Before: gitops.Checkpoint{Tree: "b"}, After: gitops.Checkpoint{Tree: "c"}, Message: msg,
		Failure: Validation{Ran: true, ExitCode: 1, Tail: y}.failure()})
}
