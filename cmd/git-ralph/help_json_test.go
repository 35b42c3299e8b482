package main

import (
	"bytes"
	"encoding/json"
	"go/ast"
	goparser "go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/help"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/workflow"
)

// helpJSON runs `git ralph help --json` and decodes what it printed as a script would.
func helpJSON(t *testing.T) map[string]any {
	t.Helper()
	var stdout, stderr bytes.Buffer
	if code := run([]string{"help", "--json"}, strings.NewReader(""), &stdout, &stderr); code != 0 {
		t.Fatalf("git ralph help --json exited %d: %s", code, stderr.String())
	}
	var c map[string]any
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil {
		t.Fatalf("help --json printed no JSON object: %v\n%s", err, stdout.String())
	}
	return c
}

// list is c[key] as a list of objects.
func list(t *testing.T, c map[string]any, key string) []map[string]any {
	t.Helper()
	raw, ok := c[key].([]any)
	if !ok {
		t.Fatalf("%q is %T, want a list", key, c[key])
	}
	out := make([]map[string]any, len(raw))
	for i, r := range raw {
		out[i] = r.(map[string]any)
	}
	return out
}

// TestHelpJSONHasEveryCommandAndFlag: every visible command of the model is in the
// contract under its path, with each of its visible flags and arguments, and nothing else.
func TestHelpJSONHasEveryCommandAndFlag(t *testing.T) {
	c := helpJSON(t)
	if c["version"] != 1.0 || help.ContractVersion != 1 {
		t.Errorf("version %v, want 1", c["version"])
	}
	commands := map[string]map[string]any{}
	var collect func(cmds []map[string]any)
	collect = func(cmds []map[string]any) {
		for _, cmd := range cmds {
			commands[cmd["path"].(string)] = cmd
			if _, ok := cmd["commands"]; ok {
				collect(list(t, cmd, "commands"))
			}
		}
	}
	collect(list(t, c, "commands"))
	seen := 0
	visibleCommands(cliModel(t).Node, "", func(path string, n *kong.Node) {
		seen++
		cmd, ok := commands[path]
		if !ok {
			t.Errorf("command %q is missing", path)
			return
		}
		if cmd["help"] != n.Help || cmd["help"] == "" {
			t.Errorf("%s: help %q, want %q", path, cmd["help"], n.Help)
		}
		var want, got []string
		for _, f := range n.Flags {
			if !f.Hidden {
				want = append(want, f.Name)
			}
		}
		for _, f := range list(t, cmd, "flags") {
			got = append(got, f["name"].(string))
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: flags %v, want %v", path, got, want)
		}
		if args := list(t, cmd, "args"); len(args) != len(n.Positional) {
			t.Errorf("%s: %d args, want %d", path, len(args), len(n.Positional))
		}
	})
	if seen != len(commands) || commands["schedule add"] == nil || commands["demo-agent"] != nil {
		t.Errorf("%d commands in the contract, %d visible in the model (schedule add %v, hidden demo-agent %v)",
			len(commands), seen, commands["schedule add"] != nil, commands["demo-agent"] != nil)
	}
}

// TestHelpJSONDescribesFlags: a flag's type, default, enum, short name and negation are
// the model's, as a script needs them to build a command line.
func TestHelpJSONDescribesFlags(t *testing.T) {
	c := helpJSON(t)
	flag := func(path, name string) map[string]any {
		for _, cmd := range list(t, c, "commands") {
			if cmd["path"] == path {
				for _, f := range list(t, cmd, "flags") {
					if f["name"] == name {
						return f
					}
				}
			}
		}
		t.Fatalf("no flag --%s of %s", name, path)
		return nil
	}
	if f := flag("loop", "max"); f["type"] != "int" || f["placeholder"] != "N" {
		t.Errorf("loop --max: %v", f)
	}
	if f := flag("loop", "push"); f["type"] != "bool" || f["negation"] != "no-push" {
		t.Errorf("loop --push: %v", f)
	}
	if f := flag("loop", "verbose"); f["short"] != "v" {
		t.Errorf("loop --verbose: %v", f)
	}
	if f := list(t, c, "global_flags"); len(f) != 2 || f[0]["name"] != "help" || f[1]["name"] != "version" {
		t.Errorf("global flags %v, want help and version", f)
	}
	for _, cmd := range list(t, c, "commands") {
		if cmd["path"] == "completion" {
			arg := list(t, cmd, "args")[0]
			if enum, _ := arg["enum"].([]any); len(enum) != 3 || enum[0] != "bash" || arg["required"] != true {
				t.Errorf("completion's argument %v, want the enum bash, zsh, fish", arg)
			}
		}
	}
}

// TestHelpJSONHasEveryKeyAndEvent: the config keys and event types are the code's own.
func TestHelpJSONHasEveryKeyAndEvent(t *testing.T) {
	c := helpJSON(t)
	var keys []string
	for _, k := range list(t, c, "config_keys") {
		keys = append(keys, k["key"].(string))
		if k["help"] == "" || k["type"] == "" {
			t.Errorf("key %v lacks help or type", k)
		}
	}
	for _, key := range config.Keys() {
		if !slices.Contains(keys, key) {
			t.Errorf("config key %s is missing", key)
		}
	}
	if len(keys) != len(config.Describe()) || !slices.Contains(keys, "hooks.on_failure") || !slices.Contains(keys, "agents.NAME.program") {
		t.Errorf("config keys %v", keys)
	}
	var events []string
	for _, e := range list(t, c, "events") {
		events = append(events, e["type"].(string))
		if len(list(t, e, "fields")) < 3 {
			t.Errorf("event %s has no fields of its own", e["type"])
		}
	}
	var want []string
	for _, e := range reporting.EventTypes() {
		want = append(want, e.Type)
	}
	if !slices.Equal(events, want) || !slices.Contains(events, "run_finished") {
		t.Errorf("events %v, want %v", events, want)
	}
}

