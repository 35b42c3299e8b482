package apiagent

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// exchangeScenarios are iterations whose exchanges loop/agentcli's reader and renderer
// are tested on (testdata/recorded/api there): a task done with every tool on each
// protocol, and each kind of failure the loop acts on.
func exchangeScenarios() map[string]struct {
	proto string
	steps []step
} {
	return map[string]struct {
		proto string
		steps []step
	}{
		"anthropic-every-tool": {Anthropic, everyTool()},
		"responses-every-tool": {Responses, everyTool()},
		"chat-every-tool":      {Chat, everyTool()},
		"anthropic-limit":      {Anthropic, []step{{status: 429, headers: map[string]string{"retry-after": "120"}, body: anthropicRateLimit}}},
		"responses-quota":      {Responses, []step{{status: 429, body: openAIQuota}}},
		"chat-bad-key":         {Chat, []step{{status: 401, body: `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`}}},
		"responses-server-errors": {Responses, []step{{status: 500, body: openAIServer}, {status: 502, body: "bad gateway"},
			{status: 503, body: "unavailable"}, {status: 503, body: "unavailable"}}},
		"chat-context-full": {Chat, []step{{status: 400, body: llamaContext}}},
	}
}

// The exchange's lines, read by loop/agentcli as a saved or replayed output is, say what
// Run's Result says: the model's words, the usage, the failure and its kind. So a replay
// of an API agent and the live run it recorded lead the loop to the same decisions.
// RECORD_EXCHANGES=1 rewrites the recorded exchanges the renderer's goldens come from.
func TestExchangeReadAsTheRunReported(t *testing.T) {
	at := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	timeNow = func() time.Time { return at }
	t.Cleanup(func() { timeNow = time.Now })
	dir := filepath.Join("..", "agentcli", "testdata", "recorded", "api")
	for name, sc := range exchangeScenarios() {
		t.Run(name, func(t *testing.T) {
			m := newMock(t, sc.proto, sc.steps...)
			price := &Price{Input: 3, Output: 15, CacheRead: 0.3, CacheWrite: 3.75}
			res, _, _, text := runMock(t, m, gittest.NewRepo(t), func(r *Request) {
				if sc.steps[0].status == 0 { // a success has a known price; a failure here none
					r.Price = price
				}
			})
			if sc.steps[0].status == 0 && (!res.HasCost || res.CostUSD <= 0) {
				t.Errorf("a priced iteration has no cost: %+v", res)
			}
			if os.Getenv("RECORD_EXCHANGES") == "1" {
				os.MkdirAll(dir, 0o755)
				if err := os.WriteFile(filepath.Join(dir, name+".out"), []byte(text), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want := res.Report()
			got := agentcli.Preset{Format: agentcli.APIExchange}.Read([]byte(text), exitOf(res), at)
			got.Error, got.Hint = want.Error, want.Hint // the CLI's words about the failure: Report's own
			if !reflect.DeepEqual(got, want) {
				t.Errorf("the exchange reads as\n%+v\nRun reported\n%+v", got, want)
			}
		})
	}
}

// exitOf is the exit status the loop gives an in-process iteration.
func exitOf(res Result) int {
	if res.Err != nil {
		return 1
	}
	return 0
}

// Each in-process preset of loop/agentcli names a protocol Run speaks, reads the key and
// the base URL from its vendor's variables, and reads the exchange's format.
func TestPresetsSpeakTheseProtocols(t *testing.T) {
	want := map[string][3]string{
		"anthropic-api": {Anthropic, "ANTHROPIC_API_KEY", "ANTHROPIC_BASE_URL"},
		"openai-api":    {Responses, "OPENAI_API_KEY", "OPENAI_BASE_URL"},
		"openai-chat":   {Chat, "OPENAI_API_KEY", "OPENAI_BASE_URL"},
	}
	seen := 0
	for _, name := range agentcli.Names() {
		p, _ := agentcli.Lookup(name)
		if !p.InProcess() {
			continue
		}
		seen++
		w, ok := want[name]
		if !ok || p.API.Protocol != w[0] || p.API.KeyEnv != w[1] || p.API.BaseEnv != w[2] || p.Format != agentcli.APIExchange {
			t.Errorf("%s: %+v, format %s", name, *p.API, p.Format)
		}
		if _, ok := newProtocol(p.API.Protocol); !ok {
			t.Errorf("%s: Run does not speak %q", name, p.API.Protocol)
		}
	}
	if seen != len(want) {
		t.Errorf("%d in-process presets, want %d", seen, len(want))
	}
}
