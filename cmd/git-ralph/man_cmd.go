package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/alecthomas/kong"
)

// ManCmd is `git ralph man`. git turns `git ralph --help` into `git help ralph`, which
// opens the man page git-ralph(1); this command writes that page from the CLI model.
type ManCmd struct {
	Install bool   `help:"Write the page to DIR/man1/git-ralph.1 instead of printing it."`
	Dir     string `help:"Man directory for --install (default: share/man beside the bin directory holding git-ralph, which man finds through PATH)." placeholder:"DIR" type:"path"`
}

// Run prints or installs the man page.
func (c *ManCmd) Run(s Streams, k *kong.Kong) error {
	if !c.Install {
		return writeManPage(s.Stdout, k.Model)
	}
	dir, err := c.manDir()
	if err != nil {
		return err
	}
	path := filepath.Join(dir, "man1", "git-ralph.1")
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return withHint(fmt.Errorf("creating %s: %w", filepath.Dir(path), err), "pass --dir with a man directory you can write to")
	}
	f, err := os.Create(path)
	if err != nil {
		return withHint(fmt.Errorf("writing the man page: %w", err), "pass --dir with a man directory you can write to")
	}
	defer f.Close()
	if err := writeManPage(f, k.Model); err != nil {
		return err
	}
	fmt.Fprintf(s.Stdout, "installed %s; 'git help ralph' and 'git ralph --help' now open it\n", path)
	if note := manPathNote(os.Getenv("MANPATH"), dir); note != "" {
		fmt.Fprintf(s.Stdout, "%s\n", note)
	}
	return f.Close()
}

// manPathNote says how to make man find dir when MANPATH is set: man then searches only
// the directories it lists, unless an empty entry (a leading or trailing ':', or '::')
// stands for the default search, which finds share/man beside each bin directory on PATH.
func manPathNote(manpath, dir string) string {
	if manpath == "" {
		return ""
	}
	for _, entry := range filepath.SplitList(manpath) {
		if entry == "" || filepath.Clean(entry) == filepath.Clean(dir) {
			return ""
		}
	}
	return fmt.Sprintf("note: MANPATH is set, so man looks only where it says: add %s to it (export MANPATH=\"$MANPATH:%s\"),\n"+
		"or end it with ':' to keep man's own search as well", dir, dir)
}

// manDir is DIR, or ../share/man from the executable's directory: man-db adds that
// directory to its search path for every bin directory on PATH.
func (c *ManCmd) manDir() (string, error) {
	if c.Dir != "" {
		return c.Dir, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding git-ralph's executable: %w", err)
	}
	if resolved, err := filepath.EvalSymlinks(exe); err == nil {
		exe = resolved
	}
	return filepath.Join(filepath.Dir(filepath.Dir(exe)), "share", "man"), nil
}

// writeManPage renders the kong model as roff.
func writeManPage(w io.Writer, app *kong.Application) error {
	var b strings.Builder
	b.WriteString(".TH GIT-RALPH 1 \"\" \"git-ralph " + roff(version) + "\" \"Git Manual\"\n")
	b.WriteString(".SH NAME\ngit-ralph \\- drive an AI coding agent through fresh-context iterations\n")
	b.WriteString(".SH SYNOPSIS\n.B git ralph\n.I command\n[\\fIflags\\fR]\n")
	b.WriteString(".SH DESCRIPTION\n" + roff(app.Help) + "\n")
	b.WriteString(".SH COMMANDS\n")
	for _, cmd := range app.Children {
		writeManCommand(&b, cmd, "git ralph")
	}
	b.WriteString(".SH GLOBAL FLAGS\n")
	writeManFlags(&b, app.Flags)
	b.WriteString(".SH EXIT STATUS OF git ralph loop\n")
	for _, row := range exitCodeTable {
		fmt.Fprintf(&b, ".TP\n.B %d\n%s\n", row.code, roff(row.meaning))
	}
	b.WriteString(".SH FILES\n" + roff(manFiles) + "\n")
	b.WriteString(".SH SEE ALSO\nThe README of git\\-ralph; docs/events.md for the \\-\\-json events and the [hooks] input; \\fBgit ralph demo\\fR.\n")
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
	fmt.Fprintf(b, ".SS \"%s\"\n%s\n", roff(usage), roff(cmd.Help))
	if cmd.Detail != "" {
		fmt.Fprintf(b, ".PP\n%s\n", roff(cmd.Detail))
	}
	for _, arg := range cmd.Positional {
		if arg.Help != "" {
			fmt.Fprintf(b, ".TP\n.I %s\n%s\n", roff(arg.Name), roff(arg.Help))
		}
	}
	writeManFlags(b, cmd.Flags)
	for _, sub := range cmd.Children {
		writeManCommand(b, sub, path)
	}
}

// manFiles lists what git ralph keeps where.
const manFiles = `.ralph/config.toml: the repository's configuration. ~/.config/git-ralph/config.toml: yours. .ralph/state.toml: the loop's state. .ralph/history/N/: iteration N's record, diff and agent output. .ralph/logs/ralph.log: the structured log (git ralph logs). .ralph/logs/cron.log: what cron runs printed. .git/ralph.lock: the single-instance lock. ~/.config/git-ralph/trusted.toml: the repositories whose commands you approved.`

func writeManFlags(b *strings.Builder, flags []*kong.Flag) {
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		name := "\\-\\-" + roff(f.Name)
		if f.Short != 0 {
			name = fmt.Sprintf("\\-%c, %s", f.Short, name)
		}
		if !f.IsBool() {
			name += " \\fI" + roff(f.FormatPlaceHolder()) + "\\fR"
		}
		fmt.Fprintf(b, ".TP\n.B %s\n%s\n", name, roff(f.Help))
	}
}

// roff escapes text for a man page: backslashes, leading dots and quotes.
func roff(text string) string {
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

// exitCodeTable documents `git ralph loop`'s exit codes, in the man page and the README.
var exitCodeTable = []struct {
	code    int
	meaning string
}{
	{0, "success: the agent signalled <promise>SUCCESS</promise>"},
	{1, "aborted: the consecutive-error threshold was hit, a configuration or usage error before any iteration, or an error that stopped the loop"},
	{2, "max iterations reached"},
	{3, "idle: --idle-threshold iterations in a row changed nothing in git"},
	{75, "busy: another loop holds this repository's lock"},
	{130, "interrupted: SIGINT, SIGTERM, SIGHUP or git ralph cancel"},
}
