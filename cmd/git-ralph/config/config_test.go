package config

import (
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"
)

// fixture is the input of one Load: file contents ("" = no file), env and flags.
type fixture struct {
	user, repo string
	env        []string
	flags      []Flag
}

const userDisplay = "~/.config/git-ralph/config.toml"

func (f fixture) load(t *testing.T) (*Config, error) {
	t.Helper()
	dir := t.TempDir()
	home := filepath.Join(dir, "home")
	root := filepath.Join(dir, "repo")
	env := append([]string{"HOME=" + home}, f.env...)
	if f.repo != "" {
		writeFile(t, filepath.Join(root, ".ralph", "config.toml"), f.repo)
	}
	if f.user != "" {
		writeFile(t, UserConfigPath(env), f.user)
	}
	return Load(Sources{RepoRoot: root, UserFile: UserConfigPath(env), Env: env, Flags: f.flags})
}

func (f fixture) mustLoad(t *testing.T) *Config {
	t.Helper()
	c, err := f.load(t)
	if err != nil {
		t.Fatalf("Load: %v", err)
	}
	return c
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

func TestDefaults(t *testing.T) {
	c := fixture{}.mustLoad(t)
	want := map[string]string{
		"agent": "none", "agent_cmd": "none", "mode": "build", "max_iterations": "5",
		"iteration_timeout": "none", "idle_threshold": "2", "max_consecutive_errors": "3",
		"max_output_buffer": "10MiB", "validate": "none", "validate_timeout": "10m0s", "push": "false",
		"remote": "upstream or origin", "branch": "same name", "backoff_base": "1s", "backoff_max": "1m0s",
		"max_limit_wait": "6h0m0s", "stop_on_overage": "false", "log_level": "info", "show_agent_output": "false",
		"history_keep": "100", "history_max_size": "500MiB",
		"prompts": "PROMPT_build.md", "hooks.on_iteration": "none", "hooks.on_complete": "none",
		"hooks.on_failure": "none", "hooks.on_limit": "none", "hooks.timeout": "30s",
	}
	entries := c.Entries()
	if len(entries) != len(want) {
		t.Errorf("got %d entries, want %d: %+v", len(entries), len(want), entries)
	}
	for _, e := range entries {
		if e.Value != want[e.Key] || e.Origin.String() != "default" {
			t.Errorf("%s = %q from %s, want %q from default", e.Key, e.Value, e.Origin, want[e.Key])
		}
	}
	if c.MaxOutputBuffer.V != 10<<20 || c.ValidateTimeout.V != 10*time.Minute || c.Prompts.V != nil ||
		c.Hooks.Timeout.V != 30*time.Second || len(c.Agents) != 0 || c.RepoCommands() != nil {
		t.Errorf("unexpected defaults: %+v", c)
	}
}

// TestPrecedence sets validate_timeout in every tier it names and checks which wins. The
// files keep the same line numbers whichever tiers are present.
func TestPrecedence(t *testing.T) {
	file := func(tiers string, top, mode, topVal, modeVal string) string {
		lines := []string{"# nothing", "[modes.plan]", "# nothing"}
		if strings.Contains(tiers, top) {
			lines[0] = `validate_timeout = "` + topVal + `"`
		}
		if strings.Contains(tiers, mode) {
			lines[2] = `validate_timeout = "` + modeVal + `"`
		}
		return strings.Join(lines, "\n") + "\n"
	}
	tests := []struct {
		tiers  string // of user userMode repo repoMode env flag
		want   time.Duration
		origin string
	}{
		{"user userMode repo repoMode env flag", 6 * time.Minute, "flag --validate-timeout"},
		{"user userMode repo repoMode env", 5 * time.Minute, "env RALPH_VALIDATE_TIMEOUT"},
		{"user userMode repo repoMode", 4 * time.Minute, ".ralph/config.toml:3 [modes.plan]"},
		{"user userMode repo", 3 * time.Minute, ".ralph/config.toml:1"},
		{"user userMode", 2 * time.Minute, userDisplay + ":3 [modes.plan]"},
		{"user", time.Minute, userDisplay + ":1"},
		{"", 10 * time.Minute, "default"},
		{"user repoMode", 4 * time.Minute, ".ralph/config.toml:3 [modes.plan]"},
		{"userMode repo", 3 * time.Minute, ".ralph/config.toml:1"},
		{"userMode env", 5 * time.Minute, "env RALPH_VALIDATE_TIMEOUT"},
		{"user flag", 6 * time.Minute, "flag --validate-timeout"},
	}
	for _, tt := range tests {
		t.Run(tt.tiers, func(t *testing.T) {
			f := fixture{
				user:  file(tt.tiers, "user", "userMode", "1m", "2m"),
				repo:  file(tt.tiers, "repo", "repoMode", "3m", "4m"),
				flags: []Flag{{Key: "mode", Name: "--mode", Raw: "plan"}},
			}
			if strings.Contains(tt.tiers, "env") {
				f.env = []string{"RALPH_VALIDATE_TIMEOUT=5m"}
			}
			if strings.Contains(tt.tiers, "flag") {
				f.flags = append(f.flags, Flag{Key: "validate_timeout", Name: "--validate-timeout", Raw: "6m"})
			}
			c := f.mustLoad(t)
			if c.ValidateTimeout.V != tt.want || c.ValidateTimeout.Origin.String() != tt.origin {
				t.Errorf("validate_timeout = %s from %s, want %s from %s", c.ValidateTimeout.V, c.ValidateTimeout.Origin, tt.want, tt.origin)
			}
		})
	}
}

func TestModeSelection(t *testing.T) {
	files := fixture{
		user: "mode = \"plan\"\n[modes.plan]\nvalidate = \"user plan\"\n[modes.review]\nvalidate = \"user review\"\n",
		repo: "validate = \"repo top\"\n[modes.build]\nvalidate = \"repo build\"\n[modes.fix]\nvalidate = \"repo fix\"\n",
	}
	tests := []struct {
		name           string
		repo           string // replaces files.repo when set
		env            []string
		flags          []Flag
		mode, validate string
		modeOrigin     string
	}{
		{"user file's mode", "", nil, nil, "plan", "repo top", userDisplay + ":1"},
		{"repo file's mode beats the user's", "mode = \"build\"\n[modes.build]\nvalidate = \"repo build\"\n", nil, nil,
			"build", "repo build", ".ralph/config.toml:1"},
		{"env mode; repo top level beats user mode section", "", []string{"RALPH_MODE=review"}, nil, "review", "repo top", "env RALPH_MODE"},
		{"user mode section beats user top level", "[modes.x]\n", []string{"RALPH_MODE=review"}, nil, "review", "user review", "env RALPH_MODE"},
		{"flag mode beats env", "", []string{"RALPH_MODE=review"}, []Flag{{Key: "mode", Name: "--mode", Raw: "fix"}},
			"fix", "repo fix", "flag --mode"},
		{"inside an outer loop RALPH_MODE is ignored", "", []string{"RALPH_MODE=review", "RALPH_RUN=r1"}, nil,
			"plan", "repo top", userDisplay + ":1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := files
			if tt.repo != "" {
				f.repo = tt.repo
			}
			f.env, f.flags = tt.env, tt.flags
			c := f.mustLoad(t)
			if c.Mode.V != tt.mode || c.Mode.Origin.String() != tt.modeOrigin || c.Validate.V != tt.validate {
				t.Errorf("mode %q from %s, validate %q; want %q from %s, %q",
					c.Mode.V, c.Mode.Origin, c.Validate.V, tt.mode, tt.modeOrigin, tt.validate)
			}
		})
	}
}

