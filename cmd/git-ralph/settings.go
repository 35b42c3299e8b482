package main

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/loop"
)

// setting is one resolved value and where it came from, for --dry-run.
type setting struct {
	Key    string
	Value  string
	Origin string // "flag --max", "default", …
}

// settings resolves the loop's configuration from the flags and the built-in defaults,
// remembering the origin of every value.
type settings struct {
	list []setting
}

func (s *settings) add(key, value, origin string) {
	s.list = append(s.list, setting{Key: key, Value: value, Origin: origin})
}

// resolve turns the loop flags into a loop.Config.
func (c *LoopCmd) resolve(root string) (loop.Config, *settings, error) {
	s := &settings{}
	cfg := loop.Config{Dir: root, Mode: c.Mode, Context: c.Context}
	if cfg.Mode == "" {
		cfg.Mode = defaultMode
	}
	s.add("mode", cfg.Mode, originOf(c.Mode != "", "--mode"))
	cfg.AgentCmd = c.AgentCmd
	s.add("agent_cmd", orNone(c.AgentCmd), originOf(c.AgentCmd != "", "--agent-cmd"))
	max, origin, err := c.maxIterations()
	if err != nil {
		return cfg, s, err
	}
	cfg.MaxIterations = max
	s.add("max_iterations", describeMax(max), origin)
	if c.Timeout != nil {
		if *c.Timeout <= 0 {
			return cfg, s, withHint(fmt.Errorf("--timeout must be positive, got %s", *c.Timeout), "use a duration such as 30m or 1h30m; leave it out for no timeout")
		}
		cfg.Timeout = *c.Timeout
	}
	s.add("iteration_timeout", describeTimeout(cfg.Timeout), originOf(c.Timeout != nil, "--timeout"))
	if cfg.MaxConsecutiveErrors, err = intFlag(c.MaxConsecutiveErrors, loop.DefaultMaxConsecutiveErrors, 1,
		"--max-consecutive-errors", "the loop stops after this many failed iterations in a row"); err != nil {
		return cfg, s, err
	}
	s.add("max_consecutive_errors", strconv.Itoa(cfg.MaxConsecutiveErrors), originOf(c.MaxConsecutiveErrors != nil, "--max-consecutive-errors"))
	cfg.MaxOutputBuffer = loop.DefaultMaxOutputBuffer
	if c.MaxOutputBuffer != "" {
		n, err := parseSize(c.MaxOutputBuffer)
		if err != nil {
			return cfg, s, withHint(fmt.Errorf("--max-output-buffer: %w", err), "use a size such as 10MB, 512KiB or 1048576")
		}
		cfg.MaxOutputBuffer = n
	}
	s.add("max_output_buffer", formatSize(int64(cfg.MaxOutputBuffer)), originOf(c.MaxOutputBuffer != "", "--max-output-buffer"))
	if cfg.IdleThreshold, err = intFlag(c.IdleThreshold, loop.DefaultIdleThreshold, 0,
		"--idle-threshold", "use 0 to never stop for idleness"); err != nil {
		return cfg, s, err
	}
	s.add("idle_threshold", strconv.Itoa(cfg.IdleThreshold), originOf(c.IdleThreshold != nil, "--idle-threshold"))
	cfg.Fresh = c.Fresh
	if c.Context != "" {
		s.add("context", fmt.Sprintf("%d bytes", len(c.Context)), "flag --context")
	}
	return cfg, s, nil
}

// intFlag is the value of an optional integer flag, at least min, or def when it was
// not given.
func intFlag(v *int, def, min int, flag, hint string) (int, error) {
	switch {
	case v == nil:
		return def, nil
	case *v < min && min == 0:
		return 0, withHint(fmt.Errorf("%s must not be negative, got %d", flag, *v), "%s", hint)
	case *v < min:
		return 0, withHint(fmt.Errorf("%s must be at least %d, got %d", flag, min, *v), "%s", hint)
	}
	return *v, nil
}

// maxIterations applies seed 000's precedence: --max > --unlimited > built-in 5.
func (c *LoopCmd) maxIterations() (int, string, error) {
	switch {
	case c.Max != nil && *c.Max < 1:
		return 0, "", withHint(fmt.Errorf("--max must be at least 1, got %d", *c.Max), "use --unlimited to run without a limit")
	case c.Max != nil:
		return *c.Max, "flag --max", nil
	case c.Unlimited:
		return 0, "flag --unlimited", nil
	}
	return loop.DefaultMaxIterations, "default", nil
}

func originOf(set bool, flag string) string {
	if set {
		return "flag " + flag
	}
	return "default"
}

func orNone(s string) string {
	if s == "" {
		return "(none)"
	}
	return s
}

func describeMax(max int) string {
	if max == 0 {
		return "unlimited"
	}
	return strconv.Itoa(max)
}

func describeTimeout(d time.Duration) string {
	if d == 0 {
		return "none"
	}
	return d.String()
}

// maxBuffer bounds --max-output-buffer: the buffer is allocated whole once the agent
// prints more than 64 KiB, and a promise tag is at the very end anyway.
const maxBuffer = 1 << 30

// parseSize reads a byte count such as 1048576, 512KiB, 10MB or 1GiB (KB and KiB are
// both 1024: this is a buffer size, not a disk label).
func parseSize(text string) (int, error) {
	t := strings.TrimSpace(strings.ToUpper(text))
	units := []struct {
		suffix string
		scale  int64
	}{{"GIB", 1 << 30}, {"MIB", 1 << 20}, {"KIB", 1 << 10}, {"GB", 1 << 30}, {"MB", 1 << 20}, {"KB", 1 << 10}, {"B", 1}}
	scale := int64(1)
	for _, u := range units {
		if strings.HasSuffix(t, u.suffix) {
			t, scale = strings.TrimSpace(strings.TrimSuffix(t, u.suffix)), u.scale
			break
		}
	}
	n, err := strconv.ParseInt(t, 10, 64)
	if err != nil || n < 1 || n > maxBuffer/scale {
		return 0, fmt.Errorf("invalid size %q (from 1 byte to 1GiB)", text)
	}
	return int(n * scale), nil
}

// formatSize prints a byte count for people: 10.0 MiB, 512 B.
func formatSize(n int64) string {
	switch {
	case n >= 1<<30:
		return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
	case n >= 1<<20:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	case n >= 1<<10:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	}
	return fmt.Sprintf("%d B", n)
}
