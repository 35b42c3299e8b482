package config

import "strings"

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
		t[s.key] = setting{v: v, key: s.key, origin: o}
	}
	return t, nil
}

// flagTable reads the flags; a later flag for the same key wins.
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
		t[s.key] = setting{v: v, key: s.key, origin: o}
	}
	return t, nil
}
