package apiagent

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"
)

// The tools' names, as the model calls them.
const (
	toolRead  = "read_file"
	toolWrite = "write_file"
	toolEdit  = "edit_file"
	toolList  = "list_dir"
	toolGlob  = "glob"
	toolGrep  = "grep"
	toolBash  = "bash"
)

// toolSpecs are the tools the model is offered, with their arguments' schemas.
var toolSpecs = []toolSpec{
	{toolRead, "Read a text file of the work tree. Lines are numbered from 1; offset and limit choose a range of lines.",
		schema(`"path":{"type":"string","description":"path relative to the work tree"},"offset":{"type":"integer","description":"first line to read, from 1"},"limit":{"type":"integer","description":"how many lines to read"}`, "path")},
	{toolWrite, "Write a file of the work tree, replacing it if it exists; missing directories are created.",
		schema(`"path":{"type":"string"},"content":{"type":"string","description":"the file's whole new content"}`, "path", "content")},
	{toolEdit, "Replace exact text in a file of the work tree. old_text must occur exactly once (whitespace included) unless replace_all is true.",
		schema(`"path":{"type":"string"},"old_text":{"type":"string"},"new_text":{"type":"string"},"replace_all":{"type":"boolean"}`, "path", "old_text", "new_text")},
	{toolList, "List a directory of the work tree: directories end with /, files show their size.",
		schema(`"path":{"type":"string","description":"a directory; the work tree's top when empty"}`)},
	{toolGlob, "Find files of the work tree whose path matches a pattern: * and ? within a name, ** across directories (src/**/*.go).",
		schema(`"pattern":{"type":"string"}`, "pattern")},
	{toolGrep, "Search the text files of the work tree for lines matching a regular expression (RE2 syntax); prints path:line: text.",
		schema(`"pattern":{"type":"string"},"path":{"type":"string","description":"a file or directory to search; the whole tree when empty"},"glob":{"type":"string","description":"only files whose path matches this pattern"},"ignore_case":{"type":"boolean"}`, "pattern")},
	{toolBash, "Run a shell command (sh -c) in the work tree's top directory: git, builds, tests. It has no terminal and no input; commands it leaves running in the background are stopped when it returns.",
		schema(`"command":{"type":"string"},"timeout_seconds":{"type":"integer","description":"stop it after this long (capped by git-ralph's own limit)"}`, "command")},
}

func schema(properties string, required ...string) json.RawMessage {
	req, _ := json.Marshal(append([]string{}, required...))
	return json.RawMessage(`{"type":"object","properties":{` + properties + `},"required":` + string(req) + `}`)
}

// toolbox runs the tools in one work tree, each path resolved inside it by an os.Root.
type toolbox struct {
	dir      string // the work tree, absolute
	realDir  string // dir with its symbolic links resolved, as pwd may print it
	root     *os.Root
	maxOut   int // bytes of a tool's result the model is given
	bash     bashSettings
	scrubKey func([]byte) []byte
	readOnly bool // the tools that write are refused
}

func openToolbox(dir string, maxOut int, bash bashSettings, scrub func([]byte) []byte) (*toolbox, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return nil, err
	}
	root, err := os.OpenRoot(abs)
	if err != nil {
		return nil, fmt.Errorf("opening the work tree: %w", err)
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		real = abs
	}
	return &toolbox{dir: abs, realDir: real, root: root, maxOut: maxOut, bash: bash, scrubKey: scrub}, nil
}

func (t *toolbox) close() { t.root.Close() }

// toolError is a tool's refusal or failure, which the model is told as the call's result:
// never a failure of the iteration.
type toolError struct{ msg string }

func (e toolError) Error() string { return e.msg }

func refuse(format string, args ...any) error { return toolError{fmt.Sprintf(format, args...)} }

// run runs one call and gives its bounded, key-free result.
func (t *toolbox) run(ctx context.Context, c toolCall) toolResult {
	out, err := t.dispatch(ctx, c)
	res := toolResult{Call: c, Output: out}
	if err != nil {
		res.Output, res.IsError = err.Error(), true
	}
	res.Output = bound(string(t.scrubKey([]byte(res.Output))), t.maxOut)
	return res
}

// writes are the tools a read-only run is not offered.
var writes = map[string]bool{toolWrite: true, toolEdit: true, toolBash: true}

// readOnlySpecs are the tools of a read-only run.
func readOnlySpecs() []toolSpec {
	var specs []toolSpec
	for _, s := range toolSpecs {
		if !writes[s.Name] {
			specs = append(specs, s)
		}
	}
	return specs
}

// offered are the names of the tools this run offers: a read-only run's only read.
func (t *toolbox) offered() []string {
	specs := toolSpecs
	if t.readOnly {
		specs = readOnlySpecs()
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = s.Name
	}
	return names
}

func (t *toolbox) dispatch(ctx context.Context, c toolCall) (string, error) {
	if t.readOnly && writes[c.Name] {
		return "", refuse("%s is not offered: this run may only read the work tree", c.Name)
	}
	switch c.Name {
	case toolRead:
		return withArgs(c, t.read)
	case toolWrite:
		return withArgs(c, t.write)
	case toolEdit:
		return withArgs(c, t.edit)
	case toolList:
		return withArgs(c, t.list)
	case toolGlob:
		return withArgs(c, t.glob)
	case toolGrep:
		return withArgs(c, t.grep)
	case toolBash:
		return withArgs(c, func(a bashArgs) (string, error) { return t.runBash(ctx, a) })
	}
	return "", refuse("there is no tool %q; the tools are %s", c.Name, strings.Join(t.offered(), ", "))
}

// withArgs decodes the call's arguments into A and runs do with them.
func withArgs[A any](c toolCall, do func(A) (string, error)) (string, error) {
	var args A
	if err := json.Unmarshal(c.Input, &args); err != nil {
		return "", refuse("the arguments of %s are not the JSON object it takes (%v): call it again with complete arguments", c.Name, err)
	}
	return do(args)
}

// bound cuts s to at most max bytes (on a UTF-8 boundary), keeping its start, and says
// what was cut.
func bound(s string, max int) string {
	if max <= 0 || len(s) <= max {
		return s
	}
	cut := max
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + fmt.Sprintf("\n[git-ralph cut this result: %d of its %d bytes are shown]", cut, len(s))
}
