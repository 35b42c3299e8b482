package config

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"
)

// fixture is the input of one Load: file contents ("" = no file), env and flags.
type fixture struct {
	user, repo string
	env        []string
	flags      []Flag
	workflow   []WorkflowSetting
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
	return Load(Sources{RepoRoot: root, UserFile: UserConfigPath(env), Env: env, Flags: f.flags, Workflow: f.workflow})
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
		"model": "none", "api_base": "the vendor's", "api_key_env": "the vendor's", "api_max_turns": "100", "api_max_context": "none",
		"iteration_timeout": "none", "output_timeout": "none", "idle_threshold": "2", "max_consecutive_errors": "3",
		"stagnation_threshold": "3", "stagnation_similarity": "90",
		"max_output_buffer": "10MiB", "validate": "none", "validate_timeout": "10m0s", "validate_format": "none", "validate_targets": "none", "until": "none", "feedback": "last", "judge": "none", "push": "false",
		"remote": "upstream or origin", "branch": "same name", "backoff_base": "1s", "backoff_max": "1m0s",
		"max_limit_wait": "6h0m0s", "stop_on_overage": "false",
		"max_cost": "none", "max_tokens": "none", "daily_max_cost": "none", "log_level": "info", "show_agent_output": "false",
		"notify": "none", "history_keep": "100", "history_max_size": "500MiB", "template": "none",
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
		{"top-level unlimited", fixture{user: "unlimited = true\n"}, 0, userDisplay + ":1"},
		{"repo unlimited where the user's is", fixture{user: "unlimited = true\n", repo: "unlimited = true\n"}, 0, ".ralph/config.toml:1"},
		{"max wins a tie in the same table", fixture{repo: "unlimited = true\nmax_iterations = 7\n"}, 7, ".ralph/config.toml:2"},
		{"mode unlimited beats top-level max", fixture{user: "unlimited = true\n", repo: "max_iterations = 7\n[modes.plan]\nunlimited = true\n",
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
		// a repository's file sets its loops' length over the default, but not over the user's own limit
		{"repo raises the default", fixture{repo: "max_iterations = 40\n"}, 40, ".ralph/config.toml:1"},
		{"repo cannot raise the user's", fixture{user: "max_iterations = 10\n", repo: "max_iterations = 40\n"}, 10, userDisplay + ":1"},
		{"repo mode cannot raise the user's mode", fixture{user: "[modes.build]\nmax_iterations = 10\n", repo: "[modes.build]\nmax_iterations = 40\n"},
			10, userDisplay + ":2 [modes.build]"},
		{"repo lowers the user's", fixture{user: "max_iterations = 10\n", repo: "max_iterations = 3\n"}, 3, ".ralph/config.toml:1"},
		{"--unlimited=false brings back the user's lower max", fixture{user: "max_iterations = 10\n", repo: "max_iterations = 40\nunlimited = true\n",
			flags: []Flag{{Key: "unlimited", Name: "--unlimited", Raw: "false"}}}, 10, userDisplay + ":1"},
		{"--unlimited over the repo's unlimited", fixture{repo: "unlimited = true\n", flags: []Flag{unlimited}}, 0, "flag --unlimited"},
		{"--max over the repo's unlimited", fixture{user: "max_iterations = 10\n", repo: "unlimited = true\n", flags: []Flag{max("30")}}, 30, "flag --max"},
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

// TestRepoCannotLiftIterationLimit: a clone's unlimited = true would lift every limit of a
// user who runs a loop in it; it is refused, naming the line, unless the user's file (or
// a flag or variable) says unlimited itself. The configuration still loads, with the
// user's limit: only the commands that start a loop return the refusal.
func TestRepoCannotLiftIterationLimit(t *testing.T) {
	for _, tc := range []struct {
		name  string
		f     fixture
		want  string
		limit int
	}{
		{"over the default", fixture{repo: "\nunlimited = true\n"},
			".ralph/config.toml:2: unlimited: a repository's config may not lift your iteration limit of 5 (default)", 5},
		{"over the user's max", fixture{user: "max_iterations = 10\n", repo: "unlimited = true\n"},
			".ralph/config.toml:1: unlimited: a repository's config may not lift your iteration limit of 10 (" + userDisplay + ":1)", 10},
		{"in the mode's section", fixture{repo: "max_iterations = 7\n[modes.build]\nunlimited = true\n"},
			".ralph/config.toml:3: modes.build.unlimited: a repository's config may not lift", 5},
		{"over the user's unlimited = false", fixture{user: "unlimited = true\n[modes.build]\nunlimited = false\n", repo: "unlimited = true\n"},
			".ralph/config.toml:1: unlimited: a repository's config may not lift your iteration limit of 5", 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.f.mustLoad(t)
			if c.MaxIterations.V != tc.limit {
				t.Errorf("max iterations %d from %s, want the user's %d", c.MaxIterations.V, c.MaxIterations.Origin, tc.limit)
			}
			cerr := c.LiftedLimit
			if cerr == nil || !strings.HasPrefix(cerr.Error(), tc.want) || cerr.Kind != FromRepo {
				t.Fatalf("LiftedLimit = %v; want a repository *Error starting %q", cerr, tc.want)
			}
			if h := cerr.Hint(); !strings.Contains(h, "--unlimited") || !strings.Contains(h, userDisplay) {
				t.Errorf("hint %q: want --unlimited and the user's file", h)
			}
		})
	}
}

// TestRepoCannotLiftTimeouts: a repository's timeouts may be shorter than the user's, never
// longer or none.
func TestRepoCannotLiftTimeouts(t *testing.T) {
	for _, tc := range []struct {
		name          string
		f             fixture
		iter, silence time.Duration
	}{
		{"repo alone", fixture{repo: "iteration_timeout = \"2h\"\noutput_timeout = \"20m\"\n"}, 2 * time.Hour, 20 * time.Minute},
		{"repo shorter", fixture{user: "iteration_timeout = \"1h\"\n", repo: "iteration_timeout = \"30m\"\n"}, 30 * time.Minute, 0},
		{"repo longer", fixture{user: "iteration_timeout = \"1h\"\noutput_timeout = \"5m\"\n", repo: "iteration_timeout = \"9h\"\noutput_timeout = \"50m\"\n"},
			time.Hour, 5 * time.Minute},
		{"repo none", fixture{user: "iteration_timeout = \"1h\"\n", repo: "[modes.build]\niteration_timeout = \"\"\n"}, time.Hour, 0},
		{"flag longer", fixture{user: "iteration_timeout = \"1h\"\n", flags: []Flag{{Key: "iteration_timeout", Name: "--timeout", Raw: "3h"}}}, 3 * time.Hour, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.f.mustLoad(t)
			if c.IterationTimeout.V != tc.iter || c.OutputTimeout.V != tc.silence {
				t.Errorf("iteration_timeout %s (%s), output_timeout %s (%s); want %s, %s", c.IterationTimeout.V, c.IterationTimeout.Origin,
					c.OutputTimeout.V, c.OutputTimeout.Origin, tc.iter, tc.silence)
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
model = "qwen2.5-coder"
api_base = "http://127.0.0.1:11434/v1"
api_key_env = "MY_KEY"
api_max_turns = 40
api_max_context = 64000
mode = "plan"
max_iterations = 0x10
iteration_timeout = "1h30m"
output_timeout = "7m"
idle_threshold = 1
stagnation_threshold = 2
stagnation_similarity = 80
max_consecutive_errors = 2
max_output_buffer = "512kib"
validate = "go test ./..."
validate_timeout = "90s"
validate_format = "junit"
validate_targets = ["TestParse"]
until = "npm test"
feedback = "all"
judge = "sh judge.sh"
push = true
remote = "upstream"
branch = "ralph"
backoff_base = "500ms"
backoff_max = "2m"
max_limit_wait = "1h"
stop_on_overage = true
max_cost = 2.5
max_tokens = 90_000
daily_max_cost = 7
log_level = "debug"
show_agent_output = true
notify = ["bell", "https://ntfy.sh/t"]
history_keep = 7
history_max_size = "200MB"
template = "tdd"
prompts = ["prompts/common.md", "PROMPT_plan.md"]
`
	c := fixture{repo: repo}.mustLoad(t)
	got := []any{c.Agent.V, c.AgentCmd.V, c.Mode.V, c.MaxIterations.V, c.IterationTimeout.V, c.OutputTimeout.V, c.IdleThreshold.V,
		c.StagnationThreshold.V, c.StagnationSimilarity.V, c.MaxConsecutiveErrors.V, c.MaxOutputBuffer.V, c.Validate.V, c.ValidateTimeout.V, c.ValidateFormat.V, c.ValidateTargets.V, c.Until.V, c.Feedback.V, c.Judge.V, c.Push.V, c.Remote.V,
		c.Branch.V, c.BackoffBase.V, c.BackoffMax.V, c.MaxLimitWait.V, c.StopOnOverage.V, c.MaxCost.V, c.MaxTokens.V, c.LogLevel.V, c.ShowAgentOutput.V,
		c.Notify.V, c.HistoryKeep.V, c.HistoryMaxSize.V, c.Template.V, c.Prompts.V}
	want := []any{"claude", "claude -p", "plan", 16, 90 * time.Minute, 7 * time.Minute, 1, 2, 80, 2, int64(512 << 10), "go test ./...",
		90 * time.Second, "junit", []string{"TestParse"}, "npm test", "all", "sh judge.sh", true, "upstream", "ralph", 500 * time.Millisecond, 2 * time.Minute, time.Hour, true, 2.5, 90000, "debug", true,
		[]string{"bell", "https://ntfy.sh/t"}, 7, int64(200 << 20), "tdd", []string{"prompts/common.md", "PROMPT_plan.md"}}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("got  %v\nwant %v", got, want)
	}
	if c.Model.V != "qwen2.5-coder" || c.APIBase.V != "http://127.0.0.1:11434/v1" || c.APIKeyEnv.V != "MY_KEY" ||
		c.APIMaxTurns.V != 40 || c.APIMaxContext.V != 64000 {
		t.Errorf("API agent's settings %q %q %q %d %d", c.Model.V, c.APIBase.V, c.APIKeyEnv.V, c.APIMaxTurns.V, c.APIMaxContext.V)
	}
	for i, e := range c.Entries()[:38] {
		if e.Origin.Line == 0 || e.Origin.Kind != FromRepo {
			t.Errorf("entry %d %s from %s, want a line of the repo file", i, e.Key, e.Origin)
		}
	}
}

func TestEveryKeyFromTheEnvironment(t *testing.T) {
	env := []string{"RALPH_AGENT=codex", "RALPH_AGENT_CMD=codex exec", "RALPH_MODE=fix", "RALPH_MAX_ITERATIONS=12",
		"RALPH_MODEL=m", "RALPH_API_BASE=https://example.test", "RALPH_API_KEY_ENV=K", "RALPH_API_MAX_TURNS=9", "RALPH_API_MAX_CONTEXT=9000",
		"RALPH_ITERATION_TIMEOUT=45m", "RALPH_OUTPUT_TIMEOUT=5m", "RALPH_IDLE_THRESHOLD=4", "RALPH_MAX_CONSECUTIVE_ERRORS=6",
		"RALPH_STAGNATION_THRESHOLD=0", "RALPH_STAGNATION_SIMILARITY=75",
		"RALPH_MAX_OUTPUT_BUFFER=64kb", "RALPH_VALIDATE=make", "RALPH_VALIDATE_TIMEOUT=1m", "RALPH_VALIDATE_FORMAT=tap", "RALPH_VALIDATE_TARGETS=a,b", "RALPH_UNTIL=make check", "RALPH_FEEDBACK=all", "RALPH_JUDGE=gemini", "RALPH_PUSH=1",
		"RALPH_REMOTE=fork", "RALPH_BRANCH=wip", "RALPH_BACKOFF_BASE=2s", "RALPH_BACKOFF_MAX=30s",
		"RALPH_MAX_LIMIT_WAIT=2h", "RALPH_STOP_ON_OVERAGE=true", "RALPH_MAX_COST=3", "RALPH_MAX_TOKENS=7", "RALPH_DAILY_MAX_COST=9.99",
		"RALPH_LOG_LEVEL=warn", "RALPH_SHOW_AGENT_OUTPUT=true",
		"RALPH_NOTIFY=desktop, bell", "RALPH_HISTORY_KEEP=0", "RALPH_HISTORY_MAX_SIZE=0", "RALPH_TEMPLATE=bugfix",
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
		c.HistoryKeep.V != 0 || c.HistoryMaxSize.V != 0 || !reflect.DeepEqual(c.Notify.V, []string{"desktop", "bell"}) {
		t.Errorf("unexpected values: %+v", c)
	}
}

func TestIterationTimeoutEmptyMeansNone(t *testing.T) {
	c := fixture{user: "iteration_timeout = \"30m\"\n[modes.build]\niteration_timeout = \"\"\n"}.mustLoad(t)
	if c.IterationTimeout.V != 0 || c.IterationTimeout.Origin.Mode != "build" {
		t.Errorf("iteration_timeout %s from %s, want none from the mode section", c.IterationTimeout.V, c.IterationTimeout.Origin)
	}
	c = fixture{repo: "iteration_timeout = \"30m\"\n", flags: []Flag{{Key: "iteration_timeout", Name: "--timeout", Raw: ""}}}.mustLoad(t)
	if c.IterationTimeout.V != 0 || c.IterationTimeout.Origin.String() != "flag --timeout" {
		t.Errorf("iteration_timeout %s from %s, want none from the flag", c.IterationTimeout.V, c.IterationTimeout.Origin)
	}
}
