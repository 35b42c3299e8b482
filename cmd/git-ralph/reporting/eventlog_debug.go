package reporting

import (
	"context"
	"log/slog"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/loop"
)

// The debug records (log_level = "debug") say how the loop came to do what it did: which
// origin won for each setting, what each prompt was made of, what the scan of the
// agent's output found. They name sizes and sources, never a prompt's text (the history
// keeps that, redacted and bounded: `git ralph logs N --prompt`), and every record is
// redacted on its way to the file, as all of the log is.

// maxSettingValue bounds a setting's value in the debug record: a long agent_cmd is
// named, not copied out in full.
const maxSettingValue = 200

// KeepSettings hands the log the resolved settings, logged at debug when the run starts
// (then the record has the run's id, and `logs --run` finds it).
func (l *RunLog) KeepSettings(entries []config.Entry) { l.settings = entries }

func (l *RunLog) debugEnabled() bool {
	return l.log().Enabled(context.Background(), slog.LevelDebug)
}

// debugSettings logs each setting with its value and the origin that won: "5 (default)",
// "30m0s (flag --timeout)", "go test ./... (.ralph/config.toml:3)". Once per process.
func (l *RunLog) debugSettings() {
	if len(l.settings) == 0 || !l.debugEnabled() {
		return
	}
	attrs := make([]any, 0, len(l.settings))
	for _, e := range l.settings {
		attrs = append(attrs, slog.String(e.Key, bounded(e.Value, maxSettingValue)+" ("+e.Origin.String()+")"))
	}
	l.settings = nil
	l.log().Debug("settings resolved", slog.Group("settings", attrs...))
}

// promptSection is one part of a prompt in the debug record.
type promptSection struct {
	Title  string `json:"title,omitempty"`
	Source string `json:"source"`
	Bytes  int    `json:"bytes"`
}

// debugPrompt logs what an iteration's prompt was made of: its size, its sections (the
// prompt file or fragments, the task, the context, injected texts, the feedback) with
// their sources and sizes, and where the history keeps it.
func (l *RunLog) debugPrompt(e loop.IterationStarted) {
	if !l.debugEnabled() {
		return
	}
	sections := make([]promptSection, 0, len(e.Prompt.Sections))
	for _, s := range e.Prompt.Sections {
		sections = append(sections, promptSection{Title: s.Title, Source: bounded(s.Source, maxSettingValue), Bytes: s.Bytes})
	}
	args := []any{"iteration", e.Iteration, "record", e.Record, "bytes", e.Prompt.Bytes, "sections", sections}
	if e.Prompt.Kept != "" {
		args = append(args, "kept", e.Prompt.Kept)
	}
	if e.Prompt.Cut > 0 {
		args = append(args, "kept_without_bytes", e.Prompt.Cut)
	}
	l.log().Debug("prompt assembled", args...)
}

// debugScan logs what the scan of the agent's output found: the promise tags, the
// agent's own error, the limits and transient errors it ran into, the model and usage.
func (l *RunLog) debugScan(e loop.IterationFinished) {
	if !l.debugEnabled() {
		return
	}
	r := e.Record
	promise := string(e.Promise)
	if promise == "" {
		promise = "none"
	}
	l.log().Debug("output scanned", present("iteration", e.Iteration, "record", r.Iteration, "promise", promise,
		"agent_error", bounded(r.Error, maxSettingValue), "limit_waits", r.RateLimitWaits, "retries", r.Retries,
		"overage", r.Overage, "model", r.Model, "input_tokens", r.InputTokens, "output_tokens", r.OutputTokens,
		"cost_usd", r.CostUSD)...)
}

// bounded is s cut to at most n bytes (at a character's start), with "…" when cut.
func bounded(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
