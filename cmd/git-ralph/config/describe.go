package config

import (
	"time"
)

// KeyInfo describes one setting for programs (`git ralph help --json`): what a config
// file, an environment variable or a flag may set, read from the same specs that Load
// checks values against, so it cannot name a key Load does not know.
type KeyInfo struct {
	Key     string `json:"key"`           // "max_iterations", "agents.NAME.program", "hooks.timeout"
	Type    string `json:"type"`          // string, int, bool, duration, size, money, strings, list
	Default any    `json:"default"`       // the built-in default, as JSON; null when there is none
	Example string `json:"example"`       // a valid value as typed in an environment variable or a flag
	Env     string `json:"env,omitempty"` // its environment variable, for a key that has one
	InModes bool   `json:"in_modes"`      // allowed inside [modes.NAME] too
	Command bool   `json:"runs_command"`  // git ralph runs what it says, so it needs the user's trust in a repository's file
	Bounded bool   `json:"bounded"`       // a repository's file may tighten the user's value, never loosen it
	Help    string `json:"help"`          // what it does, in one sentence
	Min     *int64 `json:"min,omitempty"` // int keys: the smallest value allowed
}

// Describe lists every key of the configuration: the top-level ones (in the order of
// Keys), then those of an [agents.NAME] table, then those of [hooks].
func Describe() []KeyInfo {
	var out []KeyInfo
	for _, s := range topSpecs {
		k := keyInfo(s, s.key)
		if !s.fileOnly {
			k.Env = envName(s.key)
		}
		k.InModes = !s.topOnly
		k.Bounded = contains(Bounded, s.key)
		out = append(out, k)
	}
	for _, s := range agentSpecs {
		out = append(out, keyInfo(s, "agents.NAME."+s.key))
	}
	for _, s := range hookSpecs {
		out = append(out, keyInfo(s, "hooks."+s.key))
	}
	return out
}

// keyInfo is the part of a key's description its spec alone says.
func keyInfo(s spec, key string) KeyInfo {
	k := KeyInfo{Key: key, Type: s.typ.name(), Default: defaultJSON(s.def), Example: s.example,
		Command: s.command || s.commandIf != nil, Help: keyHelp[key]}
	if s.typ == typeInt {
		k.Min = &s.min
	}
	return k
}

// name is how a type is called in the description.
func (t valueType) name() string {
	return [...]string{typeString: "string", typeInt: "int", typeBool: "bool", typeDuration: "duration",
		typeSize: "size", typeStrings: "strings", typeMoney: "money", typeList: "list"}[t]
}

// defaultJSON is a default as a JSON value: a duration as Go writes it ("10m0s"), none
// for an empty list or an absent default.
func defaultJSON(def any) any {
	switch v := def.(type) {
	case time.Duration:
		if v == 0 {
			return ""
		}
		return v.String()
	case []string:
		if len(v) == 0 {
			return []string{}
		}
	}
	return def
}

// keyHelp says what each key does; a test fails for a key without one and for an entry
// that names no key.
var keyHelp = map[string]string{
	"agent":                  "The agent preset to run (claude, codex, …) or the name of an [agents.NAME] table.",
	"agent_cmd":              "The agent as a whole command line, instead of a preset.",
	"model":                  "The model an API agent (anthropic-api, openai-api, openai-chat) talks to.",
	"api_base":               "The address of an API agent's server; by default ANTHROPIC_BASE_URL or OPENAI_BASE_URL, then the vendor's. A repository's needs your trust.",
	"api_key_env":            "The variable holding an API agent's key; by default ANTHROPIC_API_KEY or OPENAI_API_KEY. A repository's needs your trust.",
	"api_max_turns":          "How many model requests one iteration of an API agent may make.",
	"api_max_context":        "The most tokens an API agent's conversation may grow to; 0 for no cap of git-ralph's own.",
	"mode":                   "The mode: its prompt is PROMPT_<mode>.md (plan, build, or one of your own).",
	"max_iterations":         "How many iterations a run may take at most.",
	"unlimited":              "Run without an iteration limit.",
	"iteration_timeout":      "Stop an iteration's agent after this long; empty for no timeout.",
	"output_timeout":         "Stop an agent that has printed nothing for this long; empty for never.",
	"idle_threshold":         "Stop after this many iterations in a row that changed nothing in git; 0 for never.",
	"stagnation_threshold":   "Stop after this many iterations in a row that repeat the same attempt; 0 turns the check off.",
	"stagnation_similarity":  "How alike, in percent, two iterations must be to count as the same attempt.",
	"max_consecutive_errors": "Abort after this many failed iterations in a row.",
	"max_output_buffer":      "How much of an agent's output an iteration keeps, up to 1 GiB.",
	"validate":               "The command that validates each iteration's work; its failure goes into the next prompt.",
	"validate_timeout":       "Stop the validate command (and the promise command) after this long.",
	"validate_format":        "How the validate command's output names its tests (go-test-json, junit, tap, auto), so that tests failing before the run are not the agent's; none: the exit code alone.",
	"validate_targets":       "Tests that must pass for validation to pass (with validate_format).",
	"until":                  "The promise command: the run succeeds when it passes.",
	"feedback":               "Which failures go into the next prompt: last, or all of the run's.",
	"judge":                  "An agent preset or a command that judges each iteration whose validation passed.",
	"push":                   "Push after each iteration that made commits.",
	"remote":                 "The remote to push to; empty for the branch's upstream, else origin.",
	"branch":                 "The branch to push to; empty for the upstream branch, else the same name.",
	"backoff_base":           "The first wait after a transient agent error; it doubles each time.",
	"backoff_max":            "The longest wait after a transient agent error.",
	"max_limit_wait":         "The longest wait for a usage limit to reset; beyond it the loop stops.",
	"stop_on_overage":        "Stop after an iteration served on paid extra usage.",
	"max_cost":               "Stop when the run has spent this many US dollars; 0 for no budget.",
	"max_tokens":             "Stop when the run has used this many input and output tokens; 0 for no budget.",
	"daily_max_cost":         "Stop when the day's spend over every loop reaches this many US dollars; 0 for no budget.",
	"log_level":              "How much the structured log records: debug, info, warn or error.",
	"show_agent_output":      "Stream the agent's output as it runs (the flag --verbose).",
	"notify":                 "Where to say that a loop stopped: desktop, bell and webhook URLs.",
	"history_keep":           "How many iterations keep their output and diff; 0 keeps every one.",
	"history_max_size":       "The most disk the iterations' outputs and diffs may take; 0 for no limit.",
	"template":               "A loop template whose prompt replaces the mode's.",
	"prompt":                 "The prompt file of a mode, instead of PROMPT_<mode>.md (files only).",
	"prompts":                "Prompt files joined in order into the prompt (files only).",
	"agents.NAME.program":    "The program of the agent NAME.",
	"agents.NAME.args":       "The arguments that replace the preset's.",
	"agents.NAME.extra_args": "Arguments added after the preset's.",
	"hooks.on_iteration":     "A command run on iteration_finished of every iteration that counts, with the event on its stdin.",
	"hooks.on_complete":      "A command run on run_finished with status success, max-iters, idle or interrupted.",
	"hooks.on_failure":       "A command run on run_finished with status aborted, fatal, budget or stagnation.",
	"hooks.on_limit":         "A command run on waiting for a usage limit, and on run_finished with status limited.",
	"hooks.timeout":          "Stop a hook's command (its whole process group) after this long.",
}
