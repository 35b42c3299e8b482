package main

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// settings are the loop's resolved configuration: what the loop runs with, and every
// value with its origin for --dry-run and `git ralph config`.
type settings struct {
	loop        loop.Config
	resolved    *config.Config
	extra       []config.Entry // derived values worth showing: the preset's command, its timeout
	pushTarget  string         // remote/branch, once preflight resolved it
	replay      *replaySource  // the recording played as the agent (--agent replay:DIR)
	replaySpeed string         // --replay-speed
	trustedAt   []string       // other work trees whose approvals count (the main one, for a worktree loop)
	taskFrom    string         // where the task came from: "the command line", "--task-file F", the unfinished run
}

// printEntries prints settings as a table: key, value, origin.
func printEntries(w io.Writer, list []config.Entry) {
	for _, e := range list {
		fmt.Fprintf(w, "  %-24s %-28s (%s)\n", e.Key, display.Printable(e.Value), e.Origin)
	}
}

// flags lists the loop flags the user gave, as the config package takes them.
func (c *LoopCmd) flags() []config.Flag {
	var fs []config.Flag
	add := func(given bool, key, name, raw string) {
		if given {
			fs = append(fs, config.Flag{Key: key, Name: name, Raw: raw})
		}
	}
	add(c.Mode != "", "mode", "--mode", c.Mode)
	add(c.Agent != "", "agent", "--agent", c.Agent)
	add(c.AgentCmd != "", "agent_cmd", "--agent-cmd", c.AgentCmd)
	if c.Unlimited != nil {
		add(true, "unlimited", "--unlimited", strconv.FormatBool(*c.Unlimited))
	}
	add(c.Max != nil, "max_iterations", "--max", intText(c.Max))
	add(c.Timeout != nil, "iteration_timeout", "--timeout", durationText(c.Timeout))
	add(c.OutputTimeout != nil, "output_timeout", "--output-timeout", durationText(c.OutputTimeout))
	add(c.MaxConsecutiveErrors != nil, "max_consecutive_errors", "--max-consecutive-errors", intText(c.MaxConsecutiveErrors))
	add(c.MaxOutputBuffer != "", "max_output_buffer", "--max-output-buffer", c.MaxOutputBuffer)
	add(c.IdleThreshold != nil, "idle_threshold", "--idle-threshold", intText(c.IdleThreshold))
	add(c.MaxCost != "", "max_cost", "--max-cost", c.MaxCost)
	add(c.MaxTokens != nil, "max_tokens", "--max-tokens", intText(c.MaxTokens))
	add(c.DailyMaxCost != "", "daily_max_cost", "--daily-max-cost", c.DailyMaxCost)
	add(c.StagnationThreshold != nil, "stagnation_threshold", "--stagnation-threshold", intText(c.StagnationThreshold))
	add(c.StagnationSimilarity != nil, "stagnation_similarity", "--stagnation-similarity", intText(c.StagnationSimilarity))
	add(c.Validate != "", "validate", "--validate", c.Validate)
	add(c.Until != "", "until", "--until", c.Until)
	add(c.Template != "", "template", "--template", c.Template)
	add(c.Feedback != "", "feedback", "--feedback", c.Feedback)
	add(c.Judge != "", "judge", "--judge", c.Judge)
	add(c.Notify != "", "notify", "--notify", c.Notify)
	add(c.Verbose != "", "show_agent_output", "--verbose", strconv.FormatBool(c.Verbose.on()))
	add(c.LogLevel != "", "log_level", "--log-level", c.LogLevel)
	if c.Push != nil {
		add(true, "push", map[bool]string{true: "--push", false: "--no-push"}[*c.Push], strconv.FormatBool(*c.Push))
	}
	return fs
}

// stageSettings reads the settings a workflow's stage gives its loop.
func (c *LoopCmd) stageSettings() ([]config.WorkflowSetting, error) {
	var list []config.WorkflowSetting
	for _, text := range c.StageSettings {
		w, err := config.ParseWorkflowSetting(text)
		if err != nil {
			return nil, hints.Wrap(err, "--workflow-setting is how 'git ralph workflow run' gives a stage's loop its settings: leave it to it")
		}
		list = append(list, w)
	}
	return list, nil
}

// warnSettings prints the configuration's warnings, such as a misspelt RALPH_ variable.
func warnSettings(w io.Writer, c *config.Config) {
	for _, msg := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
}

