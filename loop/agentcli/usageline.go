package agentcli

import (
	"bytes"
	"encoding/json"
	"math"
)

// UsageKey names the one-line JSON record by which a custom command (agent_cmd with no
// preset) reports what it consumed, so that budgets work for it too:
//
//	{"ralph_usage":{"input_tokens":1200,"output_tokens":340,"cost_usd":0.0123}}
//
// on a line of its own, anywhere in its output (stdout or stderr). Every field is
// optional: cost_usd (US dollars), input_tokens, output_tokens, cache_read_tokens,
// cache_write_tokens and model. Each such line adds to the run's usage: print one per
// model call, or one total at the end, not both. The lines are summed rather than the
// last one taken so that a line the agent merely shows (a file it reads, a test's
// output) can only add to the spend, never lower it. A line with another key beside
// ralph_usage, an unknown field, or a negative, non-finite or absurd number (a cost past
// $1,000,000, a count past maxUsageTokens) is ignored.
//
// Presets never read it: their own output format is authoritative, and what an agent's
// tools print must not change the figures the CLI reports.
const UsageKey = "ralph_usage"

// usageRecord is the record's JSON form.
type usageRecord struct {
	Usage *struct {
		InputTokens      int64    `json:"input_tokens"`
		OutputTokens     int64    `json:"output_tokens"`
		CacheReadTokens  int64    `json:"cache_read_tokens"`
		CacheWriteTokens int64    `json:"cache_write_tokens"`
		CostUSD          *float64 `json:"cost_usd"`
		Model            string   `json:"model"`
	} `json:"ralph_usage"`
}

// maxUsageLine bounds the lines considered: a real record is well under 300 bytes.
const maxUsageLine = 1024

// maxUsageTokens bounds each count of one record: far past any real call, and low
// enough that the records a 1 GiB output can hold never sum past int64 and wrap around
// to a negative count, which would lower the spend.
const maxUsageTokens = 100_000_000_000

// UsageLines sums the ralph_usage records in a custom command's output; ok is false when
// there is none.
func UsageLines(output []byte) (u Usage, ok bool) {
	prefix := []byte(`{"` + UsageKey + `"`)
	for line := range bytes.Lines(output) {
		line = bytes.TrimSpace(line)
		if len(line) > maxUsageLine || !bytes.HasPrefix(line, prefix) {
			continue
		}
		rec, good := parseUsageLine(line)
		if !good {
			continue
		}
		u.InputTokens += rec.InputTokens
		u.OutputTokens += rec.OutputTokens
		u.CacheReadTokens += rec.CacheReadTokens
		u.CacheWriteTokens += rec.CacheWriteTokens
		if rec.HasCost {
			u.CostUSD, u.HasCost = u.CostUSD+rec.CostUSD, true
		}
		if rec.Model != "" {
			u.Model = rec.Model
		}
		ok = true
	}
	return u, ok
}

// parseUsageLine reads one record strictly: only ralph_usage, only known fields, no
// negative, non-finite or absurd figures, nothing after the object.
func parseUsageLine(line []byte) (Usage, bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.DisallowUnknownFields()
	var rec usageRecord
	if dec.Decode(&rec) != nil || rec.Usage == nil || dec.More() {
		return Usage{}, false
	}
	r := rec.Usage
	for _, n := range []int64{r.InputTokens, r.OutputTokens, r.CacheReadTokens, r.CacheWriteTokens} {
		if n < 0 || n > maxUsageTokens {
			return Usage{}, false
		}
	}
	u := Usage{InputTokens: r.InputTokens, OutputTokens: r.OutputTokens, CacheReadTokens: r.CacheReadTokens,
		CacheWriteTokens: r.CacheWriteTokens, Model: r.Model}
	if r.CostUSD != nil {
		if c := *r.CostUSD; math.IsNaN(c) || math.IsInf(c, 0) || c < 0 || c > 1e6 {
			return Usage{}, false
		}
		u.CostUSD, u.HasCost = *r.CostUSD, true
	}
	return u, true
}

// presetUsage is what each preset's output says of its usage (see docs/guide/agents.md):
// tokens, and a cost in US dollars.
var presetUsage = map[string]struct{ tokens, cost bool }{
	"claude": {true, true}, "opencode": {true, true}, "pi": {true, true},
	"codex": {true, false}, "gemini": {true, false}, "amp": {true, false}, "qwen": {true, false},
	// aider and kiro-cli print plain text, cursor-agent's and copilot's events carry no usage
}

// ReportsUsage says whether the preset's output carries token counts and a cost, so that
// a loop with a budget its agent cannot meter says so before it starts.
//
// An in-process agent's tokens are counted by git-ralph itself; its cost depends on the
// model's price, which the loop knows, not the preset: false here.
func (p Preset) ReportsUsage() (tokens, cost bool) {
	if p.InProcess() {
		return true, false
	}
	u := presetUsage[p.Name]
	return u.tokens, u.cost
}
