package agentcli

import (
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// finish completes the report once every line is read.
func (r *reading) finish(exitCode int) Report {
	r.geminiFlush()
	if r.rep.Structured {
		r.rep.Said, r.rep.Final = strings.Join(r.said, "\n"), r.lastSaid()
		if r.resultErr == "" { // an error result decides, not the stderr around it
			r.fromText(r.other, !r.completed || exitCode != 0)
		}
	} else {
		// Plain text, or a structured preset that printed no event at all (a usage error,
		// a login failure, or arguments replaced by the user): the output is all there is.
		// A transient error counts only with a failed exit: an agent's own words and the
		// test output it shows mention ECONNRESET or a 503 often enough.
		r.rep.Said = string(r.output)
		r.rep.Final = r.rep.Said
		r.other = strings.Split(r.rep.Said, "\n") // the lines share Said's copy
		r.fromText(r.other, exitCode != 0)
	}
	r.noticed()
	r.exitStatus(exitCode)
	rep := r.settle()
	rep.Error = r.errorText(exitCode)
	rep.Hint = hint(rep.Fatal)
	return rep
}

// errorLines is how many last lines of a failed plain-text run are its error text.
const errorLines = 3

// errorText is the agent's own words about why the run failed, "" when it did not:
// the final error's message, else the error its result ended with, else the last lines of
// a failed run's text.
func (r *reading) errorText(exitCode int) string {
	switch {
	case r.rep.Fatal != "":
		return r.rep.Fatal
	case r.rep.Limit != nil:
		return r.rep.Limit.Message
	case r.rep.Transient != "":
		return r.rep.Transient
	case r.resultErr != "":
		return r.resultErr
	case exitCode == 0 && !r.rep.IsError:
		return ""
	}
	return strings.Join(tail(r.other, errorLines), "\n")
}

// exitStatus reads what the exit status alone tells: the shell exits 127 when the
// program is not found and 126 when it cannot be run; and a program that printed its
// usage text and failed was given an argument it does not accept (opencode prints only
// its usage for an unknown option).
func (r *reading) exitStatus(code int) {
	switch {
	case code == 127 || code == 126:
		msg := fmt.Sprintf("exit %d: command not found", code)
		if code == 126 {
			msg = "exit 126: command found but cannot be run"
		}
		// The shell's own complaint ("sh: 1: exec: claude: not found") is the last line;
		// a "command not found" anywhere else is a tool the agent ran, not the agent.
		if last := tail(r.other, 1); len(last) == 1 && strings.Contains(last[0], "not found") || code == 126 && len(last) == 1 {
			msg = strings.TrimSpace(last[0])
		}
		r.rep.Fatal = msg
	case code != 0 && !r.rep.Structured && r.rep.Fatal == "" && r.rep.Limit == nil:
		r.usageError()
	}
}

// usageError reads a failed run that printed its usage: the error comes before the
// usage text ("Unknown arguments: …", then "Usage: gemini [options]"), so it lies
// beyond the last lines; opencode prints the usage alone.
func (r *reading) usageError() {
	line, ok := usageLine(r.rep.Said) // the output, as finish read it: no second copy
	if !ok {
		return
	}
	head := strings.SplitN(r.rep.Said, "\n", headLines+1)
	if s := findSignals(head[:min(len(head), headLines)]); s.fatal != "" {
		r.fatal(s.fatal)
		return
	}
	r.fatal("the agent printed its usage, so it did not accept its arguments: " + line)
}

// headLines is how many first lines of a usage text are searched for the error.
const headLines = 5

// usageRule matches the first line of a usage text: "Usage: codex exec [OPTIONS]", or a
// yargs command synopsis such as "opencode run [message..]".
var usageRule = lazyregexp.New(`(?i)^(?:usage: .+|[\w.-]+(?: [\w.-]+)* \[[\w-]+\.\.\])$`)

// usageLine finds a usage line among the first three non-empty lines of output.
func usageLine(output string) (string, bool) {
	seen := 0
	for line := range strings.Lines(output) {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if usageRule.MatchString(line) {
			return line, true
		}
		if seen++; seen == 3 {
			break
		}
	}
	return "", false
}

// settle keeps one kind of failure: Fatal over Limit over Transient.
func (r *reading) settle() Report {
	switch {
	case r.rep.Fatal != "":
		r.rep.Limit, r.rep.Transient = nil, ""
	case r.rep.Limit != nil:
		r.rep.Transient = ""
	}
	return r.rep
}
