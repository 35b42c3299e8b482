package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/kongmodel"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
)

// version is set at build time with -ldflags "-X main.version=…".
var version = "dev"

// CLI is the command-line model; kong builds the parser, help and man page from it.
type CLI struct {
	Init        InitCmd          `cmd:"" help:"Write PROMPT_plan.md, PROMPT_build.md and .ralph/ with the built-in defaults."`
	Loop        LoopCmd          `cmd:"" help:"Run the agent through fresh-context iterations until a stop condition."`
	Templates   TemplatesCmd     `cmd:"" help:"List the loop templates (built in, yours, the repository's) that 'loop --template' and 'init --template' use."`
	Status      StatusCmd        `cmd:"" help:"Show whether a loop runs, its mode, iteration, errors and lock holder."`
	History     HistoryCmd       `cmd:"" help:"List the recorded iterations, or print an iteration's diff."`
	Ledger      LedgerCmd        `cmd:"" help:"List the commits of a range with the loop iterations that made them and what they cost (the git notes in refs/notes/ralph)."`
	Runs        RunsCmd          `cmd:"" help:"List every loop of the repository (main work tree and worktrees): state, iteration, last outcome, commits ahead."`
	Merge       MergeCmd         `cmd:"" help:"Merge a worktree loop's branch into its base branch through the queue: built and validated in a scratch worktree first."`
	Cancel      CancelCmd        `cmd:"" help:"Stop the running loop after its current iteration (--now: at once)."`
	Watch       WatchCmd         `cmd:"" help:"Show the running loop full screen (state, iteration, live output, validation, spend) and steer it: p pause, r resume, i inject, c checkpoint, x cancel, q quit."`
	Serve       ServeCmd         `cmd:"" help:"Serve a local web dashboard of the repository's loops (127.0.0.1, a URL with a random token; Ctrl+C stops it)."`
	Pause       PauseCmd         `cmd:"" help:"Have the running (or next) loop hold after its current iteration, starting no agent until 'git ralph resume'."`
	Resume      ResumeCmd        `cmd:"" help:"Let a paused loop go on."`
	Workflow    WorkflowCmd      `cmd:"" help:"Run a workflow of .ralph/workflows/NAME.toml (stages, each a loop, with dependencies and approval gates), or show its stages."`
	Approve     ApproveCmd       `cmd:"" help:"Approve a workflow stage that awaits approval: the next 'workflow run' goes on with the stages after it."`
	Reject      RejectCmd        `cmd:"" help:"Reject a workflow stage's result: it runs again with your --feedback in its prompt, and the stages built on it are stale."`
	Discard     DiscardCmd       `cmd:"" help:"Remove a worktree loop's worktree and branch, keeping its last commit in a backup ref."`
	Prune       PruneCmd         `cmd:"" help:"Remove the worktree loops that are gone (directory or branch deleted, discarded)."`
	Rollback    RollbackCmd      `cmd:"" help:"Bring the branch and the work tree back to before iteration N or to a named checkpoint, keeping what they replace in a backup ref."`
	Checkpoint  CheckpointCmd    `cmd:"" help:"Record HEAD and the work tree (uncommitted files too) under a name that 'git ralph rollback NAME' returns to."`
	Checkpoints CheckpointsCmd   `cmd:"" help:"List the named checkpoints: label, time, commit, whether the work tree was dirty."`
	Config      ConfigCmd        `cmd:"" help:"Show every resolved setting and where it came from (flag, env, file:line, default)."`
	Trust       TrustCmd         `cmd:"" help:"Approve the commands this repository's .ralph/config.toml would run."`
	Inject      InjectCmd        `cmd:"" help:"Add text to the next iteration's prompt of the running or next loop (used once)."`
	Logs        LogsCmd          `cmd:"" help:"Show the structured log, or iteration N's agent output."`
	Hook        HookCmd          `cmd:"" help:"Install or remove the pre-push hook that runs 'git ralph pre-push'."`
	PrePush     PrePushCmd       `cmd:"" name:"pre-push" help:"Validate the commits being pushed (run by the pre-push hook)."`
	Schedule    ScheduleCmd      `cmd:"" help:"Add, list and remove cron entries that run loops unattended."`
	Doctor      DoctorCmd        `cmd:"" help:"Check what an unattended run would trip over: the agent (also on cron's PATH) and its login, trust, the validate and until commands, leftovers, git, disk, limits and spend."`
	Completion  CompletionCmd    `cmd:"" help:"Print shell completion for bash, zsh or fish."`
	Demo        DemoCmd          `cmd:"" help:"Run a whole plan+build loop in a scratch repository with a built-in scripted agent."`
	Man         ManCmd           `cmd:"" help:"Print the man page, or install it where 'git help ralph' finds it."`
	Help        HelpCmd          `cmd:"" help:"Show the help of git ralph or of a command: 'git ralph help loop'."`
	VersionCmd  VersionCmd       `cmd:"" name:"version" help:"Print the version and the commit it was built from."`
	DemoAgent   DemoAgentCmd     `cmd:"" hidden:"" name:"demo-agent" help:"The scripted agent that 'git ralph demo' runs."`
	ReplayAgent ReplayAgentCmd   `cmd:"" hidden:"" name:"replay-agent" help:"The agent that '--agent replay:DIR' runs: the recording's next attempt."`
	Version     kong.VersionFlag `help:"Print the version and the commit it was built from, and exit."`
}

