package workflow

import (
	"bytes"
	"errors"
	"fmt"
	"sort"
	"strings"

	"github.com/git-ralph/git-ralph/fielderr"
	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// maxDefinitions bounds the keys of one file: go-toml's decoder takes time in the square
// of their number, and a workflow needs a few dozen.
const maxDefinitions = 5000

// keyLines maps every key and table of data to its line ("stages.plan.gate" → 7) and
// lists the stages in the file's order.
func keyLines(data []byte) (map[string]int, []string, error) {
	starts := []int{0}
	for i, b := range data {
		if b == '\n' {
			starts = append(starts, i+1)
		}
	}
	lineAt := func(off int) int { return sort.SearchInts(starts, off+1) }
	lines := map[string]int{}
	var order []string
	note := func(path []string, line int) {
		key := strings.Join(path, ".")
		if _, ok := lines[key]; !ok {
			lines[key] = line
		}
		if len(path) >= 2 && path[0] == "stages" && !contains(order, path[1]) {
			order = append(order, path[1])
		}
	}
	var p unstable.Parser
	p.Reset(data)
	var prefix []string
	for n := 0; p.NextExpression(); n++ {
		if n > maxDefinitions {
			return nil, nil, fmt.Errorf("it defines more than %d keys and tables", maxDefinitions)
		}
		e := p.Expression()
		switch e.Kind {
		case unstable.Table, unstable.ArrayTable:
			prefix = keyPath(nil, e)
			if k := e.Child(); k != nil {
				note(prefix, lineAt(int(k.Raw.Offset)))
			}
		case unstable.KeyValue:
			path := keyPath(prefix, e)
			for i := len(prefix) + 1; i <= len(path); i++ {
				note(path[:i], lineAt(int(e.Raw.Offset)))
			}
		}
	}
	return lines, order, p.Error()
}

func keyPath(prefix []string, n *unstable.Node) []string {
	path := append([]string(nil), prefix...)
	it := n.Key()
	for it.Next() {
		path = append(path, string(it.Node().Data))
	}
	return path
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// syntaxError is a file that is not TOML.
func syntaxError(file string, err error) *Error {
	e := &Error{File: file, Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: "), Err: err,
		HintText: `fix the TOML syntax: strings need quotes (task = "…"), stages are tables like [stages.plan]`}
	var pe *unstable.ParserError
	if errors.As(err, &pe) {
		e.Msg = "invalid TOML: " + pe.Message
	}
	return e
}

// syntaxErrorIn is syntaxError with the line, which go-toml's full decoder knows.
func syntaxErrorIn(file string, data []byte, err error) *Error {
	e := syntaxError(file, err)
	var de *toml.DecodeError
	var m map[string]any
	if errors.As(toml.Unmarshal(data, &m), &de) {
		line, col := de.Position()
		e.Line = line
		e.HintText = fmt.Sprintf(`fix the TOML syntax at line %d, column %d: strings need quotes (task = "…"), stages are tables like [stages.plan]`, line, col)
	}
	return e
}

// decodeError turns go-toml's decoding errors into an *Error at the line and key:
// an unknown key (with the closest known one), a value of the wrong type.
func decodeError(file string, data []byte, err error) *Error {
	var strict *toml.StrictMissingError
	if errors.As(err, &strict) && len(strict.Errors) > 0 {
		de := strict.Errors[0]
		line, _ := de.Position()
		key := de.Key()
		e := &Error{File: file, Line: line, Field: strings.Join(key, "."), Msg: "unknown key", Err: err}
		switch {
		case len(key) == 1:
			e.HintText = "the top-level keys are description and jobs; stages go in [stages.NAME] tables"
		case len(key) == 3 && key[0] == "stages" && strings.Contains(lineText(data, line), "artifacts"):
			// go-toml names a key of an inline table in an array without the array
			e.Field = "stages." + key[1] + ".artifacts." + key[2]
			e.HintText = "an artifact has path and headings"
		case len(key) == 3 && key[0] == "stages":
			e.HintText = "the keys of a stage are " + strings.Join(stageKeys, ", ")
			if s := fielderr.Suggest(key[2], stageKeys); s != "" {
				e.HintText = "did you mean " + s + "?"
			}
		case len(key) == 4 && key[2] == "artifacts":
			e.HintText = "an artifact has path and headings"
		default:
			e.HintText = "stages are tables like [stages.plan]"
		}
		return e
	}
	var de *toml.DecodeError
	if errors.As(err, &de) {
		line, col := de.Position()
		e := &Error{File: file, Line: line, Field: strings.Join(de.Key(), "."), Err: err,
			Msg:      "invalid TOML: " + strings.TrimPrefix(de.Error(), "toml: "),
			HintText: fmt.Sprintf("fix the TOML at line %d, column %d", line, col)}
		if m := typeMismatch.FindStringSubmatch(de.Error()); m != nil {
			e.Msg = "want " + typeWords[strings.TrimPrefix(m[2], "*")] + ", got " + article(m[1]) + " " + m[1]
			e.HintText = "see docs/guide/tasks-templates-workflows.md, Workflows for the type of each key"
		}
		return e
	}
	return &Error{File: file, Msg: wrongType(err), Err: err,
		HintText: "see docs/guide/tasks-templates-workflows.md, Workflows for the type of each key"}
}

// typeMismatch is go-toml's message for a value of the wrong type.
var typeMismatch = lazyregexp.New(`cannot decode TOML (\w+) into (?:struct field \S+ of type )?(\S+)`)

// article is "a" or "an" before word.
func article(word string) string {
	if word != "" && strings.ContainsRune("aeiou", rune(word[0])) {
		return "an"
	}
	return "a"
}

// typeWords name Go types for people.
var typeWords = map[string]string{"int": "an integer", "string": "a string",
	"bool": "true or false", "float64": "a number", "[]string": `a list of strings, like ["a", "b"]`,
	"[]workflow.Artifact":           `a list of artifacts, like [{ path = "plan.md", headings = ["## Plan"] }]`,
	"map[string]*workflow.rawStage": "a table of stages", "workflow.rawStage": "a table", "workflow.rawFile": "a table"}

// wrongType words go-toml's type mismatch, which carries no position.
func wrongType(err error) string {
	msg := strings.TrimPrefix(err.Error(), "toml: ")
	return "a value of the wrong type: " + string(bytes.TrimSpace([]byte(msg)))
}

// lineText is the 1-based line n of data, "" when there is none.
func lineText(data []byte, n int) string {
	lines := bytes.Split(data, []byte("\n"))
	if n < 1 || n > len(lines) {
		return ""
	}
	return string(lines[n-1])
}
