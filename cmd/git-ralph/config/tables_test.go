package config

import (
	"errors"
	"reflect"
	"strings"
	"testing"
	"time"
)

func TestPrompts(t *testing.T) {
	user := "prompts = [\"a.md\", \"b.md\"]\n"
	repo := "[modes.plan]\nprompt = \"plan.md\"\n"
	c := fixture{user: user, repo: repo}.mustLoad(t)
	if !reflect.DeepEqual(c.Prompts.V, []string{"a.md", "b.md"}) || c.Prompts.Origin.String() != userDisplay+":1" {
		t.Errorf("build: prompts %q from %s", c.Prompts.V, c.Prompts.Origin)
	}
	c = fixture{user: user, repo: repo, flags: []Flag{{Key: "mode", Name: "--mode", Raw: "plan"}}}.mustLoad(t)
	if !reflect.DeepEqual(c.Prompts.V, []string{"plan.md"}) || c.Prompts.Origin.String() != ".ralph/config.toml:2 [modes.plan]" {
		t.Errorf("plan: prompts %q from %s", c.Prompts.V, c.Prompts.Origin)
	}
	c = fixture{user: "prompt = \"/home/me/prompts/mine.md\"\n"}.mustLoad(t)
	if !reflect.DeepEqual(c.Prompts.V, []string{"/home/me/prompts/mine.md"}) {
		t.Errorf("the user file may name any path; got %q", c.Prompts.V)
	}
}

func TestTablesAndDottedKeysKeepTheirLines(t *testing.T) {
	dotted := "# comment\nmodes.plan.max_iterations = 3\n[modes.fix]\n\nidle_threshold = 1\n"
	inline := "\nmodes = { review = { validate = \"lint\",\n  max_iterations = 4 } }\n"
	tests := []struct {
		repo, mode, origin string
	}{
		{dotted, "plan", ".ralph/config.toml:2 [modes.plan]"},
		{dotted, "fix", "default"},
		{inline, "review", ".ralph/config.toml:3 [modes.review]"},
	}
	for _, tt := range tests {
		t.Run(tt.mode, func(t *testing.T) {
			c := fixture{repo: tt.repo, flags: []Flag{{Key: "mode", Name: "--mode", Raw: tt.mode}}}.mustLoad(t)
			if c.MaxIterations.Origin.String() != tt.origin {
				t.Errorf("max_iterations from %s, want %s", c.MaxIterations.Origin, tt.origin)
			}
		})
	}
	c := fixture{repo: dotted, flags: []Flag{{Key: "mode", Name: "--mode", Raw: "fix"}}}.mustLoad(t)
	if c.IdleThreshold.Origin.String() != ".ralph/config.toml:5 [modes.fix]" {
		t.Errorf("idle_threshold from %s", c.IdleThreshold.Origin)
	}
}

func TestAgentsAndHooks(t *testing.T) {
	user := `[agents.claude]
program = "/opt/claude"
extra_args = ["--model", "sonnet"]
[agents.codex]
args = []
[hooks]
on_complete = "notify-send user"
timeout = "1m"
`
	repo := `[agents.claude]
extra_args = ["--model", "opus"]
[hooks]
on_failure = "notify-send failed"
`
	c := fixture{user: user, repo: repo}.mustLoad(t)
	claude, codex := c.Agents["claude"], c.Agents["codex"]
	if claude.Program.V != "/opt/claude" || claude.Program.Origin.String() != userDisplay+":2" ||
		!reflect.DeepEqual(claude.ExtraArgs.V, []string{"--model", "opus"}) || claude.ExtraArgs.Origin.String() != ".ralph/config.toml:2" ||
		claude.ArgsSet || claude.Args.V != nil {
		t.Errorf("claude = %+v", claude)
	}
	if !codex.ArgsSet || codex.Args.V == nil || len(codex.Args.V) != 0 {
		t.Errorf("codex = %+v, want args set to none", codex)
	}
	h := c.Hooks
	if h.OnComplete.V != "notify-send user" || h.OnFailure.Origin.String() != ".ralph/config.toml:4" ||
		h.Timeout.V != time.Minute || h.OnLimit.Origin.Kind != FromDefault {
		t.Errorf("hooks = %+v", h)
	}
	var keys []string
	for _, e := range c.Entries() {
		if strings.HasPrefix(e.Key, "agents.") {
			keys = append(keys, e.Key+"="+e.Value)
		}
	}
	want := []string{`agents.claude.program=/opt/claude`, `agents.claude.extra_args=["--model","opus"]`, `agents.codex.args=[]`}
	if !reflect.DeepEqual(keys, want) {
		t.Errorf("agent entries %q, want %q", keys, want)
	}
}

