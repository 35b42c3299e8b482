package config

import (
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/fielderr"
	"github.com/pelletier/go-toml/v2"
)

// Error is a configuration problem: where it is (a file and line, an environment
// variable or a flag), which field, what is wrong, and how to fix it.
//
// Error() reads like ".ralph/config.toml:12: max_iterations: must be at least 1, got 0",
// "env RALPH_MAX_ITERATIONS: want an integer, got \"lots\"" or "--timeout: …"; the CLI
// prints Hint() on its own line.
type Error struct {
	Kind Kind // where the bad value came from: FromUser, FromRepo, FromEnv or FromFlag
	// File, Line, Field (dotted key, variable name or flag name), Msg, HintText and the
	// cause Err, with Hint and Unwrap: as the workflows' and templates' errors have them
	fieldError
}

// fieldError is fielderr.Error under another name, so that Error can embed it: embedded
// as it is, the field would be named Error, the name of Error's own method.
type fieldError = fielderr.Error

// wholeFileError is a problem of the file, not of one of its keys: it can't be read, or
// is not TOML.
func wholeFileError(kind Kind, file, msg, hint string, cause error) *Error {
	return &Error{Kind: kind, fieldError: fieldError{File: file, Msg: msg, HintText: hint, Err: cause}}
}

// Error formats the problem as "FILE:LINE: FIELD: MSG", "env VAR: MSG" or "--flag: MSG".
func (e *Error) Error() string {
	if e.Kind != FromEnv || e.Field == "" {
		return e.fieldError.Error()
	}
	env := e.fieldError
	env.Field = "env " + env.Field
	return env.Error()
}

// problem is a value's fault before we know where the value came from.
type problem struct{ msg, hint string }

func newProblem(hint, format string, args ...any) *problem {
	return &problem{msg: fmt.Sprintf(format, args...), hint: hint}
}

// at places p at origin o, naming field (for file values) or the variable or flag.
func (p *problem) at(o Origin, field string) *Error {
	e := &Error{Kind: o.Kind, fieldError: fieldError{File: o.File, Line: o.Line, Field: field, Msg: p.msg, HintText: p.hint}}
	if o.Kind == FromEnv || o.Kind == FromFlag {
		e.Field = o.Name
	}
	return e
}

// tomlError turns a go-toml syntax error into an *Error at its line.
func tomlError(file string, kind Kind, err error) *Error {
	if errors.Is(err, ErrTooManyDefinitions) {
		return wholeFileError(kind, file, "refusing to read the file: "+err.Error(),
			"a config needs a few dozen keys; remove the generated ones", err)
	}
	e := wholeFileError(kind, file, "invalid TOML: "+strings.TrimPrefix(err.Error(), "toml: "), "", err)
	col := 0
	var de *toml.DecodeError
	if errors.As(err, &de) {
		e.Line, col = de.Position()
		e.Field = fieldName(de.Key())
	}
	switch {
	case strings.Contains(e.Msg, "already"):
		e.HintText = "each key and each table may be defined only once in a file; merge them or remove one"
	case e.Line > 0:
		e.HintText = fmt.Sprintf(`fix the TOML syntax at line %d, column %d: strings need quotes (key = "value"), tables look like [modes.plan]`, e.Line, col)
	default:
		e.HintText = `fix the TOML syntax: strings need quotes (key = "value"), tables look like [modes.plan]`
	}
	return e
}

// unknownKey reports a key or table that is not in the schema, suggesting the closest
// valid name.
// A [table] header is reported as an unknown table with its whole name.
func unknownKey(o Origin, path []string, header bool, full []string, valid []string) *Error {
	what := "unknown key"
	if header {
		what = "unknown table [" + fieldName(full) + "]"
	}
	hint := "valid keys here: " + strings.Join(valid, ", ")
	if s := suggest(path[len(path)-1], valid); s != "" {
		hint = "did you mean " + s + "?"
	}
	return newProblem(hint, "%s", what).at(o, fieldName(path))
}

// unknownTable reports a top-level [table] header that is not in the schema.
func unknownTable(o Origin, path []string) *Error {
	hint := "the tables are [modes.NAME], [agents.NAME] and [hooks]; other keys go at the top, before any table"
	if s := suggest(path[0], tableNames); s != "" {
		hint = "did you mean [" + fieldName(append([]string{s}, path[1:]...)) + "]?"
	}
	return newProblem(hint, "unknown table [%s]", fieldName(path)).at(o, fieldName(path[:1]))
}

// aliases are names people write by analogy with the flags.
var aliases = map[string]string{
	"max":     "max_iterations",
	"timeout": "iteration_timeout",
	"verbose": "show_agent_output",
}

// suggest returns the valid name closest to name, or "" when none is close enough: an
// alias, else the nearest by edit distance, else a name that a shortened one begins.
func suggest(name string, valid []string) string {
	norm := strings.ToLower(strings.ReplaceAll(name, "-", "_"))
	if a, ok := aliases[norm]; ok && contains(valid, a) {
		return a
	}
	if s := fielderr.Suggest(name, valid); s != "" {
		return s
	}
	return longestSharedPrefix(norm, valid)
}

// longestSharedPrefix returns the one valid name that shares the longest prefix, of at
// least 4 bytes, with a shortened name ("max_iters" → "max_iterations"), or "".
func longestSharedPrefix(name string, valid []string) string {
	best, bestLen, unique := "", 0, false
	for _, v := range valid {
		n := 0
		for n < len(name) && n < len(v) && name[n] == v[n] {
			n++
		}
		switch {
		case n > bestLen:
			best, bestLen, unique = v, n, true
		case n == bestLen:
			unique = false
		}
	}
	if bestLen < 4 || !unique {
		return ""
	}
	return best
}

func contains(list []string, s string) bool {
	for _, v := range list {
		if v == s {
			return true
		}
	}
	return false
}

// fieldName joins a key path with dots, quoting parts that are not bare TOML keys.
func fieldName(path []string) string {
	parts := make([]string, len(path))
	for i, p := range path {
		parts[i] = p
		if !bareKey(p) {
			parts[i] = strconv.Quote(p)
		}
	}
	return strings.Join(parts, ".")
}

func bareKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}
