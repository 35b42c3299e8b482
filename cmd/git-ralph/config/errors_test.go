package config

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

func TestBadInput(t *testing.T) {
	const repo = ".ralph/config.toml"
	tests := []struct {
		name  string
		f     fixture
		file  string
		line  int
		field string
		msg   string // a part of Error()
		hint  string // a part of Hint()
	}{
		// TOML itself.
		{"malformed TOML", fixture{repo: "max_iterations = 5\nvalidate = go test\n"},
			repo, 2, "", "invalid TOML", "line 2, column 12"},
		{"unclosed table", fixture{repo: "[modes.plan\n"}, repo, 1, "", "invalid TOML: expected ']'", "TOML syntax"},
		{"unterminated string", fixture{repo: "\n\nvalidate = \"go test\n"}, repo, 3, "", "invalid TOML", "line 3"},
		{"duplicate key", fixture{repo: "push = true\npush = false\n"}, repo, 2, "push", "already defined", "only once"},
		{"table defined twice", fixture{repo: "[modes.plan]\nvalidate = \"a\"\n[modes.plan]\n"},
			repo, 3, "modes.plan", "already exists", "only once"},
		{"invalid date", fixture{repo: "backoff_base = 2021-13-45\n"}, repo, 1, "", "impossible date", "TOML syntax"},
		{"integer overflow", fixture{repo: "max_iterations = 99999999999999999999\n"}, repo, 1, "", "too large", "TOML syntax"},
		{"invalid UTF-8", fixture{repo: "validate = \"\xff\"\n"}, repo, 1, "", "UTF-8", "TOML syntax"},

		// Keys and tables.
		{"unknown key with a near miss", fixture{repo: "\nmax_iteration = 3\n"}, repo, 2, "max_iteration",
			"max_iteration: unknown key", "did you mean max_iterations?"},
		{"unknown key with a dash", fixture{repo: "log-level = \"info\"\n"}, repo, 1, "log-level", "unknown key", "did you mean log_level?"},
		{"unknown key named like a flag", fixture{repo: "timeout = \"5m\"\n"}, repo, 1, "timeout", "unknown key", "did you mean iteration_timeout?"},
		{"unknown key far from all", fixture{repo: "colour = 1\n"}, repo, 1, "colour", "unknown key", "valid keys here: agent, agent_cmd, mode"},
		{"unknown table", fixture{repo: "push = true\n[foo]\nbar = 1\n"}, repo, 2, "foo", "unknown table [foo]", "[modes.NAME], [agents.NAME] and [hooks]"},
		{"misspelt nested table", fixture{repo: "[mods.plan]\n"}, repo, 1, "mods", "unknown table [mods.plan]", "did you mean [modes.plan]?"},
		{"unknown nested table", fixture{repo: "[mode.plan]\n"}, repo, 1, "mode", "mode: want a string, got a table", "did you mean [modes.plan]?"},
		{"misspelt table", fixture{repo: "[hook]\n"}, repo, 1, "hook", "unknown table [hook]", "did you mean [hooks]?"},
		{"unknown key in a mode", fixture{repo: "[modes.plan]\nmax_iters = 2\n"}, repo, 2, "modes.plan.max_iters",
			"unknown key", "did you mean max_iterations?"},
		{"unknown key in a dotted mode key", fixture{repo: "modes.plan.pushh = true\n"}, repo, 1, "modes.plan.pushh",
			"unknown key", "did you mean push?"},
		{"unknown table in a mode", fixture{repo: "[modes.plan.extra]\n"}, repo, 1, "modes.plan.extra",
			"unknown table [modes.plan.extra]", "valid keys here"},
		{"mode inside a mode section", fixture{repo: "[modes.plan]\n\nmode = \"build\"\n"}, repo, 3, "modes.plan.mode",
			"mode can't be set inside [modes.plan]", "--mode"},
		{"modes not a table", fixture{repo: "modes = \"plan\"\n"}, repo, 1, "modes", "want a table, got a string", "[modes.NAME]"},
		{"mode section not a table", fixture{repo: "modes.plan = 3\n"}, repo, 1, "modes.plan", "want a table, got an integer", "[modes.plan]"},
		{"array of mode tables", fixture{repo: "[[modes]]\nplan = 1\n"}, repo, 1, "modes", "array of tables", "single brackets"},
		{"bad mode section name", fixture{repo: "[modes.\"my mode\"]\n"}, repo, 1, `modes."my mode"`, `invalid mode name "my mode"`, "letters, digits"},
		{"hooks not a table", fixture{repo: "hooks = []\n"}, repo, 1, "hooks", "want a table, got an array", "[hooks]"},
		{"unknown hook", fixture{repo: "[hooks]\non_start = \"x\"\n"}, repo, 2, "hooks.on_start", "unknown key", "on_iteration"},
		{"unknown agent key", fixture{repo: "[agents.claude]\nflags = []\n"}, repo, 2, "agents.claude.flags",
			"unknown key", "valid keys here: program, args, extra_args"},
		{"empty agent name", fixture{repo: "[agents.\"\"]\n"}, repo, 1, `agents.""`, "must not be empty", "[agents.claude]"},
		{"empty agent program", fixture{repo: "[agents.claude]\nprogram = \"\"\n"}, repo, 2, "agents.claude.program", "must not be empty", "remove the line"},

		// Types.
		{"string for an integer", fixture{repo: "max_iterations = \"5\"\n"}, repo, 1, "max_iterations",
			`want an integer, got a string "5"`, "max_iterations = 5"},
		{"float for an integer", fixture{repo: "idle_threshold = 2.5\n"}, repo, 1, "idle_threshold", "want an integer, got a float", "idle_threshold = 2"},
		{"integer for a duration", fixture{repo: "iteration_timeout = 30\n"}, repo, 1, "iteration_timeout",
			"want a duration string, got an integer (30)", `iteration_timeout = "30m"`},
		{"array for a string", fixture{repo: "validate = [\"go\", \"test\"]\n"}, repo, 1, "validate",
			"want a string, got an array", `validate = "go test ./..."`},
		{"string for a boolean", fixture{repo: "push = \"yes\"\n"}, repo, 1, "push", `want a boolean, got a string "yes"`, "push = true"},
		{"date for a duration", fixture{repo: "backoff_base = 1979-05-27\n"}, repo, 1, "backoff_base", "got a date", `"1s"`},
		{"table for an integer", fixture{repo: "[max_iterations]\n"}, repo, 1, "max_iterations", "want an integer, got a table", "max_iterations = 5"},
		{"dotted key under a scalar", fixture{repo: "push.x = 1\n"}, repo, 1, "push", "want a boolean, got a table", "push = true"},
		{"non-string in prompts", fixture{repo: "prompts = [\"a.md\", 1]\n"}, repo, 1, "prompts",
			"element 2 is an integer (1)", "prompts = ["},
		{"string for args", fixture{repo: "[agents.x]\nargs = \"-p\"\n"}, repo, 2, "agents.x.args", "want an array of strings", `args = ["-p"`},

		// Values.
		{"max_iterations 0", fixture{repo: "\n\nmax_iterations = 0\n"}, repo, 3, "max_iterations",
			".ralph/config.toml:3: max_iterations: must be at least 1, got 0", "unlimited"},
		{"max_iterations huge", fixture{repo: "max_iterations = 99999999999\n"}, repo, 1, "max_iterations", "must be at most", "smaller"},
		{"negative idle_threshold", fixture{repo: "idle_threshold = -1\n"}, repo, 1, "idle_threshold", "must not be negative, got -1", "0 to never stop"},
		{"stagnation_threshold 1", fixture{repo: "stagnation_threshold = 1\n"}, repo, 1, "stagnation_threshold", "must be 0 or at least 2, got 1", "0 to turn the stagnation check off"},
		{"negative stagnation_threshold", fixture{repo: "\nstagnation_threshold = -2\n"}, repo, 2, "stagnation_threshold", "must not be negative, got -2", "2 or more"},
		{"stagnation_similarity over 100", fixture{repo: "[modes.build]\nstagnation_similarity = 150\n"}, repo, 2, "modes.build.stagnation_similarity", "must be at most 100 (percent), got 150", "from 1 to 100"},
		{"stagnation_similarity 0", fixture{repo: "stagnation_similarity = 0\n"}, repo, 1, "stagnation_similarity", "must be at least 1, got 0", "percentage from 1 to 100"},
		{"max_consecutive_errors 0", fixture{repo: "[modes.build]\nmax_consecutive_errors = 0\n"}, repo, 2,
			"modes.build.max_consecutive_errors", "must be at least 1, got 0", "1 is the smallest"},
		{"zero duration", fixture{repo: "validate_timeout = \"0s\"\n"}, repo, 1, "validate_timeout", "must be greater than 0, got 0s", "positive"},
		{"negative duration", fixture{repo: "backoff_base = \"-1s\"\n"}, repo, 1, "backoff_base", "must be greater than 0, got -1s", "positive"},
		{"zero iteration_timeout", fixture{repo: "iteration_timeout = \"0\"\n"}, repo, 1, "iteration_timeout", "greater than 0", "no timeout"},
		{"zero output_timeout", fixture{repo: "output_timeout = \"0s\"\n"}, repo, 1, "output_timeout", "must be greater than 0, got 0s", "never stop an agent for its silence"},
		{"negative output_timeout", fixture{repo: "\n[modes.build]\noutput_timeout = \"-5m\"\n"}, repo, 3, "modes.build.output_timeout", "must be greater than 0, got -5m0s", `"10m"`},
		{"unparsable output_timeout", fixture{repo: "output_timeout = \"ten minutes\"\n"}, repo, 1, "output_timeout", `want a duration, got "ten minutes"`, "1h30m"},
		{"zero hook timeout", fixture{repo: "[hooks]\ntimeout = \"0s\"\n"}, repo, 2, "hooks.timeout", "greater than 0", "30s"},
		{"days", fixture{repo: "max_limit_wait = \"3d\"\n"}, repo, 1, "max_limit_wait", `want a duration, got "3d"`, `"72h"`},
		{"duration without unit", fixture{repo: "backoff_max = \"30\"\n"}, repo, 1, "backoff_max", "want a duration", `"30s"`},
		{"empty duration", fixture{repo: "validate_timeout = \"\"\n"}, repo, 1, "validate_timeout", `want a duration, got ""`, "1h30m"},
		{"bad size unit", fixture{repo: "max_output_buffer = \"10XB\"\n"}, repo, 1, "max_output_buffer", `want a size, got "10XB"`, "512KiB"},
		{"size too large", fixture{repo: "max_output_buffer = \"2GiB\"\n"}, repo, 1, "max_output_buffer", "between 1 byte and 1GiB", "KB = KiB"},
		{"size zero", fixture{repo: "max_output_buffer = 0\n"}, repo, 1, "max_output_buffer", "between 1 byte and 1GiB, got 0", "KB = KiB"},
		{"bad log_level", fixture{repo: "log_level = \"verbose\"\n"}, repo, 1, "log_level",
			`want one of debug, info, warn, error, got "verbose"`, "debug, info, warn, error"},
		{"bad feedback", fixture{repo: "\n[modes.build]\nfeedback = \"every\"\n"}, repo, 3, "modes.build.feedback",
			`want one of last, all, got "every"`, `"all" for every failure of the run so far`},
		{"bad validate_format", fixture{repo: "validate = \"go test -json ./...\"\n\nvalidate_format = \"jnuit\"\n"}, repo, 3, "validate_format",
			`unknown test output format "jnuit"`, "did you mean junit? use one of: none, go-test-json, junit, tap, auto"},
		{"empty validate target", fixture{repo: "validate_targets = [\"TestA\", \" \"]\n"}, repo, 1, "validate_targets", "element 2 is empty", "a target is a test's name"},
		{"feedback of the wrong type", fixture{repo: "feedback = true\n"}, repo, 1, "feedback", "want a string, got a boolean", `feedback = "all"`},
		{"bad mode", fixture{repo: "mode = \"my mode\"\n"}, repo, 1, "mode", `invalid mode name "my mode"`, "letters, digits"},
		{"prompt and prompts", fixture{repo: "[modes.plan]\nprompt = \"a.md\"\nprompts = [\"b.md\"]\n"}, repo, 3,
			"modes.plan.prompts", "prompt and prompts are both set (prompt is on line 2)", "alone"},
		{"empty prompts", fixture{repo: "prompts = []\n"}, repo, 1, "prompts", "must not be empty", "at least one"},
		{"empty prompt", fixture{repo: "[modes.x]\nprompt = \"\"\n"}, repo, 2, "modes.x.prompt", "must not be empty", "relative"},
		{"prompt outside the repository", fixture{repo: "prompt = \"/etc/passwd\"\n"}, repo, 1, "prompt",
			"not a path inside the repository", "relative to the repository root"},
		{"prompts escaping the repository", fixture{repo: "prompts = [\"a.md\", \"../x.md\"]\n"}, repo, 1, "prompts",
			`"../x.md" is not a path inside`, "relative"},
		{"prompt in the git directory", fixture{repo: "\n[modes.plan]\nprompt = \".git/config\"\n"}, repo, 3, "modes.plan.prompt",
			`".git/config" is inside the git directory, not a file of the repository`, "work tree"},
		{"prompts in the git directory", fixture{repo: "prompts = [\"a.md\", \".git/HEAD\"]\n"}, repo, 1, "prompts",
			`".git/HEAD" is inside the git directory`, "credentials"},
		{"backoff_max below backoff_base in one file", fixture{repo: "backoff_base = \"2s\"\nbackoff_max = \"1s\"\n"}, repo, 2, "backoff_max",
			"backoff_max (1s, from .ralph/config.toml:2) is less than backoff_base (2s, from .ralph/config.toml:1)", "at least"},
		{"backoff_base above the default max", fixture{repo: "[modes.build]\nbackoff_base = \"2m\"\n"}, repo, 2, "modes.build.backoff_base",
			"backoff_max (1m0s, from default) is less than backoff_base (2m0s, from .ralph/config.toml:2 [modes.build])", "at least"},

		// The user file.
		{"user file", fixture{user: "[modes.plan]\nmax_iterations = -3\n"}, userDisplay, 2, "modes.plan.max_iterations",
			userDisplay + ":2: modes.plan.max_iterations: must be at least 1, got -3", "unlimited"},
		{"user file checked before the repo file", fixture{user: "x = 1\n", repo: "y = 1\n"}, userDisplay, 1, "x", "unknown key", "valid keys"},

		// Environment and flags.
		{"env integer", fixture{env: []string{"RALPH_MAX_ITERATIONS=lots"}}, "", 0, "RALPH_MAX_ITERATIONS",
			`env RALPH_MAX_ITERATIONS: want an integer, got "lots"`, "whole number"},
		{"env range", fixture{env: []string{"RALPH_MAX_CONSECUTIVE_ERRORS=0"}}, "", 0, "RALPH_MAX_CONSECUTIVE_ERRORS",
			"env RALPH_MAX_CONSECUTIVE_ERRORS: must be at least 1, got 0", "smallest"},
		{"env boolean", fixture{env: []string{"RALPH_PUSH=yes"}}, "", 0, "RALPH_PUSH", `want a boolean, got "yes"`, "true or false"},
		{"env duration", fixture{env: []string{"RALPH_ITERATION_TIMEOUT=-5m"}}, "", 0, "RALPH_ITERATION_TIMEOUT", "greater than 0, got -5m0s", "30m"},
		{"env size", fixture{env: []string{"RALPH_MAX_OUTPUT_BUFFER=huge"}}, "", 0, "RALPH_MAX_OUTPUT_BUFFER", `want a size, got "huge"`, "10MB"},
		{"env log level", fixture{env: []string{"RALPH_LOG_LEVEL=trace"}}, "", 0, "RALPH_LOG_LEVEL", "want one of", "debug"},
		{"env mode", fixture{env: []string{"RALPH_MODE=../x"}}, "", 0, "RALPH_MODE", "invalid mode name", "letters"},
		{"flag duration", fixture{flags: []Flag{{Key: "iteration_timeout", Name: "--timeout", Raw: "soon"}}}, "", 0, "--timeout",
			`--timeout: want a duration, got "soon"`, "1h30m"},
		{"flag zero max", fixture{flags: []Flag{{Key: "max_iterations", Name: "--max", Raw: "0"}}}, "", 0, "--max",
			"--max: must be at least 1, got 0", "--unlimited"},
		{"flag feedback", fixture{flags: []Flag{{Key: "feedback", Name: "--feedback", Raw: "ALL"}}}, "", 0, "--feedback",
			`--feedback: want one of last, all, got "ALL"`, `"last"`},
		{"env feedback", fixture{env: []string{"RALPH_FEEDBACK=none"}}, "", 0, "RALPH_FEEDBACK", `want one of last, all, got "none"`, "every failure"},
		{"flag mode", fixture{flags: []Flag{{Key: "mode", Name: "--mode", Raw: "a b"}}}, "", 0, "--mode", `--mode: invalid mode name "a b"`, "letters"},
		{"flag for an unknown key", fixture{flags: []Flag{{Key: "colour", Name: "--colour", Raw: "x"}}}, "", 0, "--colour",
			`no configuration key "colour"`, "bug"},
		{"backoff from env and flag", fixture{env: []string{"RALPH_BACKOFF_MAX=5s"},
			flags: []Flag{{Key: "backoff_base", Name: "--backoff-base", Raw: "10s"}}}, "", 0, "--backoff-base",
			"--backoff-base: backoff_max (5s, from env RALPH_BACKOFF_MAX) is less than backoff_base (10s, from flag --backoff-base)", "at least"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := tt.f.load(t)
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Load() = %+v, %v; want an *Error", c, err)
			}
			if e.File != tt.file || e.Line != tt.line || e.Field != tt.field {
				t.Errorf("at %s:%d field %q, want %s:%d field %q (%v)", e.File, e.Line, e.Field, tt.file, tt.line, tt.field, e)
			}
			if !strings.Contains(e.Error(), tt.msg) {
				t.Errorf("Error() = %q, want it to contain %q", e.Error(), tt.msg)
			}
			if e.Hint() == "" || !strings.Contains(e.Hint(), tt.hint) {
				t.Errorf("Hint() = %q, want it to contain %q", e.Hint(), tt.hint)
			}
			if strings.Contains(e.Hint(), "\n") || strings.Contains(e.Error(), "\n") {
				t.Errorf("want one-line messages, got %q / %q", e.Error(), e.Hint())
			}
		})
	}
}

