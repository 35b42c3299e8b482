package doctor

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/history"
)

func TestDiskAgainstRetention(t *testing.T) {
	const mib = 1 << 20
	tests := []struct {
		name       string
		free, used uint64
		r          history.Retention
		want       Status
		detail     string
	}{
		{"room to spare", 10 << 30, 0, history.Retention{MaxBytes: 500 * mib}, OK, "10.0 GiB free; the history takes 0 B of history_max_size 500.0 MiB"},
		{"the history may still grow beyond what is free", 300 * mib, 0, history.Retention{MaxBytes: 500 * mib}, Fail, "300.0 MiB free; the history may grow by 500.0 MiB more"},
		{"what the history already took does not count twice", 300 * mib, 480 * mib, history.Retention{MaxBytes: 500 * mib}, OK, "300.0 MiB free"},
		{"the margin for the work itself", 200 * mib, 500 * mib, history.Retention{MaxBytes: 500 * mib}, Fail, "the work needs 256.0 MiB beside it"},
		{"no bound, little room", 512 * mib, 0, history.Retention{}, Fail, "history_max_size is none"},
		{"no bound, room", 8 << 30, 0, history.Retention{}, Warn, "grows without bound"},
	}
	for _, tt := range tests {
		r := diskResult(tt.free, tt.used, tt.r)
		if r.Status != tt.want || !strings.Contains(r.Detail, tt.detail) {
			t.Errorf("%s: got %s %q, want %s containing %q", tt.name, r.Status, r.Detail, tt.want, tt.detail)
		}
		if r.Status != OK && r.Hint == "" {
			t.Errorf("%s: no hint", tt.name)
		}
	}
}

func TestHistorySizeCountsTheSavedFiles(t *testing.T) {
	root := t.TempDir()
	dir := filepath.Join(root, ".ralph", "history", "1")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "output.log"), make([]byte, 1000), 0o644); err != nil {
		t.Fatal(err)
	}
	if got := historySize(root); got != 1000 {
		t.Errorf("historySize = %d, want 1000", got)
	}
	if got := historySize(t.TempDir()); got != 0 {
		t.Errorf("historySize of no history = %d", got)
	}
}

func TestGitVersion(t *testing.T) {
	tests := []struct {
		line  string
		want  []Status
		names string
	}{
		{"git version 2.39.5", []Status{OK}, "git"},
		{"git version 2.50.1 (Apple Git-155)", []Status{OK}, "git"},
		{"git version 2.45.2.windows.1", []Status{OK}, "git"},
		{"git version 2.37.1", []Status{OK, Warn}, "git git-merge-tree"},
		{"git version 2.30.0", []Status{Fail}, "git"},
		{"git version 3.0", []Status{OK}, "git"},
		{"something else", []Status{Warn}, "git"},
	}
	for _, tt := range tests {
		got := gitVersionChecks(tt.line)
		var statuses []Status
		var names []string
		for _, r := range got {
			statuses = append(statuses, r.Status)
			names = append(names, r.Name)
		}
		if strings.Join(names, " ") != tt.names || len(statuses) != len(tt.want) {
			t.Errorf("%q: got %v", tt.line, got)
			continue
		}
		for i := range statuses {
			if statuses[i] != tt.want[i] {
				t.Errorf("%q: got %v", tt.line, got)
			}
		}
	}
}

