package schedule

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

func TestParseCronSpec(t *testing.T) {
	good := map[string]string{
		"0 2 * * *":               "0 2 * * *",
		"  */15  0-6 1,15 * *  ":  "*/15 0-6 1,15 * *",
		"30 1 * jan-mar MON-fri":  "30 1 * jan-mar MON-fri",
		"0 0 * * 7":               "0 0 * * 7",
		"0-59/5 23 31 12 sun,sat": "0-59/5 23 31 12 sun,sat",
		"@daily":                  "@daily",
		"@Reboot":                 "@reboot",
		"5 4 * * 0-6/2":           "5 4 * * 0-6/2",
	}
	for spec, want := range good {
		got, err := ParseSpec(spec)
		if err != nil || got != want {
			t.Errorf("ParseSpec(%q) = %q, %v; want %q", spec, got, err, want)
		}
	}
	bad := map[string]string{
		"":              "it has 0 fields",
		"0 2 * *":       "it has 4 fields, not 5",
		"0 2 * * * *":   "it has 6 fields",
		"60 * * * *":    `minute field "60": 60 is out of range 0-59`,
		"* 24 * * *":    `hour field "24": 24 is out of range 0-23`,
		"* * 0 * *":     `day of month field "0": 0 is out of range 1-31`,
		"* * * 13 *":    `month field "13": 13 is out of range 1-12`,
		"* * * * 8":     `day of week field "8": 8 is out of range 0-7`,
		"* * * foo *":   `"foo" is not a number from 1 to 12 nor a name like jan`,
		"* * * * mon-":  `"" is not a number`,
		"1,,2 * * * *":  "an empty list item",
		"*/0 * * * *":   `step "0" is not a number from 1 to 60`,
		"*/x * * * *":   `step "x"`,
		"5/10 * * * *":  "a step needs a range: write 5-59/10",
		"+5 * * * *":    `"+5" is not a number`,
		"10-5 * * * *":  "range 10-5 runs backwards",
		"@nightly":      "@nightly is not one of",
		"0 2 * * * cmd": "it has 6 fields",
	}
	for spec, want := range bad {
		_, err := ParseSpec(spec)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseSpec(%q) = %v; want an error with %q", spec, err, want)
		}
	}
}

