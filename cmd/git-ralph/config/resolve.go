package config

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"
	"time"
)

// tiers are the tables of one resolution, lowest precedence first.
type tiers []table

func (ts tiers) lookup(key string) setting {
	for i := len(ts) - 1; i >= 0; i-- {
		if s, ok := ts[i][key]; ok {
			return s
		}
	}
	return setting{}
}

func get[T any](ts tiers, key string) Value[T] {
	s := ts.lookup(key)
	v, _ := s.v.(T)
	return Value[T]{V: v, Origin: s.origin}
}

// defaults is the built-in tier for specs.
func defaults(specs []spec) table {
	t := table{}
	for _, s := range specs {
		if s.def != nil {
			t[s.key] = setting{v: s.def, key: s.key}
		}
	}
	return t
}

// resolve merges the sources: see the package documentation for the order.
func resolve(user, repo *layer, workflow, env, flags table) (*Config, error) {
	mode := get[string](tiers{defaults(topSpecs), user.top, repo.top, env, flags}, "mode")
	s := &sources{user: user, repo: repo, mode: mode.V, workflow: workflow, env: env, flags: flags}
	ts := s.all()
	c := &Config{
		Agent:                get[string](ts, "agent"),
		AgentCmd:             get[string](ts, "agent_cmd"),
		Model:                get[string](ts, "model"),
		APIBase:              get[string](ts, "api_base"),
		APIKeyEnv:            get[string](ts, "api_key_env"),
		APIMaxTurns:          safeguard(s, "api_max_turns", tighter[int]),
		APIMaxContext:        safeguard(s, "api_max_context", tighter[int]),
		Mode:                 mode,
		IterationTimeout:     safeguard(s, "iteration_timeout", tighter[time.Duration]),
		OutputTimeout:        safeguard(s, "output_timeout", tighter[time.Duration]),
		IdleThreshold:        safeguard(s, "idle_threshold", tighter[int]),
		StagnationThreshold:  safeguard(s, "stagnation_threshold", tighter[int]),
		StagnationSimilarity: safeguard(s, "stagnation_similarity", lower),
		MaxConsecutiveErrors: safeguard(s, "max_consecutive_errors", tighter[int]),
		MaxOutputBuffer:      get[int64](ts, "max_output_buffer"),
		Validate:             get[string](ts, "validate"),
		ValidateTimeout:      get[time.Duration](ts, "validate_timeout"),
		ValidateFormat:       get[string](ts, "validate_format"),
		ValidateTargets:      get[[]string](ts, "validate_targets"),
		Until:                get[string](ts, "until"),
		Feedback:             get[string](ts, "feedback"),
		Judge:                get[string](ts, "judge"),
		Push:                 get[bool](ts, "push"),
		Remote:               get[string](ts, "remote"),
		Branch:               get[string](ts, "branch"),
		BackoffBase:          get[time.Duration](ts, "backoff_base"),
		BackoffMax:           get[time.Duration](ts, "backoff_max"),
		MaxLimitWait:         safeguard(s, "max_limit_wait", tighter[time.Duration]),
		StopOnOverage:        safeguard(s, "stop_on_overage", stopsOnOverage),
		MaxCost:              safeguard(s, "max_cost", tighter[float64]),
		MaxTokens:            safeguard(s, "max_tokens", tighter[int]),
		DailyMaxCost:         safeguard(s, "daily_max_cost", tighter[float64]),
		LogLevel:             get[string](ts, "log_level"),
		ShowAgentOutput:      get[bool](ts, "show_agent_output"),
		Notify:               get[[]string](ts, "notify"),
		HistoryKeep:          safeguard(s, "history_keep", tighter[int]),
		HistoryMaxSize:       safeguard(s, "history_max_size", tighter[int64]),
		Template:             get[string](ts, "template"),
		Prompts:              get[[]string](ts, "prompts"),
		Agents:               mergeAgents(user, repo),
		Prices:               mergePrices(user),
		Hooks:                mergeHooks(user, repo),
		repoCommands:         repo.commands,
	}
	c.MaxIterations, c.LiftedLimit = iterationLimit(s)
	c.Warnings = s.refused
	if err := checkBackoff(c); err != nil {
		return nil, err
	}
	return c, nil
}