func TestUnreadableFile(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root reads a file of mode 000")
	}
	root := t.TempDir()
	if err := os.MkdirAll(filepath.Join(root, ".ralph"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(root, ".ralph", "config.toml"), nil, 0o000); err != nil {
		t.Fatal(err)
	}
	_, err := Load(Sources{RepoRoot: root})
	var e *Error
	if !errors.As(err, &e) || e.File != ".ralph/config.toml" || e.Hint() == "" || errors.Unwrap(e) == nil {
		t.Fatalf("Load() error = %#v, want an *Error about the file wrapping the I/O error", err)
	}
	var pe *fs.PathError
	if !errors.As(err, &pe) {
		t.Errorf("error %v does not wrap the *fs.PathError", err)
	}
}

// A config file that is not a regular file inside the repository, or is too large, is
// refused with one error naming it and the reason, before anything reads it.
func TestRefusedFile(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "config.toml")
	if err := os.WriteFile(outside, []byte("agent_cmd = \"x\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for name, setup := range map[string]func(path string) error{
		"directory": func(path string) error { return os.Mkdir(path, 0o755) },
		"dev-zero":  func(path string) error { return os.Symlink("/dev/zero", path) },
		"outside":   func(path string) error { return os.Symlink(outside, path) },
		"too-large": func(path string) error { return os.WriteFile(path, make([]byte, repofile.ConfigLimit+1), 0o644) },
		"too-many-tables": func(path string) error {
			var b strings.Builder
			for i := 0; i <= maxDefinitions; i++ {
				fmt.Fprintf(&b, "[modes.m%d]\n", i)
			}
			return os.WriteFile(path, []byte(b.String()), 0o644)
		},
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			if err := os.MkdirAll(filepath.Join(root, ".ralph"), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := setup(filepath.Join(root, ".ralph", "config.toml")); err != nil {
				t.Fatal(err)
			}
			_, err := Load(Sources{RepoRoot: root})
			var e *Error
			if !errors.As(err, &e) || e.File != ".ralph/config.toml" || e.Hint() == "" ||
				!strings.HasPrefix(e.Error(), ".ralph/config.toml: refusing to read the file: ") {
				t.Fatalf("Load() error = %v, want a refusal naming .ralph/config.toml", err)
			}
		})
	}
}

