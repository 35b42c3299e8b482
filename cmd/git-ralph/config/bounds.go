package config

import (
	"fmt"
	"slices"
	"strconv"
	"strings"
	"time"
)

// The settings that bound what a loop spends or keeps — its money, its iterations, its
// time, the disk its history takes — are the exception to the order of the sources: the
// repository's settings (its .ralph/config.toml, and a workflow stage's, which the
// repository's workflow file gives) may tighten the user's, never loosen them. A flag or
// variable decides over both: the user's, for this run. A repository's value refused as
// looser is named in a warning (Config.Warnings), not dropped silently.

// Bounded are the settings a repository may tighten but not loosen.
var Bounded = []string{"max_iterations", "iteration_timeout", "output_timeout", "idle_threshold", "stagnation_threshold",
	"stagnation_similarity", "max_consecutive_errors", "max_limit_wait", "stop_on_overage", "max_cost", "max_tokens",
	"daily_max_cost", "history_keep", "history_max_size", "api_max_turns", "api_max_context"}

// sources are the tables of one resolution, and the refusals it made.
type sources struct {
	user, repo *layer
	mode       string
	workflow   table // a workflow stage's settings: the repository's, over its file's
	env, flags table
	refused    []string // warnings: the repository's values looser than the user's
}

// all are the tables, lowest precedence first.
func (s *sources) all() tiers {
	return tiers{defaults(topSpecs), s.user.top, s.user.modes[s.mode], s.repo.top, s.repo.modes[s.mode], s.workflow, s.env, s.flags}
}

// yours are the user's file over the defaults; theirs the repository's settings alone.
func (s *sources) yours() tiers  { return tiers{defaults(topSpecs), s.user.top, s.user.modes[s.mode]} }
func (s *sources) theirs() tiers { return tiers{s.repo.top, s.repo.modes[s.mode], s.workflow} }

// now are the user's settings of this run: the variables and the flags.
func (s *sources) now() tiers { return tiers{s.env, s.flags} }

// safeguard resolves a bounded setting: a flag or variable decides; else the
// repository's value applies only where it is stricter than the user's file (or the
// default). Budgets (max_cost, max_tokens, daily_max_cost) are bounded by tighter: a
// repository can lower the user's budget but never raise it, nor lift it with 0. A clone's settings are the repository author's: they may make a loop stop
// sooner, never lift a protection the user chose or the default gives.
func safeguard[T comparable](s *sources, key string, stricter func(a, b T) bool) Value[T] {
	if v := get[T](s.now(), key); v.Origin.Kind != FromDefault {
		return v
	}
	yours := get[T](s.yours(), key)
	theirs := get[T](s.theirs(), key)
	if theirs.Origin.Kind != FromRepo {
		return yours
	}
	if stricter(theirs.V, yours.V) {
		return theirs
	}
	refuse(s, key, theirs, yours)
	return yours
}

// stopsOnOverage: stopping on paid extra usage is stricter than going on.
func stopsOnOverage(a, b bool) bool { return a && !b }

// tighter: a threshold, timeout or bound a stops sooner (or keeps less) than b when it is
// on and lower; 0 is off.
func tighter[T int | int64 | float64 | time.Duration](a, b T) bool { return a > 0 && (b == 0 || a < b) }

// lower: a percentage of likeness a counts more iterations as the same than b.
func lower(a, b int) bool { return a < b }

// refuse notes the repository's value theirs, looser than the user's yours, which applies.
func refuse[T comparable](s *sources, key string, theirs, yours Value[T]) {
	if theirs.V != yours.V {
		s.refused = append(s.refused, Loosened(key, theirs.V, theirs.Origin, yours.V, yours.Origin))
	}
}

