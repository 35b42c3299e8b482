package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// programCheck is the result of looking for the agent command's program.
type programCheck struct {
	ok      bool
	program string // the first word of the command
	path    string // where it was found
	note    string // why it was not looked up
	problem string
	hint    string
}

// shellWords are first words that are the shell's own, not a program on PATH.
var shellWords = map[string]bool{
	"if": true, "for": true, "while": true, "until": true, "case": true, "{": true, "(": true,
	"exec": true, "cd": true, "echo": true, "printf": true, "test": true, "[": true, "true": true,
	"false": true, "exit": true, "export": true, "eval": true, "set": true, ".": true, ":": true,
	"trap": true, "read": true, "!": true,
}

// checkAgentProgram finds the program the agent command starts, as sh would: the first
// word after any VAR=value assignments, looked up on PATH unless it contains a slash.
func checkAgentProgram(dir, command string) programCheck {
	program := firstProgram(command)
	switch {
	case program == "":
		return programCheck{problem: "the agent command is empty", hint: "pass --agent-cmd CMD"}
	case shellWords[program] || strings.ContainsAny(program, "$`'\"\\*?"):
		return programCheck{ok: true, program: program, note: "a shell construct, not looked up"}
	}
	return checkProgram(dir, program)
}

// checkProgram finds one program: on PATH, or at its path when it has a slash.
func checkProgram(dir, program string) programCheck {
	switch {
	case program == "":
		return programCheck{problem: "the agent has no program", hint: "set program in [agents.NAME]"}
	case strings.Contains(program, "/"):
		return checkPath(dir, program)
	}
	path, err := exec.LookPath(program)
	if err != nil {
		return programCheck{program: program,
			problem: fmt.Sprintf("agent program not found: %s", printable(program)),
			hint:    fmt.Sprintf("searched PATH: %s\ninstall it, or pass the right command with --agent-cmd", os.Getenv("PATH"))}
	}
	return programCheck{ok: true, program: program, path: path}
}

func checkPath(dir, program string) programCheck {
	path := program
	if !filepath.IsAbs(path) {
		path = filepath.Join(dir, path)
	}
	info, err := os.Stat(path)
	switch {
	case err != nil:
		return programCheck{program: program, problem: fmt.Sprintf("agent program not found: %s", printable(path)),
			hint: "check the path in --agent-cmd (relative paths start in the repository root)"}
	case info.IsDir() || info.Mode()&0o111 == 0:
		return programCheck{program: program, problem: fmt.Sprintf("agent program is not executable: %s", printable(path)),
			hint: fmt.Sprintf("chmod +x %s", path)}
	}
	return programCheck{ok: true, program: program, path: path}
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
