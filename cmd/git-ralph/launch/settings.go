package launch

import (
	"fmt"
	"io"
	"os"
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
	"github.com/git-ralph/git-ralph/loop/testreport"
)

// Settings are the loop's resolved configuration: what the loop runs with, and every
// value with its origin for --dry-run and `git ralph config`.
type Settings struct {
	Loop        loop.Config
	Resolved    *config.Config
	TrustedAt   []string       // other work trees whose approvals count (the main one, for a worktree loop)
	PushTarget  string         // remote/branch, once preflight resolved it
	extra       []config.Entry // derived values worth showing: the preset's command, its timeout
	replay      *replaySource  // the recording played as the agent (--agent replay:DIR)
	replaySpeed string         // --replay-speed
	taskFrom    string         // where the task came from: "the command line", "--task-file F", the unfinished run
}

// PrintEntries prints settings as a table: key, value, origin.
func PrintEntries(w io.Writer, list []config.Entry) {
	for _, e := range list {
		fmt.Fprintf(w, "  %-24s %-28s (%s)\n", e.Key, display.Printable(e.Value), e.Origin)
	}
}

// StageSettings reads the settings a workflow's stage gives its loop (--workflow-setting).
func StageSettings(given []string) ([]config.WorkflowSetting, error) {
	var list []config.WorkflowSetting
	for _, text := range given {
		w, err := config.ParseWorkflowSetting(text)
		if err != nil {
			return nil, hints.Wrap(err, "--workflow-setting is how 'git ralph workflow run' gives a stage's loop its settings: leave it to it")
		}
		list = append(list, w)
	}
	return list, nil
}

// WarnSettings prints the configuration's warnings, such as a misspelt RALPH_ variable.
func WarnSettings(w io.Writer, c *config.Config) {
	for _, msg := range c.Warnings {
		fmt.Fprintf(w, "warning: %s\n", msg)
	}
}

// LoadConfig reads the configuration of the repository at root with these flags.
func LoadConfig(root string, flags []config.Flag) (*config.Config, error) {
	env := os.Environ()
	return config.Load(config.Sources{RepoRoot: root, UserFile: config.UserConfigPath(env), Env: env, Flags: flags})
}

// Resolve turns the flags, the environment and the config files into a loop.Config,
// refusing a repository's config that would lift the user's iteration limit.
func Resolve(root string, o *Options) (*Settings, error) {
	s, err := ResolveForShow(root, o)
	if err == nil && s.Resolved.LiftedLimit != nil {
		return nil, s.Resolved.LiftedLimit
	}
	return s, err
}

// ResolveForShow is Resolve without that refusal, for the commands that only show them.
func ResolveForShow(root string, o *Options) (*Settings, error) {
	stage, err := StageSettings(o.StageSettings)
	if err != nil {
		return nil, err
	}
	env := os.Environ()
	resolved, err := config.Load(config.Sources{RepoRoot: root, UserFile: config.UserConfigPath(env), Env: env, Flags: o.Flags, Workflow: stage})
	if err != nil {
		return nil, err
	}
	if o.Prompt != "" {
		resolved.Prompts = config.Value[[]string]{V: []string{o.Prompt}, Origin: config.Origin{Kind: config.FromFlag, Name: "--prompt"}}
	}
	s := &Settings{Resolved: resolved, replaySpeed: o.ReplaySpeed}
	s.Loop = loop.Config{Dir: root, Mode: resolved.Mode.V, Prompts: resolved.Prompts.V,
		AgentCmd: resolved.AgentCmd.V, MaxIterations: resolved.MaxIterations.V,
		Timeout: resolved.IterationTimeout.V, OutputTimeout: resolved.OutputTimeout.V, MaxConsecutiveErrors: resolved.MaxConsecutiveErrors.V,
		MaxOutputBuffer: int(resolved.MaxOutputBuffer.V), IdleThreshold: resolved.IdleThreshold.V,
		StagnationThreshold: resolved.StagnationThreshold.V, StagnationSimilarity: resolved.StagnationSimilarity.V,
		Context: o.Context, Fresh: o.Fresh,
		ValidateCmd: resolved.Validate.V, ValidateTimeout: resolved.ValidateTimeout.V, Until: resolved.Until.V,
		Feedback: resolved.Feedback.V, Judge: resolved.Judge.V,
		Push: resolved.Push.V, Remote: resolved.Remote.V, Branch: resolved.Branch.V,
		SecretsAllow: redact.ParseAllow(resolved.SecretsAllow),
		BackoffBase:  resolved.BackoffBase.V, BackoffMax: resolved.BackoffMax.V, MaxLimitWait: resolved.MaxLimitWait.V,
		StopOnOverage: resolved.StopOnOverage.V,
		Retention:     history.Retention{Keep: resolved.HistoryKeep.V, MaxBytes: resolved.HistoryMaxSize.V}}
	s.Loop.ValidateFormat, _ = testreport.ParseFormat(resolved.ValidateFormat.V) // checked by config
	s.Loop.ValidateTargets = resolved.ValidateTargets.V
	if err := s.choosePreset(); err != nil {
		return nil, err
	}
	s.chooseAPI()
	if err := s.chooseTemplate(); err != nil {
		return nil, err
	}
	if err := s.chooseTask(o); err != nil {
		return nil, err
	}
	if limits, err := history.UserLimits(); err == nil { // no home directory: limits are not shared
		s.Loop.Limits, s.Loop.LimitFrom = &limits, root
	}
	s.Loop.Budget = loop.Budget{MaxCost: resolved.MaxCost.V, MaxTokens: int64(resolved.MaxTokens.V), DailyMaxCost: resolved.DailyMaxCost.V}
	if spend, err := history.UserSpend(); err == nil { // no home directory: no daily spend (the loop warns when daily_max_cost is set)
		s.Loop.Budget.Daily = &spend
	}
	return s, nil
}

