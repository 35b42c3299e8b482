package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rogpeppe/go-internal/testscript"
)

// jsonl FILE|stdout FIELD [VALUE...]: every line of FILE is one JSON object, and FIELD of the
// lines, in order, is exactly VALUE... when given (a line without FIELD is skipped). A VALUE of
// the form "x*" stands for one or more lines of x in a row.
func cmdJSONL(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: jsonl FILE FIELD [VALUE...]")
	}
	data := []byte(ts.ReadFile(args[0])) // "stdout" and "stderr" are the last command's
	var got []string
	for i, line := range bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n")) {
		var obj map[string]any
		if err := json.Unmarshal(line, &obj); err != nil {
			ts.Fatalf("%s:%d is not one JSON object (%v): %q", args[0], i+1, err, line)
		}
		if v, ok := obj[args[1]]; ok {
			got = append(got, fmt.Sprint(v))
		}
	}
	if len(args) > 2 && !matchSequence(got, args[2:]) {
		ts.Fatalf("%s: %s of the lines is\n  %s\nwant\n  %s", args[0], args[1], strings.Join(got, " "), strings.Join(args[2:], " "))
	}
}

// matchSequence matches values against patterns, where "x*" matches one or more x.
func matchSequence(values, patterns []string) bool {
	if len(patterns) == 0 {
		return len(values) == 0
	}
	p := patterns[0]
	if rep, ok := strings.CutSuffix(p, "*"); ok {
		for i := 0; i < len(values) && values[i] == rep; i++ {
			if matchSequence(values[i+1:], patterns[1:]) {
				return true
			}
		}
		return false
	}
	return len(values) > 0 && values[0] == p && matchSequence(values[1:], patterns[1:])
}
