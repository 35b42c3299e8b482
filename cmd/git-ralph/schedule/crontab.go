package schedule

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// entryMark ends every crontab line git-ralph writes, followed by the entry's ID; sh
// reads it as a comment, and it lets list and remove find our lines and no others.
const entryMark = "# git-ralph:"

// crontab is the user's cron table, read with `crontab -l` and replaced whole with
// `crontab -` (the portable pair: Vixie cron, cronie, busybox and macOS all have it).
type crontab struct{ program string }

// findCrontab looks for the crontab program on PATH.
func findCrontab() (crontab, error) {
	path, err := exec.LookPath("crontab")
	if err != nil {
		return crontab{}, hints.Wrap(errors.New("crontab not found on PATH: scheduling needs cron"),
			"install cron (Debian, Ubuntu: apt install cron; Fedora: dnf install cronie), or run\n"+
				"'git ralph loop --skip-if-busy' from your own scheduler (a systemd timer, launchd)")
	}
	return crontab{program: path}, nil
}

// readCrontab finds the crontab program and reads the user's table with it.
func readCrontab(ctx context.Context) (crontab, string, error) {
	tab, err := findCrontab()
	if err != nil {
		return tab, "", err
	}
	table, err := tab.read(ctx)
	return tab, table, err
}

// read returns the table as crontab prints it; a user without one has an empty table.
func (c crontab) read(ctx context.Context) (string, error) {
	var out, errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, c.program, "-l")
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err := cmd.Run()
	if err != nil && strings.Contains(strings.ToLower(errOut.String()), "no crontab for") {
		return "", nil
	}
	if err != nil {
		return "", hints.Wrap(fmt.Errorf("reading your crontab: crontab -l: %v: %s", err, strings.TrimSpace(errOut.String())),
			"check that 'crontab -l' works for you")
	}
	return out.String(), nil
}

// write replaces the table; crontab checks it and refuses a table it cannot read.
func (c crontab) write(ctx context.Context, table string) error {
	var errOut bytes.Buffer
	cmd := exec.CommandContext(ctx, c.program, "-")
	cmd.Stdin, cmd.Stderr = strings.NewReader(table), &errOut
	if err := cmd.Run(); err != nil {
		return hints.Wrap(fmt.Errorf("installing the new crontab: crontab -: %v: %s", err, strings.TrimSpace(errOut.String())),
			"your crontab was not changed ('crontab -l' shows it)")
	}
	return nil
}

// Entry is one of git-ralph's lines in the crontab.
type Entry struct {
	ID       string   `json:"id"`
	Schedule string   `json:"schedule"`
	Repo     string   `json:"repository"`
	Flags    []string `json:"flags"`
	Log      string   `json:"log"`
	Command  string   `json:"command"` // what cron hands to sh, as written in the table
	Current  bool     `json:"this_repository"`
	// Path is the PATH the line runs the loop with ("" when it sets none): doctor looks
	// for the agent there.
	Path string `json:"-"`
}

// Job is what an entry runs, before it becomes a line.
type Job struct {
	id, schedule, repo, path, exe, log string
	flags                              []string
}

// line is the job's crontab line: cd into the repository, make sure the log's directory
// exists (a `git clean -x` may have removed it), and run the loop with cron's PATH
// replaced, appending everything it prints to the log. --skip-if-busy makes a run that
// finds another loop working exit 75 without a word.
func (j Job) line() string {
	words := []string{"cd", ShellWord(j.repo), "&&", "mkdir", "-p", ShellWord(dirOf(j.log)), "&&",
		"PATH=" + ShellWord(j.path), ShellWord(j.exe), "loop", "--skip-if-busy"}
	for _, f := range j.flags {
		words = append(words, ShellWord(f))
	}
	words = append(words, ">>", ShellWord(j.log), "2>&1")
	return j.schedule + " " + cronEscape(strings.Join(words, " ")) + " " + entryMark + j.id
}

// checkOneLine refuses a job whose repository or program path holds a line break: the
// crontab would read what follows it as a line of its own.
func (j Job) checkOneLine() error {
	for _, path := range []string{j.repo, j.exe, j.log} {
		if strings.ContainsAny(path, "\n\r") {
			return hints.Wrap(fmt.Errorf("%q holds a line break, which a crontab line cannot", path),
				"move it to a path without one, or run 'git ralph loop --skip-if-busy' from your own scheduler")
		}
	}
	return nil
}

// dirOf is the directory part of a slash-separated path.
func dirOf(path string) string { return path[:strings.LastIndexByte(path, '/')] }

// cronEscape protects % signs: cron turns an unescaped % into a newline and feeds what
// follows to the command's stdin, and turns \% into %. cron also pairs any backslash
// with the character after it, so a \ right before a % (in a word such as a\%b) would
// eat the escape: the single-quoted word is closed and reopened between the two
// instead. A backslash only ever stands inside single quotes here (see ShellWord).
func cronEscape(command string) string {
	command = strings.ReplaceAll(command, `\%`, `\''%`)
	return strings.ReplaceAll(command, "%", `\%`)
}

