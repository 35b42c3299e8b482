package config

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// table is one set of settings: the top level of a file, one of its [modes.NAME]
// sections, an [agents.NAME] table, [hooks], the environment, or the flags.
type table map[string]setting

// setting is one value with its origin. A "prompt" value is stored under "prompts".
type setting struct {
	v      any // string, int, bool, time.Duration, int64 (sizes) or []string
	key    string
	origin Origin
}

// layer is what one config file says.
type layer struct {
	top      table
	modes    map[string]table
	agents   map[string]table
	agentSeq []string // agent names in order of appearance
	hooks    table
	prices   map[string]table  // [prices.MODEL]: the user's file only
	priceAt  map[string]Origin // where each [prices.MODEL] is
	commands map[string]string // see Config.RepoCommands
	display  string            // the file as shown in messages; "" when there is none
}

func newLayer() *layer {
	return &layer{top: table{}, modes: map[string]table{}, agents: map[string]table{}, hooks: table{},
		prices: map[string]table{}, priceAt: map[string]Origin{}, commands: map[string]string{}}
}

// loadFile reads and decodes a config file; a missing file is an empty layer. The file
// must be a regular file of at most repofile.ConfigLimit; the repository's must also be
// inside the repository (root), symlinks resolved. With no root, path is the user's file.
func loadFile(root, path, display string, kind Kind) (*layer, error) {
	if path == "" {
		return newLayer(), nil
	}
	data, err := readSafely(root, path, display, kind)
	if errors.Is(err, fs.ErrNotExist) {
		return newLayer(), nil
	}
	if err != nil {
		return nil, err
	}
	return decodeFile(data, display, kind)
}

// readSafely reads a settings file as loadFile does — the repository's only inside it
// (root), every one a regular file of at most repofile.ConfigLimit — and turns a refusal
// or a failure into an Error naming the file. A missing file gives fs.ErrNotExist.
func readSafely(root, path, display string, kind Kind) ([]byte, error) {
	var data []byte
	var err error
	if root != "" {
		data, err = repofile.ReadIn(root, path, display, repofile.ConfigLimit)
	} else {
		data, err = repofile.Read(path, display, repofile.ConfigLimit)
	}
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return data, err
	}
	var refused *repofile.RefusedError
	if errors.As(err, &refused) {
		where := ""
		if root != "" {
			where = " inside the repository"
		}
		return nil, wholeFileError(kind, display, "refusing to read the file: "+refused.Reason,
			"make it a regular file"+where+" of at most "+repofile.FormatSize(repofile.ConfigLimit), err)
	}
	return nil, wholeFileError(kind, display, "can't read the file: "+unwrapped(err).Error(),
		"check that "+display+" is a readable file", err)
}

// unwrapped drops the path from an *fs.PathError, which the message names already.
func unwrapped(err error) error {
	if inner := errors.Unwrap(err); inner != nil {
		return inner
	}
	return err
}

// decodeFile checks a config file's contents against the schema.
func decodeFile(data []byte, display string, kind Kind) (*layer, error) {
	items, err := parseTOML(data)
	if err != nil {
		return nil, tomlError(display, kind, err)
	}
	d := fileDecoder{layer: newLayer(), file: display, kind: kind}
	for _, it := range items {
		if err := d.apply(it); err != nil {
			return nil, err
		}
	}
	return d.layer, nil
}

type fileDecoder struct {
	*layer
	file string
	kind Kind
}

func (d *fileDecoder) origin(it item, mode string) Origin {
	return Origin{Kind: d.kind, File: d.file, Line: it.line, Mode: mode}
}

// apply checks one item and records it in its section.
func (d *fileDecoder) apply(it item) *Error {
	switch it.path[0] {
	case "modes":
		return d.applyNamed(it, d.modes, nil, "mode")
	case "agents":
		return d.applyNamed(it, d.agents, &d.agentSeq, "agent")
	case "hooks":
		return d.applyKey(it, 1, d.hooks, hookSpecs, "")
	case "prices":
		if d.kind == FromRepo {
			return newProblem(repoPricesHint, "a repository's config may not set prices").at(d.origin(it, ""), fieldName(it.path[:min(2, len(it.path))]))
		}
		if len(it.path) >= 2 {
			if _, ok := d.priceAt[it.path[1]]; !ok {
				d.priceAt[it.path[1]] = d.origin(it, "")
			}
		}
		return d.applyNamed(it, d.prices, nil, "price")
	}
	return d.applyKey(it, 0, d.top, topSpecs, "")
}

// applyNamed handles the items of [modes.NAME] and [agents.NAME].
func (d *fileDecoder) applyNamed(it item, sections map[string]table, seq *[]string, what string) *Error {
	o := d.origin(it, "")
	if len(it.path) == 1 || len(it.path) == 2 {
		if err := d.wantTable(it, o, what); err != nil {
			return err
		}
	}
	if len(it.path) == 1 {
		return nil
	}
	name := it.path[1]
	if p := checkSectionName(what, name); p != nil {
		return p.at(o, fieldName(it.path[:2]))
	}
	if sections[name] == nil {
		sections[name] = table{}
		if seq != nil {
			*seq = append(*seq, name)
		}
	}
	if len(it.path) == 2 {
		return nil
	}
	if what == "mode" {
		if it.path[2] == "mode" {
			return newProblem("choose the mode with --mode or the top-level mode key, and remove this line",
				"mode can't be set inside [modes.%s]", name).at(o, fieldName(it.path[:3]))
		}
		return d.applyKey(it, 2, sections[name], topSpecs, name)
	}
	if what == "price" {
		return d.applyKey(it, 2, sections[name], priceSpecs, "")
	}
	return d.applyKey(it, 2, sections[name], agentSpecs, "")
}