// TestEntryLineRoundTrip runs a line with awkward paths and flags the way cron does
// (\% back to %, then sh -c) with a stand-in for git-ralph that prints its arguments,
// and checks that they arrive as given and that list reads them back the same.
func TestEntryLineRoundTrip(t *testing.T) {
	base := filepath.Join(t.TempDir(), "it's a repo")
	exe := filepath.Join(base, "bin dir", "git-ralph")
	if err := os.MkdirAll(filepath.Dir(exe), 0o755); err != nil {
		t.Fatal(err)
	}
	script := "#!/bin/sh\npwd\nfor w in \"$@\"; do printf '[%s]\\n' \"$w\"; done\n"
	if err := os.WriteFile(exe, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	flags := []string{"--context", `it's 100% "done" $HOME ` + "`x` \\ \t end", "--max", "3", "--agent-cmd", "echo '<promise>SUCCESS</promise>'", "", `a\%b \\%c %`}
	j := Job{id: "abc123", schedule: "0 2 * * *", repo: base, path: "/usr/bin:/bin", exe: exe,
		log: filepath.Join(base, ".ralph", "logs", "cron.log"), flags: flags}
	line := j.line()
	e, ok := parseEntry(line)
	if !ok || e.ID != "abc123" || e.Schedule != "0 2 * * *" || e.Repo != j.repo || e.Log != j.log || e.Path != j.path || !slices.Equal(e.Flags, flags) {
		t.Fatalf("parseEntry(%q) = %+v, %v", line, e, ok)
	}
	if strings.Count(line, "%") != strings.Count(line, `\%`) {
		t.Errorf("an unescaped %% in %q", line)
	}
	cmd := exec.Command("/bin/sh", "-c", cronCommand(cutFields(line, 5)))
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	if out, err := cmd.CombinedOutput(); err != nil || len(out) > 0 {
		t.Fatalf("running %q: %v\n%s", line, err, out)
	}
	want := base + "\n"
	for _, w := range append([]string{"loop", "--skip-if-busy"}, flags...) {
		want += "[" + w + "]\n"
	}
	if got, err := os.ReadFile(j.log); err != nil || string(got) != want {
		t.Errorf("the stand-in printed\n%s\nwant\n%s (%v)", got, want, err)
	}
}

// cronCommand is what Vixie cron and cronie hand to sh for a line's command: a backslash
// pairs with the next character, \% becomes %, and the first bare % ends the command.
func cronCommand(command string) string {
	var out strings.Builder
	escaped := false
	for _, r := range command {
		switch {
		case escaped:
			if r != '%' {
				out.WriteRune('\\')
			}
			out.WriteRune(r)
			escaped = false
		case r == '\\':
			escaped = true
		case r == '%':
			return out.String()
		default:
			out.WriteRune(r)
		}
	}
	return out.String()
}

func TestEntriesKeepForeignLines(t *testing.T) {
	foreign := "# comment # git-ralph:zzz\nMAILTO=\"\"\n*/5 * * * * backup\n#0 2 * * * cd /x && y loop >> /x/l 2>&1 # git-ralph:dead00\n"
	ours := Job{id: "0a0b0c", schedule: "@daily", repo: "/r", path: "/bin", exe: "/bin/git-ralph", log: "/r/.ralph/logs/cron.log"}.line()
	table := withLine(foreign, ours)
	list := entries(table)
	if len(list) != 1 || list[0].ID != "0a0b0c" || list[0].Schedule != "@daily" || list[0].Repo != "/r" || len(list[0].Flags) != 0 {
		t.Fatalf("entries = %+v", list)
	}
	rest, ok := withoutEntry(table, "0a0b0c")
	if !ok || rest != foreign {
		t.Errorf("withoutEntry = %q, %v; want the foreign lines byte for byte", rest, ok)
	}
	if _, ok := withoutEntry(table, "dead00"); ok {
		t.Errorf("removed a line commented out by hand")
	}
	if got := withLine("x", "y"); got != "x\ny\n" {
		t.Errorf("withLine without a final newline = %q", got)
	}
}

func TestParseEntryEditedByHand(t *testing.T) {
	e, ok := parseEntry(`15 3 * * * /usr/bin/env FOO="bar" git ralph loop # git-ralph:beef01`)
	if !ok || e.ID != "beef01" || e.Schedule != "15 3 * * *" || e.Repo != "" || e.Command != `/usr/bin/env FOO="bar" git ralph loop` {
		t.Errorf("parseEntry = %+v, %v", e, ok)
	}
}

func TestCronPath(t *testing.T) {
	got := cronPath([]string{"/opt/ralph/bin", "/usr/bin"}, "/home/me/bin:.:relative:/usr/bin::/opt/ralph/bin/:/odd\ndir")
	want := "/opt/ralph/bin:/usr/bin:/home/me/bin:/usr/local/bin:/bin"
	if got != want {
		t.Errorf("cronPath = %q, want %q", got, want)
	}
}

// TestJobRefusesLineBreaks: a path with a line break would split the entry into two
// crontab lines, the second one a job of its own.
func TestJobRefusesLineBreaks(t *testing.T) {
	ok := Job{repo: "/r", exe: "/bin/git-ralph", log: "/r/.ralph/logs/cron.log"}
	if err := ok.checkOneLine(); err != nil {
		t.Errorf("checkOneLine(%+v) = %v", ok, err)
	}
	bad := ok
	bad.repo = "/r\n* * * * * rm -rf ~"
	if err := bad.checkOneLine(); err == nil || !strings.Contains(err.Error(), "line break") {
		t.Errorf("checkOneLine(%+v) = %v, want a line-break error", bad, err)
	}
}

func TestInterpreterDir(t *testing.T) {
	dir := t.TempDir()
	sh, err := exec.LookPath("sh")
	if err != nil {
		t.Skip("no sh")
	}
	cases := map[string]string{
		"#!/opt/node/bin/node\n":          "/opt/node/bin",
		"#!/usr/bin/env -S sh -e\nexit\n": filepath.Dir(sh),
		"#!/usr/bin/env no-such-prog-x\n": "",
		"\x7fELF binary":                  "",
	}
	for content, want := range cases {
		path := filepath.Join(dir, "agent")
		if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
			t.Fatal(err)
		}
		if got := interpreterDir(path); got != want {
			t.Errorf("interpreterDir(%q) = %q, want %q", content, got, want)
		}
	}
}