// fakeEnv is an environment of the given variables only.
func fakeEnv(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

func TestLoginPerPreset(t *testing.T) {
	home := t.TempDir()
	write := func(rel string) {
		p := filepath.Join(home, rel)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("{}"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	in := func(preset, goos string, vars map[string]string) Input {
		return Input{Preset: preset, Program: preset, Env: fakeEnv(vars), Home: home, GOOS: goos}
	}
	check := func(name string, r Result, want Status, detail string) {
		t.Helper()
		if r.Status != want || !strings.Contains(r.Detail, detail) {
			t.Errorf("%s: got %s %q, want %s containing %q", name, r.Status, r.Detail, want, detail)
		}
	}
	check("claude, nothing", login(in("claude", "linux", nil)), Fail, "claude is not logged in")
	check("claude on macOS keeps its login in the keychain", login(in("claude", "darwin", nil)), Warn, "unknown")
	check("claude with a key", login(in("claude", "linux", map[string]string{"ANTHROPIC_API_KEY": "sk-x"})), OK, "ANTHROPIC_API_KEY is set")
	check("gemini, nothing", login(in("gemini", "linux", nil)), Fail, "gemini is not logged in")
	check("opencode, nothing: its config may hold keys", login(in("opencode", "linux", nil)), Warn, "unknown")
	check("aider: not known", login(in("aider", "linux", nil)), Warn, "not known to git-ralph")
	check("a custom command", login(Input{AgentCmd: "my-agent", Env: fakeEnv(nil)}), OK, "not checked")

	write(".claude/.credentials.json")
	check("claude logged in", login(in("claude", "linux", nil)), OK, filepath.Join(home, ".claude", ".credentials.json"))
	write(".gemini/oauth_creds.json")
	check("gemini logged in", login(in("gemini", "linux", nil)), OK, "oauth_creds.json")

	// CODEX_HOME moves codex's files, and an empty file is no login
	codexHome := t.TempDir()
	write(".codex/auth.json")
	check("codex with CODEX_HOME elsewhere", login(in("codex", "linux", map[string]string{"CODEX_HOME": codexHome})), Fail, filepath.Join(codexHome, "auth.json"))
	if err := os.WriteFile(filepath.Join(codexHome, "auth.json"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	check("codex with an empty auth.json", login(in("codex", "linux", map[string]string{"CODEX_HOME": codexHome})), Fail, "not logged in")
	check("codex in HOME", login(in("codex", "linux", nil)), OK, "auth.json")
}

func TestCronPathFindsTheAgentWhereTheEntryLooks(t *testing.T) {
	bin := t.TempDir()
	agent := filepath.Join(bin, "my-agent")
	if err := os.WriteFile(agent, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	t.Chdir(filepath.Dir(bin)) // a relative directory finds it here, but cron starts elsewhere
	entries := []CronEntry{{ID: "aaaaaa", Path: "/usr/bin:" + bin}, {ID: "bbbbbb", Path: "/usr/bin:/bin"}, {ID: "cccccc", Path: filepath.Base(bin)}}
	in := Input{Root: t.TempDir(), AgentCmd: "my-agent -p", Env: fakeEnv(nil),
		Cron: func(context.Context) ([]CronEntry, error) { return entries, nil }}
	got := agentChecks(context.Background(), in)
	if len(got) != 2 || got[0].Status != OK || got[1].Status != Fail || !strings.HasSuffix(got[1].Detail, "cron entry bbbbbb, cccccc") {
		t.Fatalf("agentChecks = %+v", got)
	}
	entries = entries[:1]
	if got := agentChecks(context.Background(), in); got[1].Status != OK {
		t.Errorf("the entry's PATH holds the agent: %+v", got[1])
	}
}

func TestFailed(t *testing.T) {
	if Failed([]Result{ok("a", ""), warn("b", "", "")}) {
		t.Error("warnings count as a failure")
	}
	if !Failed([]Result{ok("a", ""), fail("b", "", "")}) {
		t.Error("a failure is missed")
	}
}

// An API agent has no program to find: its check is the model and the key's variable,
// and a cron entry is warned that the variable reaches it only if the crontab sets it.
func TestAPIAgentChecks(t *testing.T) {
	api := agentcheck.APIKey("anthropic-api", "claude-sonnet-4-5", "ANTHROPIC_API_KEY", true, false)
	entries := []CronEntry{{ID: "aaaaaa", Path: "/usr/bin"}}
	in := Input{Root: t.TempDir(), Preset: "anthropic-api", APIAgent: &api, Env: fakeEnv(nil),
		Cron: func(context.Context) ([]CronEntry, error) { return entries, nil }}
	got := agentChecks(context.Background(), in)
	if len(got) != 2 || got[0].Status != OK || !strings.Contains(got[0].Detail, "key from ANTHROPIC_API_KEY") ||
		got[1].Status != Warn || !strings.Contains(got[1].Hint, "ANTHROPIC_API_KEY=") {
		t.Fatalf("agentChecks = %+v", got)
	}
	if l := login(in); l.Status != OK {
		t.Errorf("login of an API agent: %+v", l)
	}
	missing := agentcheck.APIKey("anthropic-api", "claude-sonnet-4-5", "ANTHROPIC_API_KEY", false, false)
	in.APIAgent = &missing
	if got := agentChecks(context.Background(), in); len(got) != 1 || got[0].Status != Fail ||
		!strings.Contains(got[0].Detail, "ANTHROPIC_API_KEY is not set") {
		t.Errorf("no key: %+v", got)
	}
}