// wantTable checks that an item that must be a table ([modes], [modes.NAME], [hooks] …)
// is one.
func (d *fileDecoder) wantTable(it item, o Origin, what string) *Error {
	hint := "write [" + it.path[0] + "] with its keys on the lines below it"
	if what != "" {
		hint = "write [" + it.path[0] + ".NAME] with its keys on the lines below it, like " + sectionExample[what]
	}
	switch it.value.(type) {
	case tomlTable:
		return nil
	case tomlArrayTable:
		return newProblem(hint+", with single brackets", "want a table, got an array of tables").at(o, fieldName(it.path))
	}
	return newProblem(hint, "want a table, got %s", describe(it.value)).at(o, fieldName(it.path))
}

var sectionExample = map[string]string{"mode": "[modes.plan]", "agent": "[agents.claude]", "price": `[prices."qwen2.5-coder"]`}

func checkSectionName(what, name string) *problem {
	if what == "mode" && !modeName.MatchString(name) {
		return newProblem(modeHint, "invalid mode name %q", name)
	}
	if name == "" && what == "price" {
		return newProblem(`name the model, like [prices."qwen2.5-coder"]`, "model name must not be empty")
	}
	if name == "" {
		return newProblem(`name the agent, like [agents.claude]`, "agent name must not be empty")
	}
	return nil
}

// applyKey handles an item whose path[depth] is a key of specs, in table t.
func (d *fileDecoder) applyKey(it item, depth int, t table, specs []spec, mode string) *Error {
	o := d.origin(it, mode)
	if len(it.path) == depth { // the section itself: [hooks], hooks = {…}
		return d.wantTable(it, o, "")
	}
	field := fieldName(it.path[:depth+1])
	key := it.path[depth]
	s := findSpec(specs, key)
	if s == nil || (mode != "" && s.topOnly) {
		valid := specKeys(specs, mode != "")
		switch {
		case depth == 0 && it.header:
			return unknownTable(o, it.path)
		case depth == 0:
			valid = append(valid, tableNames...)
		}
		return unknownKey(o, it.path[:depth+1], it.header, it.path, valid)
	}
	if len(it.path) > depth+1 || it.header {
		p := s.wrongType(tomlTable{})
		if t := suggest(key, tableNames); depth == 0 && t != "" {
			p.hint = "did you mean [" + fieldName(append([]string{t}, it.path[1:]...)) + "]?"
		}
		return p.at(o, field)
	}
	v, p := s.fromTOML(it.value)
	if p != nil {
		return p.at(o, field)
	}
	if d.kind == FromRepo && (key == "prompt" || key == "prompts") {
		if p := checkInsideRepo(v); p != nil {
			return p.at(o, field)
		}
	}
	return d.set(t, s, v, o, field)
}

// set records a checked value, catching prompt and prompts in the same table.
func (d *fileDecoder) set(t table, s *spec, v any, o Origin, field string) *Error {
	name := s.key
	if name == "prompt" {
		name, v = "prompts", []string{v.(string)}
	}
	if prev, ok := t[name]; ok {
		return newProblem(`use prompts = ["a.md", "b.md"] alone for several files, or prompt = "a.md" alone for one`,
			"%s and %s are both set (%s is on line %d)", prev.key, s.key, prev.key, prev.origin.Line).at(o, field)
	}
	t[name] = setting{v: v, key: s.key, origin: o}
	if d.kind == FromRepo && (s.command || s.commandIf != nil && s.commandIf(v)) {
		d.commands[field] = display(v)
	}
	return nil
}

// gitDirHint is the hint for a prompt path into .git.
const gitDirHint = `write the prompt in a file of the work tree, like "prompts/plan.md": git's own files (its config can hold a remote's credentials) never go into a prompt`

// checkInsideRepo requires the repository's prompt paths to stay inside it, and out of
// its git directory.
func checkInsideRepo(v any) *problem {
	list, _ := v.([]string)
	if s, ok := v.(string); ok {
		list = []string{s}
	}
	for _, p := range list {
		if !filepath.IsLocal(p) {
			return newProblem(`write a path relative to the repository root, like "prompts/plan.md"`,
				"%q is not a path inside the repository", p)
		}
		if repofile.InGitDir(p) {
			return newProblem(gitDirHint, "%q is inside the git directory, not a file of the repository", p)
		}
	}
	return nil
}

// display formats a value for Entries and RepoCommands: strings as they are, arrays as
// JSON, durations as time.Duration.String.
func display(v any) string {
	switch x := v.(type) {
	case string:
		return x
	case int:
		return strconv.Itoa(x)
	case int64:
		return formatSize(x)
	case bool:
		return strconv.FormatBool(x)
	case time.Duration:
		return x.String()
	case []string:
		b, _ := json.Marshal(x)
		return string(b)
	case float64:
		return formatMoney(x)
	}
	return ""
}

// formatMoney prints an amount in US dollars: "$5.00", "none" for 0 (no budget).
func formatMoney(f float64) string {
	if f == 0 {
		return "none"
	}
	if whole := strconv.FormatFloat(f, 'f', -1, 64); strings.Contains(whole, ".") && len(whole)-strings.IndexByte(whole, '.') > 3 {
		return "$" + whole // finer than cents: shown as given
	}
	return fmt.Sprintf("$%.2f", f)
}

// formatSize prints a byte count in the syntax the config accepts: "10MiB", "1500B".
func formatSize(n int64) string {
	for _, u := range []struct {
		unit  string
		scale int64
	}{{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10}} {
		if n >= u.scale && n%u.scale == 0 {
			return strconv.FormatInt(n/u.scale, 10) + u.unit
		}
	}
	return strconv.FormatInt(n, 10) + "B"
}