func TestErrorFormat(t *testing.T) {
	tests := []struct {
		e    Error
		want string
	}{
		{Error{Kind: FromRepo, fieldError: fieldError{File: ".ralph/config.toml", Line: 12, Field: "max_iterations", Msg: "must be at least 1, got 0"}},
			".ralph/config.toml:12: max_iterations: must be at least 1, got 0"},
		{Error{Kind: FromRepo, fieldError: fieldError{File: ".ralph/config.toml", Msg: "can't read"}}, ".ralph/config.toml: can't read"},
		{Error{Kind: FromEnv, fieldError: fieldError{Field: "RALPH_PUSH", Msg: "bad"}}, "env RALPH_PUSH: bad"},
		{Error{Kind: FromFlag, fieldError: fieldError{Field: "--max", Msg: "bad"}}, "--max: bad"},
	}
	for _, tt := range tests {
		if got := tt.e.Error(); got != tt.want {
			t.Errorf("Error() = %q, want %q", got, tt.want)
		}
	}
}

func TestSuggest(t *testing.T) {
	valid := append(Keys(), tableNames...)
	tests := map[string]string{
		"max_iteration": "max_iterations", "maxiterations": "max_iterations", "Agent": "agent",
		"validate-timeout": "validate_timeout", "max": "max_iterations", "verbose": "show_agent_output",
		"mode": "mode", "agents": "agents", "xyz": "", "iteration": "iteration_timeout", "max_iters": "max_iterations", "back": "", strings.Repeat("a", 1000): "",
	}
	for in, want := range tests {
		if got := suggest(in, valid); got != want {
			t.Errorf("suggest(%.20q) = %q, want %q", in, got, want)
		}
	}
}
