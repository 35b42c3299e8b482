package agentcli

import (
	"fmt"
	"slices"
	"strings"
	"time"
)

// PromptChannel is how a preset hands the prompt to its program.
type PromptChannel int

const (
	// Stdin: the prompt is written to the program's standard input, which is then closed.
	// Nothing limits its size.
	Stdin PromptChannel = iota
	// File: the prompt is written to a temporary file whose path replaces PromptFile
	// ("{prompt_file}") in Args. For programs that cannot read their prompt from stdin.
	File
)

// PromptFile is the placeholder, in a File preset's Args, for the prompt file's path.
const PromptFile = "{prompt_file}"

// String names the channel as the docs and --dry-run do.
func (c PromptChannel) String() string {
	if c == File {
		return "file"
	}
	return "stdin"
}

// Preset is how git-ralph runs one agent CLI headless: its command line, how it gets
// the prompt, and how its output is read.
type Preset struct {
	Name    string   // the name users pick it by: "claude"
	Program string   // the executable, looked up on PATH unless it is a path: "claude"
	Args    []string // the non-interactive, permission-skipping, structured-output arguments
	// JudgeArgs replace Args when the preset runs as a judge: the same headless,
	// structured-output line in the CLI's own read-only mode, so that a judge, which
	// must only read, cannot change the repository. nil: the CLI has no such mode, and a
	// judge runs with Args (the loop's check afterwards is then all there is).
	JudgeArgs []string
	// JudgeEnv are added to Env when the preset runs as a judge, where the read-only mode
	// needs a setting that has no flag (opencode's permission to run its shell).
	JudgeEnv []string
	Prompt   PromptChannel
	Format   Format // how its output is read
	// Timeout is a suggested iteration timeout for a CLI known to hang without a word
	// (on a dead connection, a quota error it keeps retrying, a question nobody answers);
	// 0 means none. The loop applies it only when the user set no timeout of their own.
	Timeout time.Duration
	// OutputTimeout is a suggested output_timeout for the same CLIs: they print as they
	// work, so a long silence is a hang. 0 means none; the user's own setting wins.
	OutputTimeout time.Duration
	Env           []string // extra environment entries ("KEY=value") for the program, if any
	Note          string   // one line for docs and --dry-run: "stream-json; prompt on stdin"
	// ExitCodes are what the program's own exit codes mean, where they mean something
	// of their own (gemini exits 41 for an auth error and an API error's HTTP status
	// mod 256: 144 for a 400). Read only.
	ExitCodes map[int]string
	// GitIdentity: the program hides the user's git configuration from the commands it
	// runs (gemini sets GIT_CONFIG_GLOBAL=/dev/null for its shell tool), so the loop hands
	// it the identity git would commit with, in GIT_AUTHOR_* and GIT_COMMITTER_*.
	GitIdentity bool
	// API is set for an agent git-ralph runs in-process (InProcess): Program, Args and
	// the prompt channel are then unused.
	API *API
}

// AsJudge is the preset as a judge runs it: in the CLI's read-only mode (JudgeArgs in
// place of Args, JudgeEnv added), and readOnly true, when the CLI has one; else p as
// it is, and false.
//
// An in-process agent is always read-only as a judge: loop/apiagent then offers the model
// only the tools that read.
func (p Preset) AsJudge() (judge Preset, readOnly bool) {
	if p.InProcess() {
		return p.clone(), true
	}
	if p.JudgeArgs == nil {
		return p, false
	}
	p = p.clone()
	p.Args = slices.Clone(p.JudgeArgs)
	p.Env = append(p.Env, p.JudgeEnv...)
	return p, true
}

// ExitMeaning is what the program means by exiting with code, if the preset knows.
func (p Preset) ExitMeaning(code int) (string, bool) {
	what, ok := p.ExitCodes[code]
	return what, ok
}

// Argv is the program and its arguments, with promptFile in place of PromptFile when
// the prompt goes by file: the command line as a user would read it.
func (p Preset) Argv(promptFile string) []string {
	argv := make([]string, 0, 1+len(p.Args))
	argv = append(argv, p.Program)
	for _, a := range p.Args {
		if p.Prompt == File {
			a = strings.ReplaceAll(a, PromptFile, promptFile)
		}
		argv = append(argv, a)
	}
	return argv
}

// Check reports what would stop the preset from running at all: no program, or a File
// preset whose arguments (after a user's override) no longer say where the file goes.
func (p Preset) Check() error {
	if p.InProcess() {
		return nil
	}
	if strings.TrimSpace(p.Program) == "" {
		return fmt.Errorf("agent %q: no program to run", p.Name)
	}
	if p.Prompt == File && !slices.ContainsFunc(p.Args, func(a string) bool { return strings.Contains(a, PromptFile) }) {
		return fmt.Errorf("agent %q reads its prompt from a file, but no argument contains %s", p.Name, PromptFile)
	}
	return nil
}

// clone is p with slices of its own, so that a caller's edits cannot reach the table.
func (p Preset) clone() Preset {
	p.Args = slices.Clone(p.Args)
	p.JudgeArgs = slices.Clone(p.JudgeArgs)
	p.JudgeEnv = slices.Clone(p.JudgeEnv)
	p.Env = slices.Clone(p.Env)
	if p.API != nil {
		api := *p.API
		p.API = &api
	}
	return p
}