// choosePreset applies `agent`: the preset's command line (unless agent_cmd gives one
// of the user's own), the user's [agents.NAME] changes, and its suggested timeout when
// none is configured.
func (s *Settings) choosePreset() error {
	name := s.Resolved.Agent
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
	if o, ok := s.Resolved.Agents[name.V]; ok {
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
func (s *Settings) applyPreset(preset agentcli.Preset) {
	s.Loop.Agent = preset
	if s.Loop.AgentCmd == "" && preset.InProcess() {
		s.extra = append(s.extra, config.Entry{Key: "agent command", Value: "none: " + preset.Note,
			Origin: config.Origin{Kind: config.FromDefault, Name: "preset " + preset.Name}})
	} else if s.Loop.AgentCmd == "" {
		s.extra = append(s.extra, config.Entry{Key: "agent command", Value: strings.Join(preset.Argv(agentcli.PromptFile), " "),
			Origin: config.Origin{Kind: config.FromDefault, Name: "preset " + preset.Name}})
	}
	if presetTimeoutApplies(s.Loop.Timeout, s.Resolved.IterationTimeout.Origin, preset.Timeout) {
		s.presetOver("iteration_timeout", s.Resolved.IterationTimeout, preset.Timeout, preset.Name)
		s.Loop.Timeout = preset.Timeout
		s.extra = append(s.extra, config.Entry{Key: "iteration_timeout", Value: preset.Timeout.String(),
			Origin: config.Origin{Kind: config.FromDefault, Name: "preset " + preset.Name}})
	}
	if presetTimeoutApplies(s.Loop.OutputTimeout, s.Resolved.OutputTimeout.Origin, preset.OutputTimeout) {
		s.presetOver("output_timeout", s.Resolved.OutputTimeout, preset.OutputTimeout, preset.Name)
		s.Loop.OutputTimeout = preset.OutputTimeout
		s.extra = append(s.extra, config.Entry{Key: "output_timeout", Value: preset.OutputTimeout.String(),
			Origin: config.Origin{Kind: config.FromDefault, Name: "preset " + preset.Name}})
	}
}

// presetOver names in a warning the repository's timeout (set) that gives way to the
// preset's shorter one, as it would to a shorter one of yours.
func (s *Settings) presetOver(key string, set config.Value[time.Duration], preset time.Duration, name string) {
	if set.Origin.Kind == config.FromRepo {
		s.Resolved.Warnings = append(s.Resolved.Warnings,
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

// Entries are the settings to show, each with its origin.
func (s *Settings) Entries() []config.Entry {
	list := s.Resolved.Entries()
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

// CheckAgent looks for the agent's program: the first of the custom command, or the
// preset's program.
func (s *Settings) CheckAgent() (agentcheck.Result, bool) {
	if s.Loop.AgentCmd == "" && s.Loop.Agent.InProcess() {
		return s.checkAPI(s.Loop.Agent), true
	}
	return agentcheck.Agent(s.Loop.Dir, s.Loop.AgentCmd, s.Loop.Agent.Program)
}