// rank orders origins by precedence, mode sections above their file's top level.
func rank(o Origin) int {
	r := int(o.Kind) * 2
	if o.Mode != "" {
		r++
	}
	return r
}

// checkBackoff requires backoff_max >= backoff_base, blaming whichever was set with
// the higher precedence.
func checkBackoff(c *Config) error {
	base, max := c.BackoffBase, c.BackoffMax
	if max.V >= base.V {
		return nil
	}
	at, key := max.Origin, "backoff_max"
	if rank(base.Origin) > rank(max.Origin) {
		at, key = base.Origin, "backoff_base"
	}
	field := key
	if at.Mode != "" {
		field = "modes." + at.Mode + "." + key
	}
	return newProblem("make backoff_max at least as long as backoff_base",
		"backoff_max (%s, from %s) is less than backoff_base (%s, from %s)",
		max.V, max.Origin, base.V, base.Origin).at(at, field)
}

func mergeAgents(user, repo *layer) map[string]AgentOverride {
	agents := map[string]AgentOverride{}
	for _, name := range append(slices.Clone(user.agentSeq), repo.agentSeq...) {
		ts := tiers{defaults(agentSpecs), user.agents[name], repo.agents[name]}
		a := AgentOverride{
			Program:   get[string](ts, "program"),
			Args:      get[[]string](ts, "args"),
			ExtraArgs: get[[]string](ts, "extra_args"),
		}
		a.ArgsSet = a.Args.Origin.Kind != FromDefault
		agents[name] = a
	}
	return agents
}

func mergeHooks(user, repo *layer) Hooks {
	ts := tiers{defaults(hookSpecs), user.hooks, repo.hooks}
	return Hooks{
		OnIteration: get[string](ts, "on_iteration"),
		OnComplete:  get[string](ts, "on_complete"),
		OnFailure:   get[string](ts, "on_failure"),
		OnLimit:     get[string](ts, "on_limit"),
		Timeout:     get[time.Duration](ts, "timeout"),
	}
}

// RepoCommands returns the values in the repository file that make git ralph run
// something: agent, agent_cmd, validate, until, push, remote and branch (top level and every
// [modes.NAME] section, selected or not), every [agents.NAME] field and every hook
// command. Keys are dotted paths ("agent_cmd", "modes.plan.validate",
// "agents.claude.args", "hooks.on_complete"); values are display strings, arrays as
// JSON. Every such value in the file is included, even where a flag or variable
// overrides it, so that the trust check covers whatever the file could make git ralph
// run. It returns nil when the file sets none.
func (c *Config) RepoCommands() map[string]string {
	if len(c.repoCommands) == 0 {
		return nil
	}
	return maps.Clone(c.repoCommands)
}

// Entry is one line of `git ralph config`.
type Entry struct {
	Key    string // "max_iterations", "agents.claude.args", "hooks.timeout"
	Value  string // for display
	Origin Origin
}

