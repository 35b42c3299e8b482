package fielderr

import (
	"strconv"
	"strings"
)

// Error is a bad value in a file: where it is, which field, what is wrong and how to fix
// it. Error() reads like ".ralph/workflows/ship.toml:7: stages.code.depends_on: unknown
// stage \"plna\""; the command prints Hint() on a line of its own, as git prints advice.
type Error struct {
	File     string // display path (".ralph/config.toml"); "" when the value is not a file's
	Line     int    // 1-based line in File; 0 when unknown
	Field    string // dotted key ("stages.plan.gate"); "" when the problem is the whole file's
	Msg      string // what is wrong
	HintText string // how to fix it, returned by Hint
	Err      error  // the underlying cause (a read error), returned by Unwrap
}

// Error formats the problem as "FILE:LINE: FIELD: MSG", leaving out what is not known.
func (e *Error) Error() string {
	var b strings.Builder
	if e.File != "" {
		b.WriteString(e.File)
		if e.Line > 0 {
			b.WriteString(":" + strconv.Itoa(e.Line))
		}
		b.WriteString(": ")
	}
	if e.Field != "" {
		b.WriteString(e.Field + ": ")
	}
	b.WriteString(e.Msg)
	return b.String()
}

// Hint says how to fix the problem, in one line, without a "hint:" prefix.
func (e *Error) Hint() string { return e.HintText }

// Unwrap returns the underlying cause, such as a permission error while reading the file.
func (e *Error) Unwrap() error { return e.Err }
