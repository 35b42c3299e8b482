package fielderr

import (
	"errors"
	"io/fs"
	"strings"
	"testing"
)

func TestErrorReadsAsFileLineFieldMessage(t *testing.T) {
	tests := []struct {
		name string
		e    Error
		want string
	}{
		{"all of it", Error{File: ".ralph/workflows/ship.toml", Line: 7, Field: "stages.code.depends_on", Msg: `unknown stage "plna"`},
			`.ralph/workflows/ship.toml:7: stages.code.depends_on: unknown stage "plna"`},
		{"no line", Error{File: ".ralph/workflows/ship.toml", Field: "stages.code.gate", Msg: "bad"},
			".ralph/workflows/ship.toml: stages.code.gate: bad"},
		{"no field", Error{File: "tdd/template.toml", Line: 3, Msg: "invalid TOML"}, "tdd/template.toml:3: invalid TOML"},
		{"the whole file", Error{File: ".ralph/config.toml", Msg: "can't read the file"}, ".ralph/config.toml: can't read the file"},
		{"no file", Error{Field: "--max", Msg: "must be at least 1"}, "--max: must be at least 1"},
		{"a line without a file is not shown", Error{Line: 4, Msg: "bad"}, "bad"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := tt.e.Error(); got != tt.want {
				t.Errorf("Error() = %q, want %q", got, tt.want)
			}
		})
	}
}

// The hint is what the command prints after "hint: ", and it is not part of the message.
func TestHintIsApart(t *testing.T) {
	var err error = &Error{File: "f.toml", Line: 2, Field: "k", Msg: "unknown key", HintText: "did you mean key?"}
	var h interface{ Hint() string }
	if !errors.As(err, &h) || h.Hint() != "did you mean key?" {
		t.Errorf("Hint of %v = %v, want the hint text", err, h)
	}
	if strings.Contains(err.Error(), "did you mean") {
		t.Errorf("Error() = %q carries the hint", err)
	}
	if got := (&Error{Msg: "bad"}).Hint(); got != "" {
		t.Errorf("Hint() without one = %q, want \"\"", got)
	}
}

func TestUnwrapGivesTheCause(t *testing.T) {
	var err error = &Error{File: "f.toml", Msg: "can't read the file", Err: fs.ErrPermission}
	if !errors.Is(err, fs.ErrPermission) {
		t.Errorf("errors.Is(%v, fs.ErrPermission) = false", err)
	}
	if errors.Unwrap(&Error{Msg: "bad"}) != nil {
		t.Error("an Error without a cause unwraps to something")
	}
}