// loadConfig reads the configuration of the repository at root with these flags.
func loadConfig(root string, flags []config.Flag) (*config.Config, error) {
	env := os.Environ()
	return config.Load(config.Sources{RepoRoot: root, UserFile: config.UserConfigPath(env), Env: env, Flags: flags})
}

// resolve turns the flags, the environment and the config files into a loop.Config,
// refusing a repository's config that would lift the user's iteration limit.
func (c *LoopCmd) resolve(root string) (*settings, error) {
	s, err := c.settings(root)
	if err == nil && s.resolved.LiftedLimit != nil {
		return nil, s.resolved.LiftedLimit
	}
	return s, err
}

// settings is resolve without that refusal, for the commands that only show them.
func (c *LoopCmd) settings(root string) (*settings, error) {
	stage, err := c.stageSettings()
	if err != nil {
		return nil, err
	}
	env := os.Environ()
	resolved, err := config.Load(config.Sources{RepoRoot: root, UserFile: config.UserConfigPath(env), Env: env, Flags: c.flags(), Workflow: stage})
	if err != nil {
		return nil, err
	}
	if c.Prompt != "" {
		resolved.Prompts = config.Value[[]string]{V: []string{c.Prompt}, Origin: config.Origin{Kind: config.FromFlag, Name: "--prompt"}}
	}
	s := &settings{resolved: resolved, replaySpeed: c.ReplaySpeed}
	s.loop = loop.Config{Dir: root, Mode: resolved.Mode.V, Prompts: resolved.Prompts.V,
		AgentCmd: resolved.AgentCmd.V, MaxIterations: resolved.MaxIterations.V,
		Timeout: resolved.IterationTimeout.V, OutputTimeout: resolved.OutputTimeout.V, MaxConsecutiveErrors: resolved.MaxConsecutiveErrors.V,
		MaxOutputBuffer: int(resolved.MaxOutputBuffer.V), IdleThreshold: resolved.IdleThreshold.V,
		StagnationThreshold: resolved.StagnationThreshold.V, StagnationSimilarity: resolved.StagnationSimilarity.V,
		Context: c.Context, Fresh: c.Fresh,
		ValidateCmd: resolved.Validate.V, ValidateTimeout: resolved.ValidateTimeout.V, Until: resolved.Until.V,
		Feedback: resolved.Feedback.V, Judge: resolved.Judge.V,
		Push: resolved.Push.V, Remote: resolved.Remote.V, Branch: resolved.Branch.V,
		SecretsAllow: redact.ParseAllow(resolved.SecretsAllow),
		BackoffBase:  resolved.BackoffBase.V, BackoffMax: resolved.BackoffMax.V, MaxLimitWait: resolved.MaxLimitWait.V,
		StopOnOverage: resolved.StopOnOverage.V,
		Retention:     history.Retention{Keep: resolved.HistoryKeep.V, MaxBytes: resolved.HistoryMaxSize.V}}
	if err := s.choosePreset(); err != nil {
		return nil, err
	}
	if err := s.chooseTemplate(); err != nil {
		return nil, err
	}
	if err := c.chooseTask(s); err != nil {
		return nil, err
	}
	if limits, err := history.UserLimits(); err == nil { // no home directory: limits are not shared
		s.loop.Limits, s.loop.LimitFrom = &limits, root
	}
	s.loop.Budget = loop.Budget{MaxCost: resolved.MaxCost.V, MaxTokens: int64(resolved.MaxTokens.V), DailyMaxCost: resolved.DailyMaxCost.V}
	if spend, err := history.UserSpend(); err == nil { // no home directory: no daily spend (the loop warns when daily_max_cost is set)
		s.loop.Budget.Daily = &spend
	}
	return s, nil
}