// Loosened is the warning of the repository's value theirs of the bounded setting key
// (at o, a line of its config or workflow file), refused as looser than yours (from
// yoursAt), which applies.
func Loosened(key string, theirs any, o Origin, yours any, yoursAt Origin) string {
	field := o.Name // a workflow stage's key, as its file names it
	if field == "" {
		field = key
		if o.Mode != "" {
			field = "modes." + o.Mode + "." + key
		}
	}
	source, verb, name := "config", "loosen", key
	if o.Name != "" {
		source = "workflow"
	}
	switch key {
	case "max_iterations", "max_cost", "max_tokens", "daily_max_cost", "api_max_turns", "api_max_context":
		verb = "raise"
	case "iteration_timeout", "output_timeout", "max_limit_wait":
		verb = "lengthen"
	}
	if key == "max_iterations" {
		name = "iteration limit"
	}
	return fmt.Sprintf("%s:%d: %s: a repository's %s may not %s your %s of %s (%s) to %s: yours applies",
		o.File, o.Line, field, source, verb, name, showBound(key, yours), yoursAt, showBound(key, theirs))
}

// showBound writes a bounded setting's value for people, saying what its 0 means.
func showBound(key string, v any) string {
	switch x := v.(type) {
	case time.Duration:
		if x == 0 {
			return "none"
		}
		return x.String()
	case int64:
		return sizeOrNone(x)
	case float64:
		return formatMoney(x)
	case int:
		off := map[string]string{"idle_threshold": "never stop", "stagnation_threshold": "off", "history_keep": "keep all",
			"max_tokens": "none", "api_max_context": "none"}[key]
		if x == 0 && off != "" {
			return "0 (" + off + ")"
		}
		return strconv.Itoa(x)
	}
	return fmt.Sprint(v)
}

// WorkflowSetting is a bounded setting a workflow file gives its stage's loop. It is the
// repository's, as its config file's are: it may tighten the user's limits, not loosen
// them. The workflow's command passes it to the stage's loop (String, ParseWorkflowSetting)
// apart from the flags, which are the user's.
type WorkflowSetting struct {
	Key   string // the configuration's key: "iteration_timeout"
	Raw   string // the value, as a flag takes it: "30m"
	File  string // the workflow file: ".ralph/workflows/ship.toml"
	Line  int    // the line of Field in File; 0: unknown
	Field string // the key as File names it: "stages.build.timeout"
}

// String is the setting as ParseWorkflowSetting reads it: FILE:LINE:FIELD:KEY=RAW.
func (w WorkflowSetting) String() string {
	return fmt.Sprintf("%s:%d:%s:%s=%s", w.File, w.Line, w.Field, w.Key, w.Raw)
}

// ParseWorkflowSetting reads a WorkflowSetting's String.
func ParseWorkflowSetting(s string) (WorkflowSetting, error) {
	head, raw, ok := strings.Cut(s, "=")
	parts := strings.Split(head, ":")
	if !ok || len(parts) != 4 {
		return WorkflowSetting{}, fmt.Errorf("a workflow's setting %q is not FILE:LINE:FIELD:KEY=VALUE", s)
	}
	line, err := strconv.Atoi(parts[1])
	if err != nil || line < 0 {
		return WorkflowSetting{}, fmt.Errorf("a workflow's setting %q has no line number", s)
	}
	return WorkflowSetting{File: parts[0], Line: line, Field: parts[2], Key: parts[3], Raw: raw}, nil
}

// workflowTable reads a workflow stage's settings, each a bounded setting of the
// repository's origin.
func workflowTable(list []WorkflowSetting) (table, error) {
	t := table{}
	for _, w := range list {
		o := Origin{Kind: FromRepo, File: w.File, Line: w.Line, Name: w.Field}
		s := findSpec(topSpecs, w.Key)
		if s == nil || s.fileOnly || !slices.Contains(Bounded, w.Key) || w.Field == "" {
			return nil, newProblem("this is a bug in git ralph: please report it",
				"%q is not a setting a workflow's stage may bound", w.Key).at(o, w.Field)
		}
		v, p := s.fromString(w.Raw)
		if p != nil {
			return nil, p.at(o, w.Field)
		}
		t[s.key] = setting{v: v, key: s.key, origin: o}
	}
	return t, nil
}
