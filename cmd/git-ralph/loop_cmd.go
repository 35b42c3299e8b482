package main

import (
	"context"
	"strconv"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/notify"
)

// LoopCmd is `git ralph loop`.
type LoopCmd struct {
	Task                 string         `arg:"" optional:"" help:"The task, e.g. \"fix the failing tests\": it goes into the mode's prompt (see docs/guide/tasks-templates-workflows.md), or into a built-in prompt when PROMPT_<mode>.md does not exist. Saved with the run: a resumed run keeps it." placeholder:"TASK"`
	TaskFile             string         `name:"task-file" help:"Read the task from FILE." placeholder:"FILE"`
	Mode                 string         `help:"Mode: plan, build, or any NAME with a PROMPT_NAME.md (default: build)." placeholder:"MODE"`
	Max                  *int           `help:"Stop after N iterations (default: 5)." placeholder:"N"`
	Unlimited            *bool          `help:"No iteration limit (--max still wins); --unlimited=false brings a limit back over a config file's unlimited = true."`
	Agent                string         `help:"A built-in agent preset: claude, codex, gemini, opencode, aider, cursor-agent, copilot, amp, kiro-cli, qwen, pi; or anthropic-api, openai-api, openai-chat, which git-ralph runs itself against the model's API (--model, --api-base)." placeholder:"NAME"`
	Model                string         `help:"The model an API agent (anthropic-api, openai-api, openai-chat) talks to, e.g. claude-sonnet-4-5 or qwen2.5-coder." placeholder:"NAME"`
	APIBase              string         `name:"api-base" help:"The address of an API agent's server, e.g. http://127.0.0.1:11434/v1 (default: ANTHROPIC_BASE_URL or OPENAI_BASE_URL, else the vendor's)." placeholder:"URL"`
	AgentCmd             string         `name:"agent-cmd" help:"Your own agent command, run with 'sh -c' in the repository root; the prompt arrives on stdin. With --agent, that preset reads its output." placeholder:"CMD"`
	Timeout              *time.Duration `help:"Stop an iteration that runs longer than DUR, e.g. 30m (default: none)." placeholder:"DUR"`
	OutputTimeout        *time.Duration `name:"output-timeout" help:"Stop an agent that prints nothing for DUR, e.g. 10m (default: none, or the preset's)." placeholder:"DUR"`
	MaxConsecutiveErrors *int           `name:"max-consecutive-errors" help:"Abort after N failed iterations in a row (default: 3)." placeholder:"N"`
	MaxOutputBuffer      string         `name:"max-output-buffer" help:"Keep the last SIZE of the agent's output to scan for promise tags (default: 10MiB)." placeholder:"SIZE"`
	IdleThreshold        *int           `name:"idle-threshold" help:"Stop (exit 3) after N iterations in a row that change nothing in git; 0 never stops (default: 2)." placeholder:"N"`
	MaxCost              string         `name:"max-cost" help:"Stop the run (exit 5) before an iteration its spend so far plus the expected cost would take past USD dollars, as the agent reports cost (default: none)." placeholder:"USD"`
	MaxTokens            *int           `name:"max-tokens" help:"Stop the run (exit 5) before an iteration that would take its input+output tokens past N (default: none)." placeholder:"N"`
	DailyMaxCost         string         `name:"daily-max-cost" help:"Stop (exit 5) before an iteration that would take today's spend of all your loops on this machine past USD dollars (default: none)." placeholder:"USD"`
	StagnationThreshold  *int           `name:"stagnation-threshold" help:"After N iterations in a row that repeat the same attempt, tell the agent so in the next prompt, and stop (exit 6) if it goes on; 0 turns the check off (default: 3)." placeholder:"N"`
	StagnationSimilarity *int           `name:"stagnation-similarity" help:"How alike, in percent (of words, of lines), two iterations' final messages and validation failures must be to count as the same (default: 90)." placeholder:"PCT"`
	Validate             string         `help:"A command run after each iteration (e.g. 'make test'); its failure goes into the next prompt, and SUCCESS counts only when it passes." placeholder:"CMD"`
	Until                string         `help:"The promise command (e.g. 'npm test'): after each iteration whose validation passed, the loop is done (exit 0) as soon as it passes (with --judge, after its PASS), whatever the agent printed; while it fails, its output goes into the next prompt and SUCCESS alone does not end the loop." placeholder:"CMD"`
	Template             string         `help:"Use a loop template (see 'git ralph templates'): its prompt, with the task in it, replaces PROMPT_<mode>.md, and its iteration limit applies unless one is set." placeholder:"NAME"`
	Feedback             string         `help:"What the next prompt carries of the run's failures: last (the last iteration's, the default) or all (every one so far, newest first, within 32 KiB)." placeholder:"WHICH"`
	Judge                string         `help:"An agent preset or a command that judges each iteration whose validation passed, answering <verdict>PASS</verdict> or FAIL with reasons; FAIL goes into the next prompt and SUCCESS counts only after PASS." placeholder:"PRESET|CMD"`
	Push                 *bool          `negatable:"" help:"Push the branch after each iteration that moved HEAD and passed validation (default: off)."`
	Notify               string         `help:"Say when the loop ends, stops on a limit or an error, or its merge needs review: a comma-separated list of desktop, bell and webhook URLs, or none (default: none)." placeholder:"LIST"`
	Fresh                bool           `help:"Start a new run even if the last one is unfinished."`
	Context              string         `help:"Extra text added to every iteration's prompt under '## Context'." placeholder:"TEXT"`
	Prompt               string         `help:"Use FILE (inside the repository) as the prompt instead of the mode's PROMPT_<mode>.md; a workflow's stage with prompt = FILE runs this way." placeholder:"FILE"`
	DryRun               bool           `name:"dry-run" help:"Check the prompt and the agent, show the settings and the prompt, run nothing."`
	Verbose              launch.Verbose `short:"v" help:"Stream the agent's output live, rendered for reading: its text, a line per tool call and its result's size or exit status, errors, tokens and cost. --verbose=raw streams it as the agent prints it (a preset's JSON)."`
	Quiet                bool           `short:"q" help:"Print only failed iterations, warnings and errors; the structured log keeps only warnings and errors too, unless --log-level is given."`
	LogLevel             string         `name:"log-level" help:"The lowest level the structured log (.ralph/logs/ralph.log) keeps: debug, info, warn or error (default: info)." placeholder:"LEVEL"`
	JSON                 bool           `name:"json" help:"Write one JSON event per line on stdout (see docs/reference/events.md); progress lines go to stderr."`
	SkipIfBusy           bool           `name:"skip-if-busy" help:"Exit 75 without a word when another loop holds the repository (for cron)."`
	Worktree             string         `help:"Run the loop in a linked worktree of its own on branch ralph/NAME, beside the main work tree; created at the first run, resumed after." placeholder:"NAME"`
	Base                 string         `help:"With --worktree: the revision a new loop's branch starts from (default: HEAD)." placeholder:"REV"`
	Merge                bool           `help:"With --worktree: when the loop ends with SUCCESS, merge its branch through the merge queue (as 'git ralph merge NAME'); with --best-of: merge the winner."`
	Record               string         `help:"Keep every run of the agent (prompt, timed output, exit status, usage, and its change to the repository) in DIR, to play back with --agent replay:DIR." placeholder:"DIR"`
	ReplaySpeed          string         `name:"replay-speed" help:"With --agent replay:DIR: full (default), recorded, or a multiple of the recorded pace such as 2." placeholder:"SPEED"`
	ReplayForce          bool           `name:"replay-force" help:"With --agent replay:DIR: replay a recording made in another repository."`
	Background           bool           `short:"b" help:"Run in the background: checked here first, then detached (a session of its own, output appended to .ralph/logs/background-NAME.log); prints the loop's name, pid and the commands to watch, pause and cancel it, and returns at once."`
	BestOfFlags          `embed:""`
	launch.ProtectFlags  `embed:""`
	// StageSettings are a workflow stage's bounded settings (config.WorkflowSetting): the
	// repository's, not the user's flags, so that they tighten the user's limits and
	// never loosen them. Only `workflow run` passes them.
	StageSettings []string `name:"workflow-setting" hidden:"" sep:"none" help:"A bounded setting of a workflow's stage (FILE:LINE:FIELD:KEY=VALUE): the repository's, not yours."`
}

