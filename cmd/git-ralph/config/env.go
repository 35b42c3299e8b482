package config

import (
	"fmt"
	"slices"
	"strings"
)

// lookupEnv returns the value of name in env ("KEY=VALUE" entries; the first wins, as
// with os.Getenv), or "".
func lookupEnv(env []string, name string) string {
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == name {
			return v
		}
	}
	return ""
}

// outerLoopVars are set by git ralph for its agents: inside such an agent (RALPH_RUN is
// set) they describe the outer loop, not configuration.
var outerLoopVars = []string{"mode", "max_iterations"}

// ownVars are set by git ralph itself for its agents, validate commands and hooks, so
// a git ralph run inside them (the demo, an agent that runs git ralph) sees them: they
// are not settings, and not mistakes either.
var ownVars = []string{"RALPH_ITERATION", "RALPH_MODE", "RALPH_MAX_ITERATIONS", "RALPH_RUN", "RALPH_EVENT", "RALPH_HOOK"}

// envWarnings names each RALPH_ variable that is no setting, with the closest setting's
// variable, as an unknown key in a file gets: RALPH_MAX_ITERATONS is a typo that would
// otherwise be silently ignored. An empty one counts as unset, as for settings.
func envWarnings(env []string) []string {
	var known []string
	for _, s := range topSpecs {
		if !s.fileOnly {
			known = append(known, s.key)
		}
	}
	var warnings []string
	for _, kv := range env {
		name, value, _ := strings.Cut(kv, "=")
		key, ok := strings.CutPrefix(name, "RALPH_")
		if !ok || value == "" || contains(ownVars, name) || contains(known, strings.ToLower(key)) && envName(strings.ToLower(key)) == name {
			continue
		}
		w := fmt.Sprintf("environment variable %s is not a git ralph setting and is ignored", name)
		switch s := findSpec(topSpecs, strings.ToLower(key)); {
		case s != nil && s.fileOnly:
			w = fmt.Sprintf("environment variable %s is ignored: %s can be set only in a config file", name, s.key)
		case suggest(key, known) != "":
			w += "; did you mean " + envName(suggest(key, known)) + "?"
		default:
			w += "; 'git ralph config' lists the settings"
		}
		warnings = append(warnings, w)
	}
	return warnings
}

// envTable reads RALPH_<KEY> for every key that can be set from the environment.
func envTable(env []string) (table, error) {
	t := table{}
	nested := lookupEnv(env, "RALPH_RUN") != ""
	for i := range topSpecs {
		s := &topSpecs[i]
		name := envName(s.key)
		raw := lookupEnv(env, name)
		if s.fileOnly || raw == "" || nested && contains(outerLoopVars, s.key) {
			continue
		}
		o := Origin{Kind: FromEnv, Name: name}
		v, p := s.fromString(raw)
		if p != nil {
			return nil, p.at(o, name)
		}
		if old, ok := t[s.key]; ok && s.union { // --protect A --protect B: both
			v = append(slices.Clone(old.v.([]string)), v.([]string)...)
		}
		t[s.key] = setting{v: v, key: s.key, origin: o}
	}
	return t, nil
}

// flagTable reads the flags; a later flag for the same key wins, but for a list every
// source adds to (protect), which has them all.
func flagTable(flags []Flag) (table, error) {
	t := table{}
	for _, f := range flags {
		o := Origin{Kind: FromFlag, Name: f.Name}
		s := findSpec(topSpecs, f.Key)
		if s == nil || s.fileOnly {
			return nil, newProblem("this is a bug in git ralph: please report it",
				"no configuration key %q", f.Key).at(o, f.Name)
		}
		v, p := s.fromString(f.Raw)
		if p != nil {
			return nil, p.at(o, f.Name)
		}
		if old, ok := t[s.key]; ok && s.union { // --protect A --protect B: both
			v = append(slices.Clone(old.v.([]string)), v.([]string)...)
		}
		t[s.key] = setting{v: v, key: s.key, origin: o}
	}
	return t, nil
}
