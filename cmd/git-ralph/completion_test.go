package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// completionScriptOf runs `git ralph completion SHELL` and returns what it printed.
func completionScriptOf(t *testing.T, shell string) string {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"completion", shell}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("git ralph completion %s exited %d: %s", shell, code, stderr.String())
	}
	return stdout.String()
}

// cliModel is the command-line model the program parses with.
func cliModel(t *testing.T) *kong.Application {
	t.Helper()
	var cli CLI
	k, err := parser(&cli, Streams{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	return k.Model
}

// visibleCommands walks the model's visible commands, calling visit with each one's path.
func visibleCommands(n *kong.Node, path string, visit func(path string, n *kong.Node)) {
	for _, child := range n.Children {
		if child.Hidden || child.Type != kong.CommandNode {
			continue
		}
		childPath := strings.TrimSpace(path + " " + child.Name)
		visit(childPath, child)
		visibleCommands(child, childPath, visit)
	}
}

// completionMarks are the texts that show a shell's script offers a command or a flag.
var completionMarks = map[string]struct {
	command func(parent, name string) string
	flag    func(path, long string) string
}{
	"bash": {
		command: func(parent, name string) string {
			return fmt.Sprintf("'%s:%s') __git_ralph_reply='%s'", parent, name, name)
		},
		flag: func(path, long string) string { return "--" + long },
	},
	"zsh": {
		command: func(parent, name string) string { return "'" + name + ":" },
		flag:    func(path, long string) string { return "--" + long },
	},
	"fish": {
		command: func(parent, name string) string {
			return strings.TrimSpace("__git_ralph_at "+parent) + "' -f -a '" + name + "'"
		},
		flag: func(path, long string) string {
			return strings.TrimSpace("__git_ralph_at "+path) + "' -l '" + long + "'"
		},
	},
}

// TestCompletionScriptsOfferEveryVisibleCommandAndFlag checks the generated scripts
// against the model, so that a command added later is covered or this fails.
func TestCompletionScriptsOfferEveryVisibleCommandAndFlag(t *testing.T) {
	app := cliModel(t)
	for shell, marks := range completionMarks {
		t.Run(shell, func(t *testing.T) {
			script := completionScriptOf(t, shell)
			if strings.Contains(script, "demo-agent") {
				t.Error("the hidden command demo-agent is offered")
			}
			check := func(path string, n *kong.Node) {
				parent := strings.TrimSpace(strings.TrimSuffix(path, n.Name))
				if !strings.Contains(script, marks.command(parent, n.Name)) {
					t.Errorf("command %q is not offered (looked for %s)", path, marks.command(parent, n.Name))
				}
				for _, f := range n.Flags {
					if !f.Hidden && !strings.Contains(script, marks.flag(path, f.Name)) {
						t.Errorf("flag --%s of %q is not offered", f.Name, path)
					}
				}
			}
			visibleCommands(app.Node, "", check)
			wants := []string{marks.flag("loop", "no-push"), marks.flag("", "version"), marks.flag("", "help"), "bash zsh fish"}
			for _, want := range append(wants, agentcli.Names()...) {
				if !strings.Contains(script, want) {
					t.Errorf("%q is missing", want)
				}
			}
		})
	}
}

// TestCompletionScriptsParse runs each shell's syntax check on its script, where the
// shell is installed.
func TestCompletionScriptsParse(t *testing.T) {
	checks := map[string][]string{"bash": {"bash", "-n"}, "zsh": {"zsh", "-n"}, "fish": {"fish", "--no-execute"}}
	for shell, check := range checks {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(check[0]); err != nil {
				t.Skipf("%s is not installed: its script's syntax is not checked", check[0])
			}
			path := filepath.Join(t.TempDir(), "completion."+shell)
			if err := os.WriteFile(path, []byte(completionScriptOf(t, shell)), 0o644); err != nil {
				t.Fatal(err)
			}
			if out, err := exec.Command(check[0], append(check[1:], path)...).CombinedOutput(); err != nil {
				t.Fatalf("%s: %v\n%s", strings.Join(check, " "), err, out)
			}
		})
	}
}

// gitBashCompletion is git's own bash completion, where Debian's git package or git's
// source tree puts it.
func gitBashCompletion(t *testing.T) string {
	t.Helper()
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("bash is not installed")
	}
	for _, path := range []string{
		"/usr/share/bash-completion/completions/git",
		"/usr/share/doc/git/contrib/completion/git-completion.bash",
	} {
		if _, err := os.Stat(path); err == nil {
			return path
		}
	}
	t.Skip("git's bash completion is not installed (neither bash-completion's git nor git's contrib)")
	return ""
}

