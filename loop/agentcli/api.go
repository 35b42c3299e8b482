package agentcli

import (
	"encoding/json"
	"time"
)

// apiRecord is the union of the fields of an API agent's exchange lines that reading
// and rendering use (loop/apiagent's Record, which this package cannot import).
type apiRecord struct {
	Turn      int             `json:"turn"`
	Model     string          `json:"model"`
	Protocol  string          `json:"protocol"`
	BaseURL   string          `json:"base_url"`
	Text      string          `json:"text"`
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Input     json.RawMessage `json:"input"`
	Output    string          `json:"output"`
	IsError   bool            `json:"is_error"`
	Usage     *apiUsage       `json:"usage"`
	Kind      string          `json:"kind"`
	Status    int             `json:"status"`
	Message   string          `json:"message"`
	ResetAt   *time.Time      `json:"reset_at"`
	Permanent bool            `json:"permanent"`
	Attempt   int             `json:"attempt"`
	WaitMS    int64           `json:"wait_ms"`
	Turns     int             `json:"turns"`
	CostUSD   *float64        `json:"cost_usd"`
}

// apiUsage is the tokens of a turn or of the iteration: the four counts apart (the
// input without the cache), as apiagent's Usage.
type apiUsage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_tokens"`
	CacheWrite int64 `json:"cache_write_tokens"`
}

func (u apiUsage) usage(model string) Usage {
	return Usage{InputTokens: u.Input, OutputTokens: u.Output, CacheReadTokens: u.CacheRead,
		CacheWriteTokens: u.CacheWrite, Model: model}
}

// apiEvent reads one line of an API agent's exchange: the model's words (never its
// thinking, nor a tool's result, nor the prompt), the iteration's usage at its end, and
// its failure by the kind apiagent gave it. The loop reads a live iteration from
// apiagent's Result instead; this reads a saved or replayed exchange the same way.
func (r *reading) apiEvent(typ string, line []byte) {
	var e apiRecord
	if json.Unmarshal(line, &e) != nil {
		return
	}
	switch typ {
	case "start":
		r.rep.Usage.Model = e.Model
	case "text":
		r.say(e.Text)
	case "retry":
		r.retrying(e.Message)
	case "error":
		r.apiError(e)
	case "end":
		r.ended, r.completed = true, r.rep.Fatal == "" && r.rep.Limit == nil && r.rep.Transient == "" && !r.rep.IsError
		if e.Usage != nil {
			r.rep.Usage = e.Usage.usage(r.rep.Usage.Model)
		}
		if e.CostUSD != nil && *e.CostUSD >= 0 && *e.CostUSD <= maxExchangeCost {
			r.rep.Usage.CostUSD, r.rep.Usage.HasCost = *e.CostUSD, true
		}
	}
}

// maxExchangeCost bounds the cost an exchange may state (a saved or replayed one is read
// as untrusted): above it, the cost is unknown.
const maxExchangeCost = 1_000_000

// apiError records the iteration's failure as apiagent classified it: a limit, a
// transient or a fatal error; the others (context full, timeout, too many turns,
// interrupted) are errors that neither wait nor retry.
func (r *reading) apiError(e apiRecord) {
	r.rep.IsError = true
	if r.resultErr == "" {
		r.resultErr = e.Message
	}
	switch e.Kind {
	case "limit":
		var at time.Time
		if e.ResetAt != nil {
			at = *e.ResetAt
		}
		r.rep.Limit = &Limit{Message: e.Message, ResetAt: at, Permanent: e.Permanent}
	case "transient":
		r.transient(e.Message)
	case "fatal":
		r.fatal(e.Message)
	}
}