// Streams are the process's standard streams, bound into every command.
type Streams struct {
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// Interrupted is closed by the first SIGINT or SIGTERM: a question asked on the
	// terminal stops waiting for its answer then (nil: never).
	Interrupted <-chan struct{}
}

// launch is where the lines of a loop that launch starts go: these streams.
func (s Streams) launch() launch.Streams { return launch.Streams{Stdout: s.Stdout, Stderr: s.Stderr} }

const description = `Drive an AI coding agent CLI through fresh-context iterations (the Ralph loop).

Each iteration starts the agent as a new process with a prompt built from PROMPT_<mode>.md,
lets it work and exit, and decides whether to go on. Run 'git ralph demo' to see it work.`

// parser builds the kong parser; exit is called for --help and --version.
func parser(cli *CLI, s Streams, exit func(int)) (*kong.Kong, error) {
	return kong.New(cli, parserOptions(s, exit)...)
}

// parserOptions are the options of every parser of the CLI, the whole one and a
// one-command one (parseArgs).
func parserOptions(s Streams, exit func(int)) []kong.Option {
	return []kong.Option{
		kong.Name("git ralph"),
		kong.Description(description),
		kong.Writers(s.Stdout, s.Stderr),
		kong.Exit(exit),
		kong.UsageOnError(),
		kong.ConfigureHelp(kong.HelpOptions{Compact: true}),
		kong.Vars{"version": versionText()},
	}
}

// helpExit carries the exit code of --help or --version out of kong's Exit hook.
type helpExit struct{ code int }

// run reads the command line and runs the command. It builds kong's parser over the one
// command the line names where it can: the whole CLI's costs 2–3 ms at every start
// (kongmodel/onecommand.go says when the whole one reads the line all the same).
func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	return runParsed(parseArgs, args, stdin, stdout, stderr)
}

// A parse reads the command line with a parser of the CLI and returns the parser too.
type parse func(args []string, s Streams, exit func(int)) (*kong.Kong, *kong.Context, error)