// Run checks the flags, then starts the loop (launch) or the best-of's candidates; the
// exit code follows the run's status.
func (c *LoopCmd) Run(ctx context.Context, s Streams, in *interrupts) error {
	o := c.options()
	if err := o.Check(c.Merge, c.BestOf != nil); err != nil {
		return err
	}
	if err := o.CheckBestOf(c.BestOf, c.Jobs, c.Score); err != nil {
		return err
	}
	if c.Background && !launch.InBackground() {
		return c.background(ctx, s, in)
	}
	if c.BestOf != nil {
		return c.runBestOf(ctx, s, in)
	}
	return c.loop(s, in).Run(ctx)
}

// loop is the loop the command starts, in this process.
func (c *LoopCmd) loop(s Streams, in *interrupts) *launch.Loop {
	l := &launch.Loop{Options: *c.options(), Streams: s.launch(),
		Signals: in.launch(), Trust: s.terminal(), Interrupted: stoppedByInterrupt}
	if c.Merge {
		l.Merge = func(ctx context.Context, here string, resolved *config.Config, notes *notify.Notifier) error {
			// the merged result held to the loop's own validate command and timeout
			return (&MergeCmd{Name: c.Worktree}).merging(s, resolved).Queue(ctx, here, notes, nil)
		}
	}
	return l
}

