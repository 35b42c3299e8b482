package agentcheck

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
)

// Result is what looking for the agent command's program found.
type Result struct {
	OK      bool
	Program string // the first word of the command
	Path    string // where it was found
	Note    string // why it was not looked up
	Problem string // what is wrong, when not OK
	Hint    string // how to fix it, with what was searched
	// InProcess: an API agent, which git-ralph runs itself: Program is the preset,
	// Note what it talks to.
	InProcess bool
	KeyEnv    string // InProcess: the variable its key is read from
}

// Agent looks for the agent's program: the first word of the custom command agentCmd
// when there is one, else the preset's program. ok is false when there is neither, so
// nothing was checked.
func Agent(dir, agentCmd, presetProgram string) (r Result, ok bool) {
	switch {
	case agentCmd != "":
		return Command(dir, agentCmd), true
	case presetProgram != "":
		return Program(dir, presetProgram), true
	}
	return Result{}, false
}

// shellWords are first words that are the shell's own, not a program on PATH.
var shellWords = map[string]bool{
	"if": true, "for": true, "while": true, "until": true, "case": true, "{": true, "(": true,
	"exec": true, "cd": true, "echo": true, "printf": true, "test": true, "[": true, "true": true,
	"false": true, "exit": true, "export": true, "eval": true, "set": true, ".": true, ":": true,
	"trap": true, "read": true, "!": true,
}

// Command finds the program a shell command (the agent's, or the validate command) starts,
// as sh would: the first word after any VAR=value assignments, looked up on PATH unless
// it contains a slash.
func Command(dir, command string) Result {
	program := firstProgram(command)
	switch {
	case program == "":
		return Result{Problem: "the agent command is empty", Hint: "pass --agent-cmd CMD"}
	case shellWords[program] || strings.ContainsAny(program, "$`'\"\\*?"):
		return Result{OK: true, Program: program, Note: "a shell construct, not looked up"}
	}
	return Program(dir, program)
}

// Program finds one program: on PATH, or at its path when it has a slash.
func Program(dir, program string) Result {
	switch {
	case program == "":
		return Result{Problem: "the agent has no program", Hint: "set program in [agents.NAME]"}
	case strings.Contains(program, "/"):
		return checkPath(dir, program)
	}
	path, err := exec.LookPath(program)
	if err != nil {
		return Result{Program: program,
			Problem: fmt.Sprintf("agent program not found: %s", display.Printable(program)),
			Hint:    fmt.Sprintf("searched PATH: %s\ninstall it, or pass the right command with --agent-cmd", os.Getenv("PATH"))}
	}
	return Result{OK: true, Program: program, Path: path}
}

func checkPath(dir, program string) Result {
	path := program
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return Result{Program: program, Problem: fmt.Sprintf("agent program not found: %s", display.Printable(path)),
			Hint: "check the path in --agent-cmd (relative paths start in the repository root)"}
	case info.IsDir() || info.Mode()&0o111 == 0:
		return Result{Program: program, Problem: fmt.Sprintf("agent program is not executable: %s", display.Printable(path)),
			Hint: fmt.Sprintf("chmod +x %s", path)}
	}
	return Result{OK: true, Program: program, Path: path}
}

// firstProgram returns the first word of a shell command that is not an assignment, cut
// at the shell's operators and with simple quotes removed; "" when a quote makes the
// word uncertain, so that the check is skipped rather than wrong.
func firstProgram(command string) string {
	words := strings.Fields(command)
	if len(words) > 1 && words[0] == "exec" {
		words = words[1:] // exec replaces the shell with the program
	}
	for _, word := range words {
		if i := strings.IndexAny(word, ";|&<>()"); i >= 0 {
			if word = word[:i]; word == "" {
				return "("
			}
		}
		if eq := strings.IndexByte(word, '='); eq > 0 && isName(word[:eq]) {
			if strings.ContainsAny(word[eq:], `'"`) {
				return `"` // a quoted value may hold spaces: where the program starts is unclear
			}
			continue
		}
		return strings.Trim(word, `'"`)
	}
	return ""
}

func isName(s string) bool {
	for i, r := range s {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}
