package reporting

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/fielderr"
	"github.com/git-ralph/git-ralph/history"
)

// LogLevels are the levels of the structured log, lowest first.
var LogLevels = []string{"debug", "info", "warn", "error"}

// CheckLevel refuses a --level that is not a level of the log, with the one meant.
func CheckLevel(level string) error {
	if level == "" || slices.Contains(LogLevels, level) {
		return nil
	}
	hint := "use one of: " + strings.Join(LogLevels, ", ")
	if near := nearLevel(level); near != "" {
		hint = "did you mean " + near + "? " + hint
	}
	return hints.Wrap(fmt.Errorf("--level: want one of %s, got %q", strings.Join(LogLevels, ", "), level), "%s", hint)
}

// nearLevel is the level a misspelt one means: the nearest by edit distance, else the one
// it begins with ("warning", "errors").
func nearLevel(level string) string {
	if near := fielderr.Suggest(level, LogLevels); near != "" {
		return near
	}
	for _, l := range LogLevels {
		if strings.HasPrefix(strings.ToLower(level), l) {
			return l
		}
	}
	return ""
}

// LogOptions are what `logs` asks of the structured log: its records as they are (JSON)
// or formatted, which, the last Lines of them (0: all), and whether to follow it.
type LogOptions struct {
	JSON   bool
	Filter LogFilter
	Lines  int
	Follow bool
}

// PrintLog prints the structured log, its rotated files first, then follows it if asked;
// stderr says there is none yet.
func PrintLog(ctx context.Context, stdout, stderr io.Writer, root string, c LogOptions) error {
	path := history.LogPath(root)
	files := history.LogFiles(path)
	if len(files) == 0 {
		fmt.Fprintf(stderr, "no log yet in %s; it starts with the first 'git ralph loop'\n", filepath.Join(history.LogsDir, history.LogFile))
		if !c.Follow {
			return nil
		}
	}
	p := NewLinePrinter(stdout, LogLine(c.JSON, c.Filter, time.Local), c.Lines)
	for _, file := range files {
		if file == path && c.Follow {
			break // read by the tail below, which keeps reading it
		}
		if err := ReadLog(file, p.Add); err != nil {
			return err
		}
	}
	if !c.Follow {
		return p.Flush()
	}
	live := NewLogTail(path)
	defer live.Close()
	if err := live.Poll(p.Add); err != nil {
		return err
	}
	if err := p.Flush(); err != nil {
		return err
	}
	return EveryTick(ctx, func() (bool, error) { return false, live.Poll(p.Add) })
}