func TestMaxIterations(t *testing.T) {
	max := func(raw string) Flag { return Flag{Key: "max_iterations", Name: "--max", Raw: raw} }
	unlimited := Flag{Key: "unlimited", Name: "--unlimited", Raw: "true"}
	plan := Flag{Key: "mode", Name: "--mode", Raw: "plan"}
	tests := []struct {
		name   string
		f      fixture
		want   int
		origin string
	}{
		{"built-in 5", fixture{}, 5, "default"},
		{"top-level unlimited", fixture{repo: "unlimited = true\n"}, 0, ".ralph/config.toml:1"},
		{"max wins a tie in the same table", fixture{repo: "unlimited = true\nmax_iterations = 7\n"}, 7, ".ralph/config.toml:2"},
		{"mode unlimited beats top-level max", fixture{repo: "max_iterations = 7\n[modes.plan]\nunlimited = true\n",
			flags: []Flag{plan}}, 0, ".ralph/config.toml:3 [modes.plan]"},
		{"mode max beats top-level unlimited", fixture{repo: "unlimited = true\n[modes.plan]\nmax_iterations = 3\n",
			flags: []Flag{plan}}, 3, ".ralph/config.toml:3 [modes.plan]"},
		{"repo max beats user unlimited", fixture{user: "unlimited = true\n", repo: "max_iterations = 9\n"}, 9, ".ralph/config.toml:1"},
		{"user mode unlimited loses to repo top max", fixture{user: "[modes.build]\nunlimited = true\n", repo: "max_iterations = 9\n"},
			9, ".ralph/config.toml:1"},
		{"env unlimited beats the repo's max", fixture{repo: "max_iterations = 9\n", env: []string{"RALPH_UNLIMITED=1"}},
			0, "env RALPH_UNLIMITED"},
		{"--max beats --unlimited", fixture{flags: []Flag{unlimited, max("4")}}, 4, "flag --max"},
		{"--unlimited beats env max", fixture{env: []string{"RALPH_MAX_ITERATIONS=8"}, flags: []Flag{unlimited}}, 0, "flag --unlimited"},
		{"mode unlimited = false keeps the top-level max", fixture{repo: "max_iterations = 7\n[modes.build]\nunlimited = false\n"},
			7, ".ralph/config.toml:1"},
		{"mode unlimited = false overrides the top-level unlimited", fixture{repo: "unlimited = true\n[modes.build]\nunlimited = false\n"},
			5, ".ralph/config.toml:3 [modes.build]"},
		{"mode unlimited = false overrides the user's unlimited", fixture{user: "unlimited = true\n", repo: "[modes.build]\nunlimited = false\n"},
			5, ".ralph/config.toml:2 [modes.build]"},
		{"RALPH_UNLIMITED=false overrides the repo's unlimited", fixture{repo: "unlimited = true\n", env: []string{"RALPH_UNLIMITED=false"}},
			5, "env RALPH_UNLIMITED"},
		{"RALPH_UNLIMITED=false keeps the user's max", fixture{user: "max_iterations = 8\n", repo: "unlimited = true\n",
			env: []string{"RALPH_UNLIMITED=false"}}, 8, "~/.config/git-ralph/config.toml:1"},
		{"--unlimited=false overrides the repo's unlimited", fixture{repo: "unlimited = true\n",
			flags: []Flag{{Key: "unlimited", Name: "--unlimited", Raw: "false"}}}, 5, "flag --unlimited"},
		{"inside an outer loop RALPH_MAX_ITERATIONS is ignored", fixture{repo: "max_iterations = 7\n",
			env: []string{"RALPH_RUN=r1", "RALPH_MAX_ITERATIONS=1"}}, 7, ".ralph/config.toml:1"},
		{"empty RALPH_MAX_ITERATIONS counts as unset", fixture{repo: "max_iterations = 7\n",
			env: []string{"RALPH_MAX_ITERATIONS="}}, 7, ".ralph/config.toml:1"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.f.mustLoad(t)
			if c.MaxIterations.V != tt.want || c.MaxIterations.Origin.String() != tt.origin {
				t.Errorf("max iterations %d from %s, want %d from %s", c.MaxIterations.V, c.MaxIterations.Origin, tt.want, tt.origin)
			}
		})
	}
}

