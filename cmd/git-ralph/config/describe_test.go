package config

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestDescribeCoversEveryKey: every key Load knows is described, with help, a type and
// its environment variable where it has one; the help table names no key Load refuses.
func TestDescribeCoversEveryKey(t *testing.T) {
	described := map[string]KeyInfo{}
	for _, k := range Describe() {
		if _, dup := described[k.Key]; dup {
			t.Errorf("%s is described twice", k.Key)
		}
		described[k.Key] = k
		if k.Help == "" || k.Type == "" || k.Example == "" {
			t.Errorf("%s: help %q, type %q, example %q: none may be empty", k.Key, k.Help, k.Type, k.Example)
		}
	}
	for _, key := range Keys() {
		k, ok := described[key]
		if !ok {
			t.Errorf("key %s is not described", key)
			continue
		}
		if s := findSpec(topSpecs, key); !s.fileOnly && k.Env != "RALPH_"+strings.ToUpper(key) {
			t.Errorf("%s: env %q", key, k.Env)
		}
	}
	for _, s := range agentSpecs {
		if _, ok := described["agents.NAME."+s.key]; !ok {
			t.Errorf("[agents.NAME] key %s is not described", s.key)
		}
	}
	for _, s := range hookSpecs {
		if _, ok := described["hooks."+s.key]; !ok {
			t.Errorf("[hooks] key %s is not described", s.key)
		}
	}
	for key := range keyHelp {
		if _, ok := described[key]; !ok {
			t.Errorf("keyHelp has %s, which is no key", key)
		}
	}
}

// TestDescribeSaysWhatLoadDoes: the flags of a description are the rules Load applies.
func TestDescribeSaysWhatLoadDoes(t *testing.T) {
	byKey := map[string]KeyInfo{}
	for _, k := range Describe() {
		byKey[k.Key] = k
	}
	if k := byKey["mode"]; k.InModes || k.Env != "RALPH_MODE" || k.Default != "build" {
		t.Errorf("mode: %+v", k)
	}
	if k := byKey["prompts"]; k.Env != "" || !k.InModes {
		t.Errorf("prompts is set in files only, in [modes.NAME] too: %+v", k)
	}
	if k := byKey["max_iterations"]; !k.Bounded || k.Min == nil || *k.Min != 1 || k.Default != 5 {
		t.Errorf("max_iterations: %+v", k)
	}
	if k := byKey["validate"]; !k.Command || k.Bounded {
		t.Errorf("validate runs a command: %+v", k)
	}
	if k := byKey["notify"]; !k.Command {
		t.Error("notify may send to a webhook, so it needs trust")
	}
	out, err := json.Marshal(byKey["validate_timeout"])
	if err != nil || !strings.Contains(string(out), `"default":"10m0s"`) {
		t.Errorf("validate_timeout as JSON: %s (%v)", out, err)
	}
	if !slices.Equal(Keys()[:2], []string{"agent", "agent_cmd"}) || Describe()[0].Key != "agent" {
		t.Error("Describe keeps the order of Keys")
	}
}