// completionRig is a repository with a PROMPT_review.md and the bash script saved beside
// it, where completions are asked for as bash asks for them on TAB.
type completionRig struct {
	dir, script string
}

// newCompletionRig makes the repository and saves the bash script, with HOME and git's
// configuration kept inside the test's temporary directory.
func newCompletionRig(t *testing.T) completionRig {
	t.Helper()
	gittest.Isolate(t)
	home := os.Getenv("HOME")
	dir := filepath.Join(home, "repo")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("XDG_DATA_HOME", filepath.Join(home, ".local", "share"))
	gittest.Git(t, dir, "init", "-q")
	if err := os.WriteFile(filepath.Join(dir, "PROMPT_review.md"), []byte("Review.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	script := filepath.Join(home, "git-ralph.bash")
	if err := os.WriteFile(script, []byte(completionScriptOf(t, "bash")), 0o644); err != nil {
		t.Fatal(err)
	}
	return completionRig{dir: dir, script: script}
}

// complete runs setup in a clean bash, then the completion function that `complete -p`
// names for words[0] (loading it on demand as bash-completion does), with the cursor at
// the end of the last word; it returns the candidates, sorted, without trailing spaces.
// "=" is its own word, as bash splits "--agent=c" into "--agent", "=", "c".
func (r completionRig) complete(t *testing.T, setup string, words ...string) []string {
	t.Helper()
	quoted := make([]string, len(words))
	for i, w := range words {
		quoted[i] = display.ShellQuote(w)
	}
	driver := setup + `
COMP_WORDS=(` + strings.Join(quoted, " ") + `)
COMP_CWORD=` + fmt.Sprint(len(words)-1) + `
COMP_LINE=` + display.ShellQuote(commandLine(words)) + `
COMP_POINT=${#COMP_LINE}
COMPREPLY=()
spec=$(complete -p "${COMP_WORDS[0]}" 2>/dev/null) ||
	{ _completion_loader "${COMP_WORDS[0]}"; spec=$(complete -p "${COMP_WORDS[0]}"); } || exit 3
fn=${spec##*-F }
fn=${fn%% *}
"$fn" "${COMP_WORDS[0]}" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD-1]}"
printf '%s\n' "${COMPREPLY[@]}"
`
	cmd := exec.Command("bash", "--norc", "--noprofile", "-c", driver)
	cmd.Dir = r.dir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil || stderr.Len() > 0 {
		t.Fatalf("completing %q: %v\n%s", words, err, stderr.String())
	}
	var got []string
	for _, l := range strings.Split(string(out), "\n") {
		if l = strings.TrimRight(l, " "); l != "" {
			got = append(got, l)
		}
	}
	slices.Sort(got)
	return got
}

// commandLine is the line bash split into words: "=" is joined to its neighbours.
func commandLine(words []string) string {
	var b strings.Builder
	for i, w := range words {
		if i > 0 && w != "=" && words[i-1] != "=" {
			b.WriteByte(' ')
		}
		b.WriteString(w)
	}
	return b.String()
}

// completionCase is one TAB press: the words up to the cursor, and the candidates.
type completionCase struct {
	words []string
	want  []string
}

// bashCases are the TAB presses every bash setup must answer alike.
func bashCases(t *testing.T, command ...string) []completionCase {
	var commands []string
	visibleCommands(cliModel(t).Node, "", func(path string, n *kong.Node) {
		if !strings.Contains(path, " ") {
			commands = append(commands, path)
		}
	})
	withPrefix := func(words []string, prefix string) []string {
		var out []string
		for _, w := range words {
			if strings.HasPrefix(w, prefix) {
				out = append(out, w)
			}
		}
		return out
	}
	at := func(words ...string) []string { return append(slices.Clone(command), words...) }
	return []completionCase{
		{at(""), commands},
		{at("lo"), withPrefix(commands, "lo")},
		{at("loop", "--ag"), []string{"--agent", "--agent-cmd"}},
		{at("loop", "--agent", ""), agentcli.Names()},
		{at("loop", "--agent", "=", "c"), withPrefix(agentcli.Names(), "c")},
		{at("loop", "--no-p"), []string{"--no-push"}},
		{at("loop", "--mode", ""), []string{"build", "plan", "review"}},
		{at("loop", "--mode", "plan", "--dry"), []string{"--dry-run"}},
		{at("loop", "--mode", "hook", ""), nil}, // hook is --mode's value, not the command
		{at("hook", ""), []string{"install", "uninstall"}},
		{at("hook", "un"), []string{"uninstall"}},
		{at("completion", ""), []string{"bash", "fish", "zsh"}},
		{at("completion", "bash", ""), nil},
		{at("rollback", ""), []string{"initial"}},
		{at("status", "--j"), []string{"--json"}},
	}
}

// TestBashCompletion presses TAB in bash after "git ralph …" (through git's completion),
// after "git-ralph …" with and without git's completion, and with the script loaded on
// demand by bash-completion from the user's completions directory.
func TestBashCompletion(t *testing.T) {
	gitCompletion := gitBashCompletion(t)
	rig := newCompletionRig(t)
	setups := map[string]struct {
		setup   string
		command []string
	}{
		"git ralph":               {"source " + display.ShellQuote(gitCompletion) + "\nsource " + display.ShellQuote(rig.script), []string{"git", "ralph"}},
		"git -C . ralph":          {"source " + display.ShellQuote(gitCompletion) + "\nsource " + display.ShellQuote(rig.script), []string{"git", "-C", ".", "ralph"}},
		"git-ralph":               {"source " + display.ShellQuote(gitCompletion) + "\nsource " + display.ShellQuote(rig.script), []string{"git-ralph"}},
		"git-ralph without git's": {"source " + display.ShellQuote(rig.script), []string{"git-ralph"}},
	}
	for name, s := range setups {
		t.Run(name, func(t *testing.T) {
			for _, c := range bashCases(t, s.command...) {
				if got := rig.complete(t, s.setup, c.words...); !slices.Equal(got, sorted(c.want)) {
					t.Errorf("%s<TAB>: got %q, want %q", strings.Join(c.words, " "), got, sorted(c.want))
				}
			}
		})
	}
}

// TestBashCompletionLoadedOnDemand installs the script where docs/guide/install.md says and lets
// bash-completion find it, for "git ralph" (git's completion asks for git-ralph's) and
// for "git-ralph".
func TestBashCompletionLoadedOnDemand(t *testing.T) {
	gitBashCompletion(t)
	const bashCompletion = "/usr/share/bash-completion/bash_completion"
	if _, err := os.Stat(bashCompletion); err != nil {
		t.Skip("bash-completion is not installed")
	}
	rig := newCompletionRig(t)
	dir := filepath.Join(os.Getenv("XDG_DATA_HOME"), "bash-completion", "completions")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(rig.script, filepath.Join(dir, "git-ralph")); err != nil {
		t.Fatal(err)
	}
	setup := "source " + bashCompletion
	for _, command := range [][]string{{"git", "ralph"}, {"git-ralph"}} {
		for _, c := range bashCases(t, command...) {
			if got := rig.complete(t, setup, c.words...); !slices.Equal(got, sorted(c.want)) {
				t.Errorf("%s<TAB>: got %q, want %q", strings.Join(c.words, " "), got, sorted(c.want))
			}
		}
	}
}

// TestFishCompletion asks fish for its candidates, where fish is installed.
func TestFishCompletion(t *testing.T) {
	if _, err := exec.LookPath("fish"); err != nil {
		t.Skip("fish is not installed: its completion is checked by content only")
	}
	rig := newCompletionRig(t)
	script := filepath.Join(filepath.Dir(rig.script), "git-ralph.fish")
	if err := os.WriteFile(script, []byte(completionScriptOf(t, "fish")), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, command := range []string{"git ralph", "git-ralph"} {
		for _, c := range []completionCase{
			{[]string{"hook", ""}, []string{"install", "uninstall"}},
			{[]string{"loop", "--ag"}, []string{"--agent", "--agent-cmd"}},
			{[]string{"loop", "--agent", ""}, agentcli.Names()},
			{[]string{"loop", "--mode", ""}, []string{"build", "plan", "review"}},
			{[]string{"loop", "--mode", "hook", ""}, nil},
			{[]string{"completion", ""}, []string{"bash", "fish", "zsh"}},
		} {
			line := command + " " + strings.Join(c.words, " ")
			cmd := exec.Command("fish", "--no-config", "-c", "source "+display.ShellQuote(script)+"; complete -C "+display.ShellQuote(line))
			cmd.Dir = rig.dir
			out, err := cmd.CombinedOutput()
			if err != nil {
				t.Fatalf("fish: %v\n%s", err, out)
			}
			var got []string
			for _, l := range strings.Split(strings.TrimSpace(string(out)), "\n") {
				if name, _, _ := strings.Cut(l, "\t"); name != "" {
					got = append(got, name)
				}
			}
			slices.Sort(got)
			if !slices.Equal(got, sorted(c.want)) {
				t.Errorf("%s<TAB>: got %q, want %q", line, got, sorted(c.want))
			}
		}
	}
}

// sorted is a sorted copy of words.
func sorted(words []string) []string {
	out := slices.Clone(words)
	slices.Sort(out)
	return out
}
