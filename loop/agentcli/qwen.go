package agentcli

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// qwenEvent reads one event of qwen-code's `--output-format stream-json`, which has
// Claude Code's shape (system/init, assistant, user, result), read by claudeEvent, with
// two differences of its own (0.24):
//   - a failed run's result has no result text, and its error is an object,
//     {"error":{"message":"[API Error: 401 …]"}} or "No auth type is selected…", which is
//     then how the run ended;
//   - its retries are system events of subtype "retry" ({data:{attempt, maxRetries,
//     delayMs}}), with the provider's words only on stderr ("Retrying in 60s (attempt
//     1/10): [API Error: 429 …]"), where the text fallback finds them when the run never
//     ended.
func (r *reading) qwenEvent(typ string, line []byte) {
	r.claudeEvent(typ, line)
	var e struct {
		Subtype string          `json:"subtype"`
		IsError bool            `json:"is_error"`
		Result  string          `json:"result"`
		Error   json.RawMessage `json:"error"`
		Data    struct {
			Attempt    int   `json:"attempt"`
			MaxRetries int   `json:"maxRetries"`
			DelayMs    int64 `json:"delayMs"`
		} `json:"data"`
	}
	if json.Unmarshal(line, &e) != nil {
		return
	}
	switch {
	case typ == "system" && e.Subtype == "retry" && e.Data.Attempt > 0:
		r.retrying(fmt.Sprintf("qwen-code is retrying the request: attempt %d of %d in %d ms",
			e.Data.Attempt, e.Data.MaxRetries, e.Data.DelayMs))
	case typ == "result" && e.IsError && strings.TrimSpace(e.Result) == "":
		msg := jsonString(e.Error)
		if msg == "" {
			return
		}
		if r.failedWith(msg) == noKind && qwenNoAuth.MatchString(msg) {
			r.fatal(msg)
		}
	}
}

// qwenNoAuth is qwen-code's refusal to run headless with no auth type configured ("No
// auth type is selected. Please configure an auth type (e.g. via settings or
// `--auth-type`) before running in non-interactive mode."): waiting will not help.
var qwenNoAuth = lazyregexp.New(`(?i)\bno auth type is selected\b`)