// TestHelpJSONRefusesACommand: the contract is whole; asking it of one command is an
// error with a hint, not a silently whole answer.
func TestHelpJSONRefusesACommand(t *testing.T) {
	var stdout, stderr bytes.Buffer
	code := run([]string{"help", "--json", "loop"}, strings.NewReader(""), &stdout, &stderr)
	if code != 1 || stdout.Len() != 0 || !strings.Contains(stderr.String(), "hint: run 'git ralph help --json'") {
		t.Errorf("exit %d, stdout %q, stderr %q", code, stdout.String(), stderr.String())
	}
}

// TestExitCodesAreTheCodes: the exit code table (man page, help --json) has a row for
// every code a loop status maps to, named after the status where one is, and for every
// exit constant of the commands and of workflows. A new constant fails here until the
// table has its row and knownExits its value.
func TestExitCodesAreTheCodes(t *testing.T) {
	table := map[int]string{}
	for _, row := range help.ExitCodes {
		if _, dup := table[row.Code]; dup || row.Name == "" || row.Meaning == "" {
			t.Errorf("row %+v: a duplicate, or without a name or a meaning", row)
		}
		table[row.Code] = row.Name
	}
	statuses := stringConsts(t, filepath.Join("..", "..", "loop", "loop.go"), "Status")
	if len(statuses) < 9 {
		t.Fatalf("found the loop statuses %v in loop/loop.go: are they still there?", statuses)
	}
	for _, s := range statuses {
		code := loop.Status(s).ExitCode()
		if _, ok := table[code]; !ok {
			t.Errorf("status %s exits %d, which the table lacks", s, code)
		}
		for c, n := range table {
			if n == s && c != code {
				t.Errorf("the table names %d %q, but that status exits %d", c, n, code)
			}
		}
	}
	knownExits := map[string]int{
		"Busy": exitcode.Busy, "MergeConflict": exitcode.MergeConflict, "MergeInvalid": exitcode.MergeInvalid,
		"Interrupted": exitcode.Interrupted, "OK": exitcode.OK, "Failure": exitcode.Failure, "ReaderGone": exitcode.ReaderGone, "DoctorFailed": exitcode.DoctorFailed,
		"ExitDone": workflow.ExitDone, "ExitFailed": workflow.ExitFailed, "ExitAwaiting": workflow.ExitAwaiting,
		"ExitInterrupted": workflow.ExitInterrupted,
		"exitBusy":        exitcode.Busy, // the workflow runner's reading of a stage's busy
	}
	if exitcode.Failure != workflow.ExitFailed || exitcode.Interrupted != workflow.ExitInterrupted {
		t.Errorf("the commands' and the workflows' codes of one name differ")
	}
	exitConst := regexp.MustCompile(`^(exit|Exit)[A-Z]`)
	for _, dir := range []string{".", "exitcode", "launch", filepath.Join("..", "..", "loop", "workflow")} {
		re := exitConst
		if dir == "exitcode" { // the table itself: every constant is a code
			re = regexp.MustCompile(`^[A-Z]`)
		}
		for _, name := range constNames(t, dir, re) {
			code, ok := knownExits[name]
			if !ok {
				t.Errorf("%s in %s is an exit code this test does not know: add it to knownExits and its row to help.ExitCodes", name, dir)
				continue
			}
			if _, ok := table[code]; !ok {
				t.Errorf("%s = %d has no row in help.ExitCodes", name, code)
			}
		}
	}
	if table[exitcode.Busy] != "busy" || table[workflow.ExitAwaiting] != "awaiting-approval" || table[exitcode.ReaderGone] != "reader-gone" {
		t.Errorf("names: %v", table)
	}
}

// stringConsts are the values of the string constants of type typ declared in file.
func stringConsts(t *testing.T, file, typ string) []string {
	t.Helper()
	f, err := goparser.ParseFile(token.NewFileSet(), file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	ast.Inspect(f, func(n ast.Node) bool {
		spec, ok := n.(*ast.ValueSpec)
		if ok && spec.Type != nil && identName(spec.Type) == typ {
			for _, v := range spec.Values {
				if lit, ok := v.(*ast.BasicLit); ok {
					s, _ := strconv.Unquote(lit.Value)
					out = append(out, s)
				}
			}
		}
		return true
	})
	return out
}

func identName(e ast.Expr) string {
	if id, ok := e.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

// constNames are the names of the constants matching re declared in the non-test files
// of the package in dir.
func constNames(t *testing.T, dir string, re *regexp.Regexp) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, file := range files {
		if strings.HasSuffix(file, "_test.go") {
			continue
		}
		f, err := goparser.ParseFile(token.NewFileSet(), file, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok || gen.Tok != token.CONST {
				continue
			}
			for _, spec := range gen.Specs {
				for _, name := range spec.(*ast.ValueSpec).Names {
					if re.MatchString(name.Name) {
						out = append(out, name.Name)
					}
				}
			}
		}
	}
	return out
}
