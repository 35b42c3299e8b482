package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/alecthomas/kong"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/kongmodel"
)

// wholeModel is the whole CLI's kong model, which the tests walk for every command.
func wholeModel(t testing.TB) *kong.Node {
	t.Helper()
	var cli CLI
	k, err := parser(&cli, Streams{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	return k.Model.Node
}

// Every command of the CLI, by its name and its aliases, gets a one-command parser that
// holds that command alone, except the commands that are handed the parser and print
// the whole CLI.
func TestEveryCommandGetsItsOneCommandParser(t *testing.T) {
	model := wholeModel(t)
	var whole []string
	for _, c := range model.Children {
		for _, name := range append([]string{c.Name}, c.Aliases...) {
			k := oneCommandParser([]string{name}, Streams{}, func(int) {})
			if k == nil {
				whole = append(whole, name)
				continue
			}
			if got := k.Model.Children; len(got) != 1 || got[0].Name != c.Name {
				t.Errorf("the one-command parser of %q holds %s, want %s alone", name, names(got), c.Name)
			}
			if got, want := flagNames(k.Model.Flags), slices.DeleteFunc(flagNames(model.Flags), func(n string) bool { return n == "help" }); !slices.Equal(got, want) {
				t.Errorf("the one-command parser of %q has the global flags %v, want %v", name, got, want)
			}
		}
	}
	if want := []string{"completion", "man", "help"}; !slices.Equal(whole, want) {
		t.Errorf("the commands read by the whole parser are %v, want %v (the ones whose Run takes *kong.Kong)", whole, want)
	}
}

func names(nodes []*kong.Node) []string {
	var out []string
	for _, n := range nodes {
		out = append(out, n.Name)
	}
	return out
}

func flagNames(flags []*kong.Flag) []string {
	var out []string
	for _, f := range flags {
		out = append(out, f.Name)
	}
	return out
}

// The whole parser calls the hooks of every command's flags that have a default or an
// environment variable, and reads every command's environment variables, whichever
// command runs; a one-command parser only its own command's. So no command's flag may
// have either (the global flags are in both).
func TestNoFlagIsReadOutsideItsCommand(t *testing.T) {
	hooks := []string{"BeforeReset", "BeforeResolve", "BeforeApply", "AfterApply", "AfterRun"}
	for _, cmd := range wholeModel(t).Children {
		_ = kong.Visit(cmd, func(v kong.Visitable, next kong.Next) error {
			f, ok := v.(*kong.Flag)
			if !ok {
				return next(nil)
			}
			if len(f.Tag.Envs) > 0 {
				t.Errorf("--%s of %s reads $%s: a one-command parser of another command would not", f.Name, cmd.Name, f.Tag.Envs[0])
			}
			for _, hook := range hooks {
				_, value := f.Target.Type().MethodByName(hook)
				_, pointer := reflect.PointerTo(f.Target.Type()).MethodByName(hook)
				if f.HasDefault && (value || pointer) {
					t.Errorf("--%s of %s has a default and a %s hook: a one-command parser of another command would not call it", f.Name, cmd.Name, hook)
				}
			}
			return next(nil)
		})
	}
}

func TestNoOneCommandParserWhereTheWholeModelShows(t *testing.T) {
	for _, args := range [][]string{
		nil, {"--help"}, {"--version"}, {"-h", "merge"}, {"mrege", "one"}, {"help", "merge"},
		{"completion", "bash"}, {"man"}, {"merge", "one", "--max", "-1"}, {"logs", "-n", "-5"},
	} {
		if oneCommandParser(args, Streams{}, func(int) {}) != nil {
			t.Errorf("%q got a one-command parser, want the whole one", args)
		}
	}
}

// textFile is a file for the flags that want an existing one (inject --file).
func textFile(t *testing.T) string {
	file := filepath.Join(t.TempDir(), "text.md")
	if err := os.WriteFile(file, []byte("more tests\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	return file
}

// Every leaf command with every one of its flags, each spelled every way, repeated and
// with negative numbers, reads the same through run's parsing as through the whole
// parser: the same command with the same values, or the same error.
func TestOneCommandParserReadsAsTheWholeOne(t *testing.T) {
	file := textFile(t)
	fast := 0
	for _, cmd := range leafCommands(wholeModel(t)) {
		if oneCommandParser(strings.Fields(cmd.Path()), Streams{}, func(int) {}) == nil {
			continue // read by the whole parser: nothing to compare
		}
		for name, args := range commandLines(t, cmd, file) {
			t.Run(cmd.Path()+"/"+name, func(t *testing.T) {
				if oneCommand := sameParse(t, args); oneCommand {
					fast++
				} else if !slices.ContainsFunc(args, kongmodel.IsNegativeValue) {
					t.Errorf("%q: the one-command parser failed where the whole one did not", args)
				}
			})
		}
	}
	if fast < 100 {
		t.Errorf("only %d command lines were read by a one-command parser", fast)
	}
}

// Hand-picked command lines read the same through run's parsing as through the whole
// parser.
func TestCommandLinesReadAsByTheWholeParser(t *testing.T) {
	file := textFile(t)
	for _, line := range []string{
		"merge one --validate true",
		"merge one --validate=true --squash --max 3 --max 4 --notify desktop,bell",
		"merge one --max=-1",
		"merge one --max -1",
		"merge one --resolve --agent-cmd=-x --agent claude",
		"logs -n -1 -f",
		"logs -n=-1",
		"logs --lines -2 3",
		"history --limit -5 --json",
		"history --diff=-1",
		"inject -f " + file + " --loop x",
		"inject -f -1",
		"inject -- -starts-with-a-dash",
		"loop --validate make --verbose=raw -q --no-push --max 2 --timeout 90s -- -task-with-a-dash",
		"loop -v --push --unlimited=false --best-of 3 --jobs 2 --max-cost 1.50 task",
		"loop --stagnation-similarity -3",
		"schedule add --cron @daily -- --max 10 --mode build",
		"schedule add --cron=@daily",
		"schedule list --json",
		"schedule remove 3",
		"workflow run nightly --agent claude --notify none",
		"workflow status nightly --json",
		"workflow trust nightly -y",
		"hook install --force",
		"hook uninstall",
		"ledger main..HEAD HEAD~2..HEAD --json --remote origin",
		"checkpoint before -m note --force --loop x",
		"rollback 3 --loop x",
		"rollback --undo",
		"rollback --undo=2",
		"reject build --feedback=-more",
		"approve build --workflow w",
		"replay-agent dir --speed 2",
		"replay-agent dir --speed -2",
		"demo-agent",
		"version",
		"pre-push origin /srv/remote.git",
		"serve --addr 127.0.0.1:0",
		"config --mode plan --json",
		"trust --revoke -y",
	} {
		t.Run(line, func(t *testing.T) {
			sameParse(t, strings.Fields(line))
		})
	}
}

// sameParse parses args through run's parsing and through the whole parser, fails the
// test unless both read the same commands and values or fail the same way, and reports
// whether run's parsing used a one-command parser.
func sameParse(t *testing.T, args []string) (oneCommand bool) {
	t.Helper()
	exit := func(c int) { panic(fmt.Sprintf("exit %d", c)) }
	k, got, gotErr := parseArgs(args, Streams{}, exit)
	_, want, wantErr := parseWhole(args, Streams{}, exit)
	if fmt.Sprint(gotErr) != fmt.Sprint(wantErr) {
		t.Fatalf("%q: error %v, the whole parser's is %v", args, gotErr, wantErr)
	}
	if wantErr != nil {
		return false
	}
	if commandName(got) != commandName(want) {
		t.Fatalf("%q: selected %q, the whole parser %q", args, commandName(got), commandName(want))
	}
	gotValues, wantValues := commandValues(got), commandValues(want)
	if !reflect.DeepEqual(gotValues, wantValues) {
		t.Fatalf("%q: read\n%#v\nthe whole parser\n%#v", args, gotValues, wantValues)
	}
	return len(k.Model.Children) == 1
}

// commandValues are the values of the commands on the selected path, the command
// structs that Run is called on.
func commandValues(kctx *kong.Context) []any {
	var values []any
	for _, p := range kctx.Path {
		if p.Command != nil {
			values = append(values, p.Command.Target.Interface())
		}
	}
	return values
}

// leafCommands are the commands that run, not those that only group subcommands.
func leafCommands(root *kong.Node) []*kong.Node {
	var leaves []*kong.Node
	_ = kong.Visit(root, func(v kong.Visitable, next kong.Next) error {
		if n, ok := v.(*kong.Node); ok && n.Type == kong.CommandNode && len(n.Children) == 0 {
			leaves = append(leaves, n)
		}
		return next(nil)
	})
	return leaves
}

// commandLines are command lines for cmd, by name: its required arguments alone, then
// with every flag and argument in each spelling, twice, and with negative numbers.
func commandLines(t *testing.T, cmd *kong.Node, file string) map[string][]string {
	path := strings.Fields(cmd.Path())
	var required, optional []string
	for _, p := range cmd.Positional {
		values := []string{sample(t, p, file, 0)}
		if p.IsSlice() {
			values = append(values, sample(t, p, file, 1))
		}
		if p.Required {
			required = append(required, values...)
		} else {
			optional = append(optional, values...)
		}
	}
	var requiredFlags []string
	for _, f := range commandFlags(cmd) {
		if f.Required {
			requiredFlags = append(requiredFlags, spelled(t, f, file, 0, "--")...)
		}
	}
	base := slices.Concat(path, required, requiredFlags)
	lines := map[string][]string{"required": base}
	for _, spelling := range []string{"--", "--=", "short", "negated"} {
		line := slices.Concat(base, optional)
		for _, f := range commandFlags(cmd) {
			line = append(line, spelled(t, f, file, 0, spelling)...)
		}
		lines["every flag "+spelling] = line
		for _, f := range commandFlags(cmd) {
			line = append(line, spelled(t, f, file, 1, spelling)...)
		}
		lines["every flag "+spelling+" twice"] = line
	}
	for _, f := range commandFlags(cmd) {
		if number(f.Target.Type()) {
			lines["--"+f.Name+" -1"] = slices.Concat(base, []string{"--" + f.Name, "-1"})
			lines["--"+f.Name+"=-1"] = slices.Concat(base, []string{"--" + f.Name + "=-1"})
			if f.Short != 0 {
				lines["-"+string(f.Short)+" -1"] = slices.Concat(base, []string{"-" + string(f.Short), "-1"})
			}
		}
	}
	return lines
}

// commandFlags are the flags of cmd and of the commands it is a subcommand of.
func commandFlags(cmd *kong.Node) []*kong.Flag {
	var flags []*kong.Flag
	for n := cmd; n != nil && n.Type == kong.CommandNode; n = n.Parent {
		flags = append(flags, n.Flags...)
	}
	return flags
}

// spelled is flag f given with its i-th sample value, spelled "--" (--name value), "--="
// (--name=value), "short" (-x value, or --name without a short name) or "negated"
// (--no-name for a negatable flag, --name otherwise).
func spelled(t *testing.T, f *kong.Flag, file string, i int, spelling string) []string {
	long := "--" + f.Name
	switch {
	case spelling == "negated" && f.Tag.Negatable != "":
		return []string{"--no-" + f.Name}
	case f.IsBool() && spelling == "--=":
		return []string{long + "=" + []string{"true", "false"}[i]}
	case f.IsBool() && spelling == "short" && f.Short != 0:
		return []string{"-" + string(f.Short)}
	case f.IsBool():
		return []string{long}
	case spelling == "--=":
		return []string{long + "=" + sample(t, f.Value, file, i)}
	case spelling == "short" && f.Short != 0:
		return []string{"-" + string(f.Short), sample(t, f.Value, file, i)}
	}
	return []string{long, sample(t, f.Value, file, i)}
}

// sample is the i-th (0 or 1) value of a flag or argument of v's type.
func sample(t *testing.T, v *kong.Value, file string, i int) string {
	typ := v.Target.Type()
	for typ.Kind() == reflect.Pointer || typ.Kind() == reflect.Slice {
		typ = typ.Elem()
	}
	switch {
	case v.Enum != "":
		return strings.Split(v.Enum, ",")[i]
	case v.Tag.Type == "existingfile":
		return file
	case v.Tag.Type == "path":
		return []string{"share/man", "/tmp/man"}[i]
	case typ == reflect.TypeFor[time.Duration]():
		return []string{"90s", "2m"}[i]
	case number(typ):
		return []string{"3", "4"}[i]
	case typ.Kind() == reflect.String:
		return []string{"one", "two words"}[i]
	}
	t.Fatalf("no sample value for --%s of type %s: add one to sample", v.Name, v.Target.Type())
	return ""
}

// number reports whether t (or what it points to) is a number.
func number(t reflect.Type) bool {
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64,
		reflect.Float32, reflect.Float64:
		return t != reflect.TypeFor[time.Duration]()
	}
	return false
}

// What run prints and returns for a command line it does not run (an error, help,
// the version) is what it printed with the whole parser.
func TestRunPrintsWhatTheWholeParserDoes(t *testing.T) {
	file := textFile(t)
	for _, args := range [][]string{
		{}, {"--help"}, {"-h"}, {"--version"}, {"version", "--version"},
		{"merge"}, {"merge", "-h"}, {"merge", "one", "--help"}, {"merge", "--version"},
		{"merge", "one", "--bogus"}, {"merge", "one", "--max"}, {"merge", "one", "--max", "abc"},
		{"merge", "one", "two"}, {"merge", "one", "--", "--help"}, {"merge", "one", "--validate"},
		{"mrege", "one"}, {"merge", "one", "--squash=maybe"},
		{"history", "--diff"}, {"history", "--limit", "x"}, {"history", "--limit"},
		{"logs", "-fh"}, {"logs", "-x"}, {"logs", "-n"},
		{"inject", "--file", filepath.Join(filepath.Dir(file), "missing.md")}, {"inject", "-f"},
		{"loop", "--verbose", "raw"}, {"loop", "-v", "raw"}, {"loop", "--verbose=loud"},
		{"loop", "--timeout", "soon"}, {"loop", "--no-fresh"}, {"loop", "--max", "--json"},
		{"schedule"}, {"schedule", "-h"}, {"schedule", "add"}, {"schedule", "add", "-h"},
		{"schedule", "bogus"}, {"schedule", "remove"},
		{"workflow"}, {"workflow", "run"}, {"workflow", "run", "--help"}, {"workflow", "bogus"},
		{"hook"}, {"hook", "install", "--bogus"},
		{"reject", "build"}, {"reject", "build", "--feedback"},
		{"replay-agent"}, {"replay-agent", "dir", "--speed", "fast"},
		{"help", "merge"}, {"help", "bogus"}, {"completion"}, {"completion", "tcsh"}, {"man", "--bogus"},
	} {
		t.Run(strings.Join(args, " "), func(t *testing.T) {
			code, stdout, stderr := runWith(parseArgs, args)
			wantCode, wantStdout, wantStderr := runWith(parseWhole, args)
			if code != wantCode || stdout != wantStdout || stderr != wantStderr {
				t.Errorf("%q exits %d printing\n%s\n%s\nthe whole parser exits %d printing\n%s\n%s",
					args, code, stdout, stderr, wantCode, wantStdout, wantStderr)
			}
			if stdout+stderr == "" {
				t.Errorf("%q printed nothing", args)
			}
		})
	}
}

func runWith(parse parse, args []string) (code int, stdout, stderr string) {
	var out, errs bytes.Buffer
	code = runParsed(parse, args, strings.NewReader(""), &out, &errs)
	return code, out.String(), errs.String()
}

// The parser run builds for `merge NAME` against the whole CLI's: what the merge queue
// pays at every start of git-ralph before the merge begins.
func BenchmarkParseMerge(b *testing.B) {
	args := []string{"merge", "one", "--validate", "true"}
	for _, p := range []struct {
		name  string
		parse parse
	}{{"whole", parseWhole}, {"one-command", parseArgs}} {
		b.Run(p.name, func(b *testing.B) {
			s := Streams{Stdin: strings.NewReader(""), Stdout: io.Discard, Stderr: io.Discard}
			for b.Loop() {
				if _, kctx, err := p.parse(args, s, func(int) {}); err != nil || kctx.Selected().Name != "merge" {
					b.Fatal(err)
				}
			}
		})
	}
}