// options are what launch is given of the command line.
func (c *LoopCmd) options() *launch.Options {
	return &launch.Options{Flags: c.flags(), StageSettings: c.StageSettings, Task: c.Task, TaskFile: c.TaskFile,
		Prompt: c.Prompt, Context: c.Context, Fresh: c.Fresh, Verbose: c.Verbose, Quiet: c.Quiet, JSON: c.JSON,
		DryRun: c.DryRun, SkipIfBusy: c.SkipIfBusy, Worktree: c.Worktree, Base: c.Base,
		Record: c.Record, ReplaySpeed: c.ReplaySpeed, ReplayForce: c.ReplayForce, Version: versionText()}
}

// resolve is the loop's settings in the work tree root, as the loop would run with them.
func (c *LoopCmd) resolve(root string) (*launch.Settings, error) {
	return launch.Resolve(root, c.options())
}

// settings is resolve without refusing a repository's lifted limit, for showing them.
func (c *LoopCmd) settings(root string) (*launch.Settings, error) {
	return launch.ResolveForShow(root, c.options())
}

// flags lists the loop flags the user gave, as the config package takes them.
func (c *LoopCmd) flags() []config.Flag {
	var fs launch.Flags
	add, text := fs.Add, launch.FlagText[int]
	add(c.Mode != "", "mode", "--mode", c.Mode)
	add(c.Agent != "", "agent", "--agent", c.Agent)
	add(c.AgentCmd != "", "agent_cmd", "--agent-cmd", c.AgentCmd)
	add(c.Model != "", "model", "--model", c.Model)
	add(c.APIBase != "", "api_base", "--api-base", c.APIBase)
	add(c.Unlimited != nil, "unlimited", "--unlimited", launch.FlagText(c.Unlimited))
	add(c.Max != nil, "max_iterations", "--max", text(c.Max))
	add(c.Timeout != nil, "iteration_timeout", "--timeout", launch.FlagText(c.Timeout))
	add(c.OutputTimeout != nil, "output_timeout", "--output-timeout", launch.FlagText(c.OutputTimeout))
	add(c.MaxConsecutiveErrors != nil, "max_consecutive_errors", "--max-consecutive-errors", text(c.MaxConsecutiveErrors))
	add(c.MaxOutputBuffer != "", "max_output_buffer", "--max-output-buffer", c.MaxOutputBuffer)
	add(c.IdleThreshold != nil, "idle_threshold", "--idle-threshold", text(c.IdleThreshold))
	add(c.MaxCost != "", "max_cost", "--max-cost", c.MaxCost)
	add(c.MaxTokens != nil, "max_tokens", "--max-tokens", text(c.MaxTokens))
	add(c.DailyMaxCost != "", "daily_max_cost", "--daily-max-cost", c.DailyMaxCost)
	add(c.StagnationThreshold != nil, "stagnation_threshold", "--stagnation-threshold", text(c.StagnationThreshold))
	add(c.StagnationSimilarity != nil, "stagnation_similarity", "--stagnation-similarity", text(c.StagnationSimilarity))
	add(c.Validate != "", "validate", "--validate", c.Validate)
	add(c.Until != "", "until", "--until", c.Until)
	add(c.Template != "", "template", "--template", c.Template)
	add(c.Feedback != "", "feedback", "--feedback", c.Feedback)
	add(c.Judge != "", "judge", "--judge", c.Judge)
	add(c.Notify != "", "notify", "--notify", c.Notify)
	add(c.Verbose != "", "show_agent_output", "--verbose", strconv.FormatBool(c.Verbose.On()))
	add(c.LogLevel != "", "log_level", "--log-level", c.LogLevel)
	if c.Push != nil {
		add(true, "push", map[bool]string{true: "--push", false: "--no-push"}[*c.Push], strconv.FormatBool(*c.Push))
	}
	return append(fs, c.ConfigFlags()...)
}