func TestRepoCommands(t *testing.T) {
	repo := `agent_cmd = "evil"
validate = "make check"
push = true
remote = "fork"
max_iterations = 3
prompt = "PROMPT_x.md"
[modes.plan]
validate = "plan-check"
branch = "wip"
[agents.claude]
args = ["-p", "x y"]
program = "claude2"
[hooks]
on_complete = "notify"
timeout = "5s"
`
	c := fixture{user: "validate = \"user's own\"\n", repo: repo,
		flags: []Flag{{Key: "agent_cmd", Name: "--agent-cmd", Raw: "mine"}}}.mustLoad(t)
	want := map[string]string{
		"agent_cmd": "evil", "validate": "make check", "push": "true", "remote": "fork",
		"modes.plan.validate": "plan-check", "modes.plan.branch": "wip",
		"agents.claude.args": `["-p","x y"]`, "agents.claude.program": "claude2", "hooks.on_complete": "notify",
	}
	if got := c.RepoCommands(); !reflect.DeepEqual(got, want) {
		t.Errorf("RepoCommands() = %v\nwant %v", got, want)
	}
	if c := (fixture{user: "validate = \"x\"\n", repo: "max_iterations = 2\n"}).mustLoad(t); c.RepoCommands() != nil {
		t.Errorf("RepoCommands() = %v, want nil", c.RepoCommands())
	}
}

// A repository's config may choose an API agent's model, but where the prompt and the
// code go (api_base) and which key goes with them (api_key_env) are commands to trust:
// run nothing until the user approves them. Bad values are refused with the file's line.
func TestAPIAgentSettingsOfARepository(t *testing.T) {
	repo := "model = \"m\"\napi_base = \"https://elsewhere.example/v1\"\napi_key_env = \"AWS_SECRET_ACCESS_KEY\"\n"
	c := fixture{repo: repo}.mustLoad(t)
	want := map[string]string{"api_base": "https://elsewhere.example/v1", "api_key_env": "AWS_SECRET_ACCESS_KEY"}
	if got := c.RepoCommands(); !reflect.DeepEqual(got, want) {
		t.Errorf("RepoCommands() = %v, want %v", got, want)
	}
	for _, bad := range []struct{ line, want string }{
		{`api_base = "ftp://x"`, "want an http or https URL"},
		{`api_base = "127.0.0.1:11434"`, "want an http or https URL"},
		{`api_key_env = "sk-ant-123 456"`, "want an environment variable's name"},
	} {
		_, err := fixture{repo: "model = \"m\"\n" + bad.line + "\n"}.load(t)
		if err == nil || !strings.Contains(err.Error(), bad.want) || !strings.Contains(err.Error(), ":2:") {
			t.Errorf("%s: err = %v, want %q at line 2", bad.line, err, bad.want)
		}
		if err != nil && strings.Contains(err.Error(), "sk-ant") {
			t.Errorf("%s: the error repeats what may be a key: %v", bad.line, err)
		}
	}
}

// Prices decide what a budget counts: the user's file may set a model's, a repository's
// may not (its error names the line and the way out); a bad price is refused.
func TestPricesTable(t *testing.T) {
	c := fixture{user: "[prices.\"qwen2.5-coder\"]\ninput = 0.5\noutput = 1.5\n"}.mustLoad(t)
	p, ok := c.Prices["qwen2.5-coder"]
	if !ok || p.Input != 0.5 || p.Output != 1.5 || p.CacheRead != 0 || p.Origin.Line != 1 {
		t.Errorf("prices = %+v", c.Prices)
	}
	if c := (fixture{user: "[prices.\"qwen2.5-coder\"]\n"}).mustLoad(t); c.Prices["qwen2.5-coder"] != (ModelPrice{Origin: c.Prices["qwen2.5-coder"].Origin}) ||
		len(c.Prices) != 1 {
		t.Errorf("an empty [prices.MODEL] is not a free model: %+v", c.Prices)
	}
	_, err := fixture{repo: "model = \"m\"\n[prices.m]\ninput = 0\n"}.load(t)
	if err == nil || !strings.Contains(err.Error(), ":2:") || !strings.Contains(err.Error(), "may not set prices") {
		t.Errorf("a repository's prices: err = %v", err)
	}
	_, err = fixture{user: "[prices.m]\ninput = -1\n"}.load(t)
	if err == nil || !strings.Contains(err.Error(), "prices.m.input") {
		t.Errorf("a negative price: err = %v", err)
	}
	_, err = fixture{user: "[prices.m]\ninptu = 1\n"}.load(t)
	var h interface{ Hint() string }
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "input") {
		t.Errorf("a misspelt key: err = %v, no hint naming input", err)
	}
}