// ShellWord quotes a word for sh unless it is made only of characters sh leaves alone.
func ShellWord(word string) string {
	if word != "" && strings.Trim(word, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-") == "" {
		return word
	}
	return "'" + strings.ReplaceAll(word, "'", `'\''`) + "'"
}

// entries finds git-ralph's lines in a table.
func entries(table string) []Entry {
	var list []Entry
	for _, line := range strings.Split(table, "\n") {
		if e, ok := parseEntry(line); ok {
			list = append(list, e)
		}
	}
	return list
}

// parseEntry reads one of our lines back. A line edited by hand still shows, with its
// schedule and command, even if its repository and flags can no longer be read.
func parseEntry(line string) (Entry, bool) {
	at := strings.LastIndex(line, " "+entryMark)
	if at < 0 || strings.HasPrefix(strings.TrimLeft(line, " \t"), "#") {
		return Entry{}, false // not ours, or ours commented out by hand
	}
	rest, id := line[:at], line[at+len(entryMark)+1:]
	if id == "" || strings.ContainsAny(id, " \t") {
		return Entry{}, false
	}
	e := Entry{ID: id, Flags: []string{}}
	fields := strings.Fields(rest)
	n := len(cronFields)
	if len(fields) > 0 && strings.HasPrefix(fields[0], "@") {
		n = 1
	}
	if len(fields) <= n {
		return Entry{}, false
	}
	e.Schedule = strings.Join(fields[:n], " ")
	e.Command = strings.TrimSpace(cutFields(rest, n))
	if words, err := splitShellWords(strings.ReplaceAll(e.Command, `\%`, "%")); err == nil {
		e.readWords(words)
	}
	return e, true
}

// cutFields drops the first n whitespace-separated fields of s.
func cutFields(s string, n int) string {
	for i := 0; i < n; i++ {
		s = strings.TrimLeft(s, " \t")
		if j := strings.IndexAny(s, " \t"); j >= 0 {
			s = s[j:]
		} else {
			return ""
		}
	}
	return s
}

// readWords picks the repository, the loop flags and the log out of the words of a
// command that Job.line wrote.
func (e *Entry) readWords(words []string) {
	loopAt, logAt := -1, -1
	for i, w := range words {
		switch {
		case w == "cd" && i+1 < len(words) && e.Repo == "":
			e.Repo = words[i+1]
		case strings.HasPrefix(w, "PATH=") && loopAt < 0:
			e.Path = strings.TrimPrefix(w, "PATH=")
		case w == "loop" && loopAt < 0:
			loopAt = i
		case w == ">>" && i+1 < len(words):
			logAt = i
			e.Log = words[i+1]
		}
	}
	if loopAt < 0 || logAt < loopAt {
		return
	}
	for _, f := range words[loopAt+1 : logAt] {
		if f != "--skip-if-busy" {
			e.Flags = append(e.Flags, f)
		}
	}
}

// splitShellWords splits the commands Job.line writes into words: plain words,
// single-quoted strings and backslash-escaped characters (how sh spells a quote inside
// a quoted word), separated by blanks. Anything else sh would expand is not our line.
func splitShellWords(s string) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord, quoted, escaped := false, false, false
	for _, r := range s {
		switch {
		case escaped:
			word.WriteRune(r)
			escaped = false
		case quoted && r == '\'':
			quoted = false
		case quoted:
			word.WriteRune(r)
		case r == '\'':
			quoted, inWord = true, true
		case r == '\\':
			escaped, inWord = true, true
		case r == ' ' || r == '\t':
			if inWord {
				words, inWord = append(words, word.String()), false
				word.Reset()
			}
		case r == '"' || r == '$' || r == '`':
			return nil, fmt.Errorf("unexpected %q", r)
		default:
			word.WriteRune(r)
			inWord = true
		}
	}
	if quoted || escaped {
		return nil, errors.New("unterminated quote")
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}

// newEntryID draws a six-hex-digit ID that no entry in the table has.
func newEntryID(taken []Entry) (string, error) {
	for {
		b := make([]byte, 3)
		if _, err := rand.Read(b); err != nil {
			return "", fmt.Errorf("drawing an entry ID: %w", err)
		}
		id := hex.EncodeToString(b)
		if !hasEntry(taken, id) {
			return id, nil
		}
	}
}

// hasEntry reports whether an entry in list has the ID id.
func hasEntry(list []Entry, id string) bool {
	for _, e := range list {
		if e.ID == id {
			return true
		}
	}
	return false
}

// withLine adds a line at the end of a table, which must end in a newline for cron.
func withLine(table, line string) string {
	if table != "" && !strings.HasSuffix(table, "\n") {
		table += "\n"
	}
	return table + line + "\n"
}

// withoutEntry removes the line of entry id and leaves every other byte as it was.
func withoutEntry(table, id string) (string, bool) {
	lines := strings.SplitAfter(table, "\n")
	for i, line := range lines {
		if e, ok := parseEntry(strings.TrimSuffix(line, "\n")); ok && e.ID == id {
			return strings.Join(append(lines[:i:i], lines[i+1:]...), ""), true
		}
	}
	return table, false
}