// Entries lists every setting for display, in the order of Keys, with unlimited folded
// into max_iterations ("unlimited" when 0) and prompt into prompts; then the fields set
// in [agents.NAME] (sorted by name) and the hooks. Durations read like "10m0s"; empty
// optional strings and the absent timeout read "none"; remote and branch read
// "upstream or origin" and "same name" when empty.
func (c *Config) Entries() []Entry {
	e := []Entry{
		text("agent", c.Agent, "none"),
		text("agent_cmd", c.AgentCmd, "none"),
		text("model", c.Model, "none"),
		text("api_base", c.APIBase, "the vendor's"),
		text("api_key_env", c.APIKeyEnv, "the vendor's"),
		number("api_max_turns", c.APIMaxTurns),
		{"api_max_context", tokensOrNone(c.APIMaxContext.V), c.APIMaxContext.Origin},
		text("mode", c.Mode, "none"),
		{"max_iterations", describeMax(c.MaxIterations.V), c.MaxIterations.Origin},
		duration("iteration_timeout", c.IterationTimeout),
		duration("output_timeout", c.OutputTimeout),
		number("idle_threshold", c.IdleThreshold),
		number("stagnation_threshold", c.StagnationThreshold),
		number("stagnation_similarity", c.StagnationSimilarity),
		number("max_consecutive_errors", c.MaxConsecutiveErrors),
		{"max_output_buffer", formatSize(c.MaxOutputBuffer.V), c.MaxOutputBuffer.Origin},
		text("validate", c.Validate, "none"),
		duration("validate_timeout", c.ValidateTimeout),
		text("validate_format", c.ValidateFormat, "none"),
		{"validate_targets", listOrNone(c.ValidateTargets.V), c.ValidateTargets.Origin},
		text("until", c.Until, "none"),
		text("feedback", c.Feedback, "last"),
		text("judge", c.Judge, "none"),
		{"push", strconv.FormatBool(c.Push.V), c.Push.Origin},
		text("remote", c.Remote, "upstream or origin"),
		text("branch", c.Branch, "same name"),
		duration("backoff_base", c.BackoffBase),
		duration("backoff_max", c.BackoffMax),
		duration("max_limit_wait", c.MaxLimitWait),
		{"stop_on_overage", strconv.FormatBool(c.StopOnOverage.V), c.StopOnOverage.Origin},
		{"max_cost", formatMoney(c.MaxCost.V), c.MaxCost.Origin},
		{"max_tokens", tokensOrNone(c.MaxTokens.V), c.MaxTokens.Origin},
		{"daily_max_cost", formatMoney(c.DailyMaxCost.V), c.DailyMaxCost.Origin},
		text("log_level", c.LogLevel, "none"),
		{"show_agent_output", strconv.FormatBool(c.ShowAgentOutput.V), c.ShowAgentOutput.Origin},
		{"notify", listOrNone(c.Notify.V), c.Notify.Origin},
		number("history_keep", c.HistoryKeep),
		{"history_max_size", sizeOrNone(c.HistoryMaxSize.V), c.HistoryMaxSize.Origin},
		text("template", c.Template, "none"),
		{"prompts", c.describePrompts(), c.Prompts.Origin},
	}
	for _, name := range slices.Sorted(maps.Keys(c.Agents)) {
		e = append(e, c.Agents[name].entries("agents."+fieldName([]string{name})+".")...)
	}
	e = append(e, priceEntries(c.Prices)...)
	h := c.Hooks
	return append(e, text("hooks.on_iteration", h.OnIteration, "none"), text("hooks.on_complete", h.OnComplete, "none"),
		text("hooks.on_failure", h.OnFailure, "none"), text("hooks.on_limit", h.OnLimit, "none"),
		duration("hooks.timeout", h.Timeout))
}

func (a AgentOverride) entries(prefix string) []Entry {
	var e []Entry
	if a.Program.Origin.Kind != FromDefault {
		e = append(e, Entry{prefix + "program", a.Program.V, a.Program.Origin})
	}
	for _, f := range []struct {
		key string
		v   Value[[]string]
	}{{"args", a.Args}, {"extra_args", a.ExtraArgs}} {
		if f.v.Origin.Kind != FromDefault {
			e = append(e, Entry{prefix + f.key, display(f.v.V), f.v.Origin})
		}
	}
	return e
}

func text(key string, v Value[string], none string) Entry {
	if v.V == "" {
		return Entry{key, none, v.Origin}
	}
	return Entry{key, v.V, v.Origin}
}

// sizeOrNone reads a size whose 0 means no limit.
func sizeOrNone(n int64) string {
	if n == 0 {
		return "no limit"
	}
	return formatSize(n)
}

// tokensOrNone reads a token budget whose 0 means none.
func tokensOrNone(n int) string {
	if n == 0 {
		return "none"
	}
	return strconv.Itoa(n)
}

// listOrNone reads a list, with "none" for an empty one.
func listOrNone(list []string) string {
	if len(list) == 0 {
		return NotifyNone
	}
	return strings.Join(list, ", ")
}

func number(key string, v Value[int]) Entry { return Entry{key, strconv.Itoa(v.V), v.Origin} }

func duration(key string, v Value[time.Duration]) Entry {
	if v.V == 0 {
		return Entry{key, "none", v.Origin}
	}
	return Entry{key, v.V.String(), v.Origin}
}

func describeMax(n int) string {
	if n == 0 {
		return "unlimited"
	}
	return strconv.Itoa(n)
}

func (c *Config) describePrompts() string {
	if c.Prompts.V == nil {
		return fmt.Sprintf("PROMPT_%s.md", c.Mode.V)
	}
	return strings.Join(c.Prompts.V, ", ")
}