// choosePreset applies `agent`: the preset's command line (unless agent_cmd gives one
// of the user's own), the user's [agents.NAME] changes, and its suggested timeout when
// none is configured.
func (s *settings) choosePreset() error {
	name := s.resolved.Agent
	if name.V == "" {
		return nil
	}
	if dir, ok := strings.CutPrefix(name.V, replayPrefix); ok {
		return s.chooseReplay(dir, name.Origin)
	}
	preset, ok := agentcli.Lookup(name.V)
	if !ok {
		return hints.Wrap(fmt.Errorf("unknown agent %q (%s)", name.V, name.Origin),
			"the presets are %s; for any other program use agent_cmd / --agent-cmd", strings.Join(agentcli.Names(), ", "))
	}
	if o, ok := s.resolved.Agents[name.V]; ok {
		preset = preset.With(agentcli.Override{Program: o.Program.V, Args: o.Args.V, ReplaceArgs: o.ArgsSet, ExtraArgs: o.ExtraArgs.V})
	}
	if err := preset.Check(); err != nil {
		return hints.Wrap(err, "fix [agents.%s] in your config ('git ralph config' shows where it is set)", name.V)
	}
	s.applyPreset(preset)
	return nil
}

// applyPreset makes preset the loop's: its reader, its command line when no custom one
// runs, and its suggested timeouts when none is configured.
func (s *settings) applyPreset(preset agentcli.Preset) {
	s.loop.Agent = preset
	if s.loop.AgentCmd == "" {
		s.extra = append(s.extra, config.Entry{Key: "agent command", Value: strings.Join(preset.Argv(agentcli.PromptFile), " "),
			Origin: config.Origin{Kind: config.FromDefault, Name: "preset " + preset.Name}})
	}
	if presetTimeoutApplies(s.loop.Timeout, s.resolved.IterationTimeout.Origin, preset.Timeout) {
		s.presetOver("iteration_timeout", s.resolved.IterationTimeout, preset.Timeout, preset.Name)
		s.loop.Timeout = preset.Timeout
		s.extra = append(s.extra, config.Entry{Key: "iteration_timeout", Value: preset.Timeout.String(),
			Origin: config.Origin{Kind: config.FromDefault, Name: "preset " + preset.Name}})
	}
	if presetTimeoutApplies(s.loop.OutputTimeout, s.resolved.OutputTimeout.Origin, preset.OutputTimeout) {
		s.presetOver("output_timeout", s.resolved.OutputTimeout, preset.OutputTimeout, preset.Name)
		s.loop.OutputTimeout = preset.OutputTimeout
		s.extra = append(s.extra, config.Entry{Key: "output_timeout", Value: preset.OutputTimeout.String(),
			Origin: config.Origin{Kind: config.FromDefault, Name: "preset " + preset.Name}})
	}
}

// presetOver names in a warning the repository's timeout (set) that gives way to the
// preset's shorter one, as it would to a shorter one of yours.
func (s *settings) presetOver(key string, set config.Value[time.Duration], preset time.Duration, name string) {
	if set.Origin.Kind == config.FromRepo {
		s.resolved.Warnings = append(s.resolved.Warnings,
			config.Loosened(key, set.V, set.Origin, preset, config.Origin{Kind: config.FromDefault, Name: "preset " + name}))
	}
}

// presetTimeoutApplies reports whether the preset's suggested timeout replaces the one
// configured (set, from origin): when none is configured, and when only a repository's
// file set a longer one — a clone may shorten the timeouts that bound its loops, as it
// may yours, but not lengthen the preset's. (A repository's value between the preset's
// and a longer one of your own file gives way to the preset's too: stricter than you
// asked, never looser.)
func presetTimeoutApplies(set time.Duration, origin config.Origin, preset time.Duration) bool {
	switch {
	case preset <= 0:
		return false
	case origin.Kind == config.FromDefault:
		return set == 0
	case origin.Kind == config.FromRepo:
		return set == 0 || set > preset
	}
	return false
}

// entries are the settings to show, each with its origin.
func (s *settings) entries() []config.Entry {
	list := s.resolved.Entries()
	for _, x := range s.extra {
		replaced := false
		for i := range list {
			if list[i].Key == x.Key {
				list[i], replaced = x, true
			}
		}
		if !replaced {
			list = append(list, x)
		}
	}
	return list
}

// checkAgent looks for the agent's program: the first of the custom command, or the
// preset's program.
func (s *settings) checkAgent() (agentcheck.Result, bool) {
	return agentcheck.Agent(s.loop.Dir, s.loop.AgentCmd, s.loop.Agent.Program)
}

func intText(v *int) string {
	if v == nil {
		return ""
	}
	return strconv.Itoa(*v)
}

func durationText(d *time.Duration) string {
	if d == nil {
		return ""
	}
	return d.String()
}