func TestRalphRunKeepsOtherVariables(t *testing.T) {
	env := []string{"RALPH_RUN=r1", "RALPH_ITERATION=3", "RALPH_MODE=plan", "RALPH_MAX_ITERATIONS=2",
		"RALPH_VALIDATE=make check", "RALPH_PUSH=true"}
	c := fixture{env: env}.mustLoad(t)
	if c.Mode.V != "build" || c.MaxIterations.V != 5 {
		t.Errorf("mode %q, max %d: the outer loop's variables were read", c.Mode.V, c.MaxIterations.V)
	}
	if c.Validate.V != "make check" || c.Validate.Origin.String() != "env RALPH_VALIDATE" || !c.Push.V {
		t.Errorf("validate %q from %s, push %v: want the variables read", c.Validate.V, c.Validate.Origin, c.Push.V)
	}
	c = fixture{env: env[1:]}.mustLoad(t)
	if c.Mode.V != "plan" || c.MaxIterations.V != 2 {
		t.Errorf("without RALPH_RUN: mode %q, max %d, want plan, 2", c.Mode.V, c.MaxIterations.V)
	}
}

func TestEveryKeyFromAFile(t *testing.T) {
	repo := `agent = "claude"
agent_cmd = "claude -p"
mode = "plan"
max_iterations = 0x10
iteration_timeout = "1h30m"
idle_threshold = 0
max_consecutive_errors = 1_0
max_output_buffer = "512kib"
validate = "go test ./..."
validate_timeout = "90s"
push = true
remote = "upstream"
branch = "ralph"
backoff_base = "500ms"
backoff_max = "2m"
max_limit_wait = "1h"
stop_on_overage = true
log_level = "debug"
show_agent_output = true
history_keep = 7
history_max_size = "2GB"
prompts = ["prompts/common.md", "PROMPT_plan.md"]
`
	c := fixture{repo: repo}.mustLoad(t)
	got := []any{c.Agent.V, c.AgentCmd.V, c.Mode.V, c.MaxIterations.V, c.IterationTimeout.V, c.IdleThreshold.V,
		c.MaxConsecutiveErrors.V, c.MaxOutputBuffer.V, c.Validate.V, c.ValidateTimeout.V, c.Push.V, c.Remote.V,
		c.Branch.V, c.BackoffBase.V, c.BackoffMax.V, c.MaxLimitWait.V, c.StopOnOverage.V, c.LogLevel.V, c.ShowAgentOutput.V,
		c.HistoryKeep.V, c.HistoryMaxSize.V, c.Prompts.V}
	want := []any{"claude", "claude -p", "plan", 16, 90 * time.Minute, 0, 10, int64(512 << 10), "go test ./...",
		90 * time.Second, true, "upstream", "ralph", 500 * time.Millisecond, 2 * time.Minute, time.Hour, true, "debug", true,
		7, int64(2 << 30), []string{"prompts/common.md", "PROMPT_plan.md"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	for i, e := range c.Entries()[:22] {
		if e.Origin.Line == 0 || e.Origin.Kind != FromRepo {
			t.Errorf("entry %d %s from %s, want a line of the repo file", i, e.Key, e.Origin)
		}
	}
}

func TestEveryKeyFromTheEnvironment(t *testing.T) {
	env := []string{"RALPH_AGENT=codex", "RALPH_AGENT_CMD=codex exec", "RALPH_MODE=fix", "RALPH_MAX_ITERATIONS=12",
		"RALPH_ITERATION_TIMEOUT=45m", "RALPH_IDLE_THRESHOLD=4", "RALPH_MAX_CONSECUTIVE_ERRORS=6",
		"RALPH_MAX_OUTPUT_BUFFER=64kb", "RALPH_VALIDATE=make", "RALPH_VALIDATE_TIMEOUT=1m", "RALPH_PUSH=1",
		"RALPH_REMOTE=fork", "RALPH_BRANCH=wip", "RALPH_BACKOFF_BASE=2s", "RALPH_BACKOFF_MAX=30s",
		"RALPH_MAX_LIMIT_WAIT=2h", "RALPH_STOP_ON_OVERAGE=true", "RALPH_LOG_LEVEL=warn", "RALPH_SHOW_AGENT_OUTPUT=true",
		"RALPH_HISTORY_KEEP=0", "RALPH_HISTORY_MAX_SIZE=0",
		"RALPH_PROMPTS=ignored.md", "RALPH_PROMPT=ignored.md", "RALPH_UNKNOWN=ignored"}
	c := fixture{env: env}.mustLoad(t)
	for _, e := range c.Entries() {
		want := "env " + envName(e.Key)
		if strings.HasPrefix(e.Key, "hooks.") || e.Key == "prompts" {
			want = "default"
		}
		if e.Origin.String() != want {
			t.Errorf("%s = %s from %s, want from %s", e.Key, e.Value, e.Origin, want)
		}
	}
	if c.MaxOutputBuffer.V != 64<<10 || c.BackoffMax.V != 30*time.Second || c.Mode.V != "fix" || c.Prompts.V != nil ||
		c.HistoryKeep.V != 0 || c.HistoryMaxSize.V != 0 {
		t.Errorf("unexpected values: %+v", c)
	}
}

func TestIterationTimeoutEmptyMeansNone(t *testing.T) {
	c := fixture{repo: "iteration_timeout = \"30m\"\n[modes.build]\niteration_timeout = \"\"\n"}.mustLoad(t)
	if c.IterationTimeout.V != 0 || c.IterationTimeout.Origin.Mode != "build" {
		t.Errorf("iteration_timeout %s from %s, want none from the mode section", c.IterationTimeout.V, c.IterationTimeout.Origin)
	}
	c = fixture{repo: "iteration_timeout = \"30m\"\n", flags: []Flag{{Key: "iteration_timeout", Name: "--timeout", Raw: ""}}}.mustLoad(t)
	if c.IterationTimeout.V != 0 || c.IterationTimeout.Origin.String() != "flag --timeout" {
		t.Errorf("iteration_timeout %s from %s, want none from the flag", c.IterationTimeout.V, c.IterationTimeout.Origin)
	}
}

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
	dotted := "# comment\nmodes.plan.max_iterations = 3\n[modes.fix]\n\nidle_threshold = 0\n"
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

func TestOriginString(t *testing.T) {
	tests := []struct {
		o    Origin
		want string
	}{
		{Origin{}, "default"},
		{Origin{Kind: FromFlag, Name: "--max"}, "flag --max"},
		{Origin{Kind: FromEnv, Name: "RALPH_MAX_ITERATIONS"}, "env RALPH_MAX_ITERATIONS"},
		{Origin{Kind: FromRepo, File: ".ralph/config.toml", Line: 12}, ".ralph/config.toml:12"},
		{Origin{Kind: FromRepo, File: ".ralph/config.toml", Line: 12, Mode: "plan"}, ".ralph/config.toml:12 [modes.plan]"},
		{Origin{Kind: FromUser, File: "~/.config/git-ralph/config.toml", Line: 3}, "~/.config/git-ralph/config.toml:3"},
	}
	for _, tt := range tests {
		if got := tt.o.String(); got != tt.want {
			t.Errorf("%+v.String() = %q, want %q", tt.o, got, tt.want)
		}
	}
}

func TestUserConfigPath(t *testing.T) {
	tests := []struct {
		env  []string
		want string
	}{
		{[]string{"HOME=/home/u"}, "/home/u/.config/git-ralph/config.toml"},
		{[]string{"HOME=/home/u", "XDG_CONFIG_HOME=/xdg"}, "/xdg/git-ralph/config.toml"},
		{[]string{"HOME=/home/u", "XDG_CONFIG_HOME=relative"}, "/home/u/.config/git-ralph/config.toml"},
		{nil, ""},
	}
	for _, tt := range tests {
		if got := UserConfigPath(tt.env); got != tt.want {
			t.Errorf("UserConfigPath(%q) = %q, want %q", tt.env, got, tt.want)
		}
	}
	if got := displayPath("/home/u/.config/x.toml", "/home/u/"); got != "~/.config/x.toml" {
		t.Errorf("displayPath = %q", got)
	}
	if got := displayPath("/home/user2/x.toml", "/home/u"); got != "/home/user2/x.toml" {
		t.Errorf("displayPath = %q", got)
	}
}

func TestSizes(t *testing.T) {
	tests := []struct {
		raw  string
		want int64 // 0: error
	}{
		{"10MB", 10 << 20}, {"512KiB", 512 << 10}, {"1GiB", 1 << 30}, {"64kb", 64 << 10}, {"1048576", 1 << 20},
		{"100 B", 100}, {"2mib", 2 << 20}, {"1gb", 1 << 30},
		{"", 0}, {"0", 0}, {"-1MB", 0}, {"1.5MB", 0}, {"2GiB", 0}, {"1TB", 0}, {"MB", 0}, {"99999999999999999999", 0},
		{"9223372036854775807KB", 0},
	}
	s := findSpec(topSpecs, "max_output_buffer")
	for _, tt := range tests {
		v, p := s.fromString(tt.raw)
		switch {
		case tt.want == 0 && p == nil:
			t.Errorf("%q: got %v, want an error", tt.raw, v)
		case tt.want != 0 && (p != nil || v != tt.want):
			t.Errorf("%q: got %v, %v; want %d", tt.raw, v, p, tt.want)
		}
	}
	if formatSize(1500) != "1500B" || formatSize(3<<30) != "3GiB" || formatSize(1536) != "1536B" || formatSize(2048) != "2KiB" {
		t.Error("formatSize")
	}
}

// history_max_size goes beyond max_output_buffer's 1GiB, and 0 turns it off; a negative
// or unreadable size is refused with the key's range.
func TestHistoryMaxSize(t *testing.T) {
	c := (fixture{env: []string{"RALPH_HISTORY_MAX_SIZE=20GiB"}}).mustLoad(t)
	if c.HistoryMaxSize.V != 20<<30 {
		t.Errorf("20GiB = %d", c.HistoryMaxSize.V)
	}
	for _, bad := range []string{`"-1MB"`, `"lots"`, `-5`} {
		_, err := fixture{repo: "history_max_size = " + bad + "\n"}.load(t)
		if err == nil || !strings.Contains(err.Error(), "history_max_size") {
			t.Errorf("history_max_size = %s: err = %v", bad, err)
		}
	}
	if _, err := (fixture{env: []string{"RALPH_MAX_OUTPUT_BUFFER=0"}}).load(t); err == nil {
		t.Error("max_output_buffer = 0 accepted")
	}
}

func TestKeys(t *testing.T) {
	keys := Keys()
	if len(keys) != 24 || keys[0] != "agent" || keys[len(keys)-1] != "prompts" {
		t.Errorf("Keys() = %q", keys)
	}
}

func TestEnvWarnings(t *testing.T) {
	tests := []struct {
		name string
		env  []string
		want []string
	}{
		{"settings and git ralph's own variables", []string{"RALPH_MAX_ITERATIONS=3", "RALPH_UNLIMITED=", "RALPH_RUN=r1",
			"RALPH_ITERATION=2", "RALPH_MODE=plan", "RALPH_EVENT=x", "RALPH_HOOK=y", "PATH=/bin", "NOT_RALPH_X=1"}, nil},
		{"a typo", []string{"RALPH_MAX_ITERATONS=3"},
			[]string{"environment variable RALPH_MAX_ITERATONS is not a git ralph setting and is ignored; did you mean RALPH_MAX_ITERATIONS?"}},
		{"lower case", []string{"RALPH_validate=make"},
			[]string{"environment variable RALPH_validate is not a git ralph setting and is ignored; did you mean RALPH_VALIDATE?"}},
		{"a file-only key", []string{"RALPH_PROMPTS=a.md"},
			[]string{"environment variable RALPH_PROMPTS is ignored: prompts can be set only in a config file"}},
		{"nothing close", []string{"RALPH_XYZZY=1"},
			[]string{"environment variable RALPH_XYZZY is not a git ralph setting and is ignored; 'git ralph config' lists the settings"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := fixture{env: tt.env}.mustLoad(t)
			if !slices.Equal(c.Warnings, tt.want) {
				t.Errorf("warnings:\n%q\nwant:\n%q", c.Warnings, tt.want)
			}
		})
	}
}