// runParsed is run with the parse to use: tests compare parseArgs with parseWhole.
func runParsed(parse parse, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	s := Streams{Stdin: stdin, Stdout: stdout, Stderr: reporting.NewLockedWriter(stderr)}
	defer func() {
		if r := recover(); r != nil {
			h, ok := r.(helpExit)
			if !ok {
				panic(r)
			}
			code = h.code
		}
	}()
	if len(args) == 0 {
		args = []string{"--help"} // bare `git ralph`: the usage, as git does
	}
	k, kctx, err := parse(args, s, func(c int) { panic(helpExit{c}) })
	if err != nil {
		var parseErr *kong.ParseError
		if errors.As(err, &parseErr) {
			return report(s.Stderr, hints.Wrap(launch.ExplainVerboseValue(args, kongmodel.ExplainMissingValue(k, err)), "run '%s -h' for usage", strings.TrimSpace("git ralph "+commandName(parseErr.Context))))
		}
		return report(s.Stderr, err)
	}
	ctx, interrupts := watchSignals(context.Background(), s.Stderr)
	defer interrupts.stop()
	s.Interrupted = ctx.Done()
	kctx.BindTo(ctx, (*context.Context)(nil))
	err = kctx.Run(s, interrupts, k)
	if stoppedByInterrupt(ctx, err) {
		// interrupted before the loop could say so itself: while starting up, say
		fmt.Fprintln(s.Stderr, "git-ralph: interrupted")
		return exitcode.Interrupted
	}
	return report(s.Stderr, err)
}

// parseArgs reads the command line with a one-command parser when it can and with the
// whole CLI's parser otherwise, and again with the whole one when the one-command parser
// fails, so that whatever the user sees of a parser is the whole one's.
func parseArgs(args []string, s Streams, exit func(int)) (*kong.Kong, *kong.Context, error) {
	if k := oneCommandParser(args, s, exit); k != nil {
		if kctx, err := k.Parse(args); err == nil {
			return k, kctx, nil
		}
	}
	return parseWhole(args, s, exit)
}

// oneCommandParser builds a parser over the command args[0] names and the global flags,
// or returns nil where the whole parser must read the command line.
func oneCommandParser(args []string, s Streams, exit func(int)) *kong.Kong {
	command, ok := kongmodel.CommandField(reflect.TypeFor[CLI](), args)
	if !ok {
		return nil
	}
	model := reflect.New(kongmodel.OneCommand(reflect.TypeFor[CLI](), command))
	k, err := kong.New(model.Interface(), append(parserOptions(s, exit), kong.NoDefaultHelp())...)
	if err != nil {
		return nil // the whole parser reports it
	}
	return k
}

// parseWhole reads the command line with the parser of the whole CLI.
func parseWhole(args []string, s Streams, exit func(int)) (*kong.Kong, *kong.Context, error) {
	var cli CLI
	k, err := parser(&cli, s, exit)
	if err != nil {
		return nil, nil, fmt.Errorf("building the command line: %w", err)
	}
	kctx, err := k.Parse(kongmodel.JoinNegativeValues(k, args))
	return k, kctx, err
}

// isExit reports whether err already carries the exit code to use.
func isExit(err error) bool {
	var exit *exitcode.Error
	return errors.As(err, &exit)
}

// commandName is the selected command with its parents, such as "schedule add".
func commandName(ctx *kong.Context) string {
	if ctx == nil {
		return ""
	}
	var names []string
	for n := ctx.Selected(); n != nil && n.Type == kong.CommandNode; n = n.Parent {
		names = append([]string{n.Name}, names...)
	}
	return strings.Join(names, " ")
}

// LoopFlag is --loop, which the commands that act on one loop share.
type LoopFlag struct {
	Loop string `name:"loop" help:"Act on the loop NAME ('git ralph runs' lists them; main is the main work tree's) instead of this work tree's." placeholder:"NAME"`
}

// root is the work tree of the loop the command acts on: the one named by --loop, else
// the one the command runs in.
func (f LoopFlag) root(ctx context.Context) (string, error) { return launch.LoopRoot(ctx, f.Loop) }

// workDir is where the command was started; git runs subcommands in the user's directory.
func workDir() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", fmt.Errorf("finding the current directory: %w", err)
	}
	return dir, nil
}

// terminal is where a command asks the user for approvals: these streams.
func (s Streams) terminal() trust.Terminal {
	return trust.Terminal{In: s.Stdin, Out: s.Stderr, Interrupted: s.Interrupted}
}
