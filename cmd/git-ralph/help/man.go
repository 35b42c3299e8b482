package help

import (
	"fmt"
	"io"
	"strings"

	"github.com/alecthomas/kong"
)

// WriteManPage writes the man page git-ralph(1), of git-ralph at version, from the
// command-line model app, in roff.
func WriteManPage(w io.Writer, app *kong.Application, version string) error {
	var b strings.Builder
	b.WriteString(".TH GIT-RALPH 1 \"\" \"git-ralph " + Roff(version) + "\" \"Git Manual\"\n")
	b.WriteString(".SH NAME\ngit-ralph \\- drive an AI coding agent through fresh-context iterations\n")
	b.WriteString(".SH SYNOPSIS\n.B git ralph\n.I command\n[\\fIflags\\fR]\n")
	b.WriteString(".SH DESCRIPTION\n" + Roff(app.Help) + "\n")
	b.WriteString(".SH COMMANDS\n")
	for _, cmd := range app.Children {
		writeManCommand(&b, cmd, "git ralph")
	}
	b.WriteString(".SH GLOBAL FLAGS\n")
	writeManFlags(&b, app.Flags)
	b.WriteString(".SH EXIT STATUS\n")
	for _, row := range ExitCodes {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", row.Code, Roff(row.Meaning))
	}
	b.WriteString(".SH FILES\n" + Roff(manFiles) + "\n")
	b.WriteString(".SH SEE ALSO\nThe README of git\\-ralph, and docs/README.md, the index of its guides and references; docs/reference/events.md for the \\-\\-json events and the [hooks] input; docs/reference/help\\-json.md for git ralph help \\-\\-json; \\fBgit ralph demo\\fR.\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// writeManCommand writes a command's section, then its subcommands' (hook install, …).
func writeManCommand(b *strings.Builder, cmd *kong.Node, parent string) {
	if cmd.Hidden {
		return
	}
	path := parent + " " + cmd.Name
	usage := path
	for _, arg := range cmd.Positional {
		name := "<" + arg.Name + ">"
		if arg.IsSlice() {
			name += "..."
		}
		if !arg.Required {
			name = "[" + name + "]"
		}
		usage += " " + name
	}
	fmt.Fprintf(b, ".SS \"%s\"\n%s\n", Roff(usage), Roff(cmd.Help))
	if cmd.Detail != "" {
		fmt.Fprintf(b, ".PP\n%s\n", Roff(cmd.Detail))
	}
	for _, arg := range cmd.Positional {
		if arg.Help != "" {
			fmt.Fprintf(b, ".TP\n.I %s\n%s\n", Roff(arg.Name), Roff(arg.Help))
		}
	}
	writeManFlags(b, cmd.Flags)
	for _, sub := range cmd.Children {
		writeManCommand(b, sub, path)
	}
}

// manFiles lists what git ralph keeps where.
const manFiles = `.ralph/config.toml: the repository's configuration. ~/.config/git-ralph/config.toml: yours. .ralph/state.toml: the loop's state. .ralph/history/N/: iteration N's record, diff and agent output. .ralph/logs/ralph.log: the structured log (git ralph logs). .ralph/logs/cron.log: what cron runs printed. .ralph/logs/background-NAME.log: what a loop started with --background printed. .git/ralph.lock: the single-instance lock. ~/.config/git-ralph/trusted.toml: the repositories whose commands you approved.`

func writeManFlags(b *strings.Builder, flags []*kong.Flag) {
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		name := "\\-\\-" + Roff(f.Name)
		if f.Short != 0 {
			name = fmt.Sprintf("\\-%c, %s", f.Short, name)
		}
		if !f.IsBool() {
			name += " \\fI" + Roff(f.FormatPlaceHolder()) + "\\fR"
		}
		fmt.Fprintf(b, ".TP\n.B %s\n%s\n", name, Roff(f.Help))
	}
}

// Roff escapes text for a man page: backslashes, leading dots and quotes.
func Roff(text string) string {
	text = strings.ReplaceAll(text, "\\", "\\e")
	text = strings.ReplaceAll(text, "-", "\\-")
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ".") || strings.HasPrefix(l, "'") {
			lines[i] = "\\&" + l
		}
	}
	return strings.Join(lines, "\n")
}
