package agentcli

import (
	"time"
	"unsafe"
)

// Report is what one run of an agent printed, as far as the loop cares. At most one of
// Limit, Transient and Fatal is set: Fatal wins over Limit, which wins over Transient.
type Report struct {
	// Said is the agent's own words: its assistant messages and its final result text,
	// joined by newlines; never its tool calls, the tool results or file contents it was
	// shown, nor the prompt when the CLI echoes it as a user event. Promise tags are
	// looked for here only. For plain text (Format Text, ReadText, or a structured
	// preset whose output had no structured line at all) it is the whole output, from
	// which the caller removes any echo of the prompt.
	Said string
	// Final is the agent's last words: its last message (the final result) in a
	// structured format, the whole output in plain text (whose end is what a caller
	// compares). The stagnation check compares it with the previous iteration's.
	Final string
	// Structured is true when at least one line parsed as the preset's structured format.
	Structured bool
	// Limit is set when a usage or rate limit stopped the run.
	Limit *Limit
	// Transient is set, to the agent's message, when the run failed in a way that a quick
	// retry may fix: overloaded (529), a 5xx, a dropped connection.
	Transient string
	// Fatal is set, to the agent's message, when waiting or retrying cannot help: not
	// logged in, no auth method, a bad API key, the root refusal, an option the CLI does
	// not know, the program not found (exit 127).
	Fatal string
	// Usage is the tokens and cost the agent reported.
	Usage Usage
	// IsError is true when the agent's own result says the run failed (claude's
	// result.is_error, codex's turn.failed, gemini's result status "error", …).
	IsError bool
	// Error is the agent's own words about why the run failed: the fatal, limit or
	// transient message, the error its final result carries, or, for a plain-text run
	// that failed, its last lines. "" when the run did not fail.
	Error string
	// Hint says how to fix a Fatal error, where the CLI's own message does not
	// (claude's root refusal, gemini's refused API key); "" otherwise.
	Hint string
	// Overage is true when the agent said it was served on paid extra usage past its
	// plan's limit (claude's rate_limit_event with isUsingOverage): information about
	// what the run costs, not a limit.
	Overage bool
	// Account is what the CLI said about the account or credential it ran on (claude's
	// init apiKeySource: "login", "ANTHROPIC_API_KEY"); "" when it said nothing. Loops
	// share a usage limit's wait only with loops of the same agent and account.
	Account string
	// OverageUntil is when the plan's own window resets, as the overage event states it
	// (zero when it does not): stop_on_overage waits for it.
	OverageUntil time.Time
}

// Limit is a usage or rate limit the agent hit.
type Limit struct {
	Message string    // the agent's own words about it
	ResetAt time.Time // when it resets, as the agent stated it; zero when it did not
	// Permanent is true when waiting will not clear it soon: a monthly plan or spend cap,
	// no credits or quota left, access disabled by an admin, Claude API's "You have
	// reached your specified API usage limits", cursor's monthly usage limit. The loop
	// stops instead of waiting.
	Permanent bool
}

// Usage is what the agent reported it consumed. Counts are the agent's own: Claude's
// input tokens exclude cache reads, while Codex's and Gemini's include them
// (CachedInInput). Zero when not reported; cursor-agent and copilot report no tokens at
// all. "Tokens", wherever git-ralph counts them, are input + output: the cache is never
// added to them, since for codex and gemini it is in the input already.
type Usage struct {
	InputTokens      int64
	OutputTokens     int64
	CacheReadTokens  int64
	CacheWriteTokens int64
	// CachedInInput is true when CacheReadTokens are a part of InputTokens (codex,
	// gemini: the OpenAI and Gemini APIs count them so), false when they are apart
	// (claude, opencode).
	CachedInInput bool
	// CostUSD is the cost the agent reported. For a subscription (Claude Pro/Max) it is
	// what the same tokens would cost on the API, not money spent.
	CostUSD float64
	HasCost bool   // the agent reported a cost (possibly 0)
	Model   string // the model it ran, when it said
}

// Read reads one run's output (stdout and stderr as captured together) with p's format.
// exitCode is the program's exit status; now is the time the run ended, against which
// relative reset times ("try again in 2 hours") are read.
func (p Preset) Read(output []byte, exitCode int, now time.Time) Report {
	r := newReading(output, now)
	if handle, ok := handlers[p.Format]; ok {
		r.structured(handle)
	}
	return r.finish(exitCode)
}

// ReadText reads the output of a custom command (--agent-cmd with no preset) as plain
// text: Said is the whole output, and limits and errors are recognised in its last 30
// non-empty lines only, so that file contents printed earlier cannot trigger them, and
// only when the command failed. A command that exits 0 did its work as far as anyone
// can tell, whatever the test output it printed last says ("bash: x: command not
// found", "rate limit exceeded"); unlike aider, whose preset reads its output whatever
// its exit code, since aider exits 0 after fatal API errors (Aider-AI/aider#5552).
//
// Usage comes from the command's ralph_usage lines (see UsageKey), whatever its exit code.
//
// Said and Final share output's memory instead of copying it, so output must not change
// afterwards: it is an agent's kept output (up to max_output_buffer, 10 MiB by default),
// which nothing writes once the agent has ended, and a copy would double what git-ralph
// holds of a chatty agent's output (its peak memory, measured in bench/capture.sh).
func ReadText(output []byte, exitCode int, now time.Time) Report {
	said := unsafe.String(unsafe.SliceData(output), len(output))
	rep := Report{Said: said, Final: said}
	if exitCode != 0 {
		rep = Preset{Format: Text}.Read(output, exitCode, now)
	}
	rep.Usage, _ = UsageLines(output)
	return rep
}
