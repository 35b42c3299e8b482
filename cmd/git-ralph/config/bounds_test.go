package config

import (
	"slices"
	"strings"
	"testing"
)

// boundCases are, for every bounded setting, a value of the user's file and a looser and a
// stricter one, as TOML writes them and as a flag (or a workflow's stage) gives them.
var boundCases = []struct {
	key, yours, looser, looserRaw, stricter, stricterRaw string
}{
	{"max_iterations", "3", "100000", "100000", "2", "2"},
	{"iteration_timeout", `"2s"`, `"100h"`, "100h", `"1s"`, "1s"},
	{"output_timeout", `"2m"`, `""`, "", `"1m"`, "1m"},
	{"idle_threshold", "2", "0", "0", "1", "1"},
	{"stagnation_threshold", "3", "0", "0", "2", "2"},
	{"stagnation_similarity", "90", "100", "100", "80", "80"},
	{"max_consecutive_errors", "2", "1000", "1000", "1", "1"},
	{"max_limit_wait", `"1h"`, `"100h"`, "100h", `"30m"`, "30m"},
	{"stop_on_overage", "false", "false", "false", "true", "true"}, // looser: none; see below
	{"max_cost", "1.0", "99999.0", "99999", "0.5", "0.5"},
	{"max_tokens", "1000", "0", "0", "500", "500"},
	{"daily_max_cost", "10", "0", "0", "5", "5"},
	{"history_keep", "10", "0", "0", "5", "5"},
	{"history_max_size", `"100MiB"`, "0", "0", `"50MiB"`, "50MiB"},
	{"api_max_turns", "50", "500", "500", "10", "10"},
	{"api_max_context", "100000", "0", "0", "50000", "50000"},
}

// entry is the resolved entry of key.
func entry(t *testing.T, c *Config, key string) Entry {
	t.Helper()
	for _, e := range c.Entries() {
		if e.Key == key {
			return e
		}
	}
	t.Fatalf("no entry %s", key)
	return Entry{}
}

// A repository's settings — its config file's and a workflow stage's — may tighten every
// bounded setting of the user's, never loosen it; a refusal is a warning naming the line;
// the user's variable decides over both.
func TestRepositoryTightensNeverLoosens(t *testing.T) {
	if got := len(boundCases); got != len(Bounded) {
		t.Fatalf("%d cases for %d bounded settings", got, len(Bounded))
	}
	stage := func(raw string, key string) []WorkflowSetting {
		return []WorkflowSetting{{Key: key, Raw: raw, File: ".ralph/workflows/w.toml", Line: 4, Field: "stages.s." + key}}
	}
	for _, tc := range boundCases {
		user := tc.key + " = " + tc.yours + "\n"
		if tc.key == "stop_on_overage" {
			user = "stop_on_overage = true\n"
		}
		yours := entry(t, fixture{user: user}.mustLoad(t), tc.key)
		sources := map[string]struct{ looser, stricter fixture }{
			"config":   {fixture{user: user, repo: "\n" + tc.key + " = " + tc.looser + "\n"}, fixture{repo: "\n" + tc.key + " = " + tc.stricter + "\n"}},
			"workflow": {fixture{user: user, workflow: stage(tc.looserRaw, tc.key)}, fixture{workflow: stage(tc.stricterRaw, tc.key)}},
		}
		for name, src := range sources {
			t.Run(tc.key+"/"+name, func(t *testing.T) {
				c := src.looser.mustLoad(t)
				if got := entry(t, c, tc.key); got != yours {
					t.Errorf("looser: %s (%s), want yours: %s (%s)", got.Value, got.Origin, yours.Value, yours.Origin)
				}
				field := map[string]string{"config": ".ralph/config.toml:2: " + tc.key, "workflow": ".ralph/workflows/w.toml:4: stages.s." + tc.key}[name]
				if len(c.Warnings) != 1 || !strings.HasPrefix(c.Warnings[0], field+": a repository's "+name+" may not ") ||
					!strings.HasSuffix(c.Warnings[0], ": yours applies") {
					t.Errorf("warnings %q, want one of %s", c.Warnings, field)
				}
				env := src.looser
				env.env = []string{envName(tc.key) + "=" + tc.stricterRaw}
				if c := env.mustLoad(t); entry(t, c, tc.key).Origin.Kind != FromEnv || len(c.Warnings) != 0 {
					t.Errorf("with a variable: %s from %s, warnings %q", entry(t, c, tc.key).Value, entry(t, c, tc.key).Origin, c.Warnings)
				}
				src.stricter.user = tc.key + " = " + tc.yours + "\n" // stop_on_overage: false
				c = src.stricter.mustLoad(t)
				if got := entry(t, c, tc.key); got.Origin.Kind != FromRepo || len(c.Warnings) != 0 {
					t.Errorf("stricter: %s from %s, warnings %q", got.Value, got.Origin, c.Warnings)
				}
			})
		}
	}
}

// A stage's setting is over the repository's file: the repository's nearer word, as a mode
// section is over its file's top level.
func TestWorkflowSettingOverRepositoryFile(t *testing.T) {
	c := fixture{repo: "idle_threshold = 1\n", workflow: []WorkflowSetting{{Key: "idle_threshold", Raw: "0", File: "w", Line: 2, Field: "stages.s.idle_threshold"}}}.mustLoad(t)
	if c.IdleThreshold.V != 2 || !slices.ContainsFunc(c.Warnings, func(w string) bool { return strings.Contains(w, "stages.s.idle_threshold") }) {
		t.Errorf("idle_threshold %d from %s, warnings %q: want the default 2, the stage's 0 refused", c.IdleThreshold.V, c.IdleThreshold.Origin, c.Warnings)
	}
	c = fixture{repo: "max_cost = 1\n", workflow: []WorkflowSetting{{Key: "max_cost", Raw: "0.5", File: "w", Line: 2, Field: "stages.s.max_cost"}}}.mustLoad(t)
	if c.MaxCost.V != 0.5 || c.MaxCost.Origin.String() != "w:2" {
		t.Errorf("max_cost %v from %s", c.MaxCost.V, c.MaxCost.Origin)
	}
}

// The stage's settings travel to its loop as text: what is read is what was written, and
// only bounded settings are taken.
func TestWorkflowSettingText(t *testing.T) {
	w := WorkflowSetting{Key: "iteration_timeout", Raw: "1h30m", File: ".ralph/workflows/ship.toml", Line: 12, Field: "stages.build.timeout"}
	got, err := ParseWorkflowSetting(w.String())
	if err != nil || got != w {
		t.Errorf("read %+v, %v; want %+v", got, err, w)
	}
	for _, bad := range []string{"", "max_cost=1", "f:x:stages.a.max_cost:max_cost=1", "f:1:max_cost=1"} {
		if _, err := ParseWorkflowSetting(bad); err == nil {
			t.Errorf("%q read", bad)
		}
	}
	for _, key := range []string{"validate", "agent_cmd", "prompts"} {
		_, err := fixture{workflow: []WorkflowSetting{{Key: key, Raw: "x", File: "w", Line: 1, Field: "stages.s." + key}}}.load(t)
		if err == nil {
			t.Errorf("a workflow setting of %s was taken", key)
		}
	}
	_, err = fixture{workflow: []WorkflowSetting{{Key: "max_cost", Raw: "lots", File: "w", Line: 3, Field: "stages.s.max_cost"}}}.load(t)
	if err == nil || !strings.Contains(err.Error(), "w:3: stages.s.max_cost: want an amount") {
		t.Errorf("a bad value: %v", err)
	}
}
