package reporting

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"testing"
)

// TestEventTypesCoverEveryLoopEvent: each type of loop/events.go that is an Event has its
// sample in streamSamples, so a new event cannot be left out of `help --json`.
func TestEventTypesCoverEveryLoopEvent(t *testing.T) {
	fset := token.NewFileSet()
	file, err := parser.ParseFile(fset, filepath.Join("..", "..", "..", "loop", "events.go"), nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var sampled []string
	for _, e := range streamSamples {
		sampled = append(sampled, reflect.TypeOf(e).Name())
	}
	var found int
	for _, decl := range file.Decls {
		fn, ok := decl.(*ast.FuncDecl)
		if !ok || fn.Name.Name != "event" || fn.Recv == nil {
			continue
		}
		found++
		recv := fn.Recv.List[0].Type.(*ast.Ident).Name
		if !slices.Contains(sampled, recv) {
			t.Errorf("loop.%s is an event with no sample in streamSamples", recv)
		}
	}
	if found < 10 {
		t.Fatalf("found %d event types in loop/events.go: is it still where they are?", found)
	}
}

// TestEventTypesMatchTheDocs: docs/reference/events.md has a section for each event of the stream
// and for no other, and each event's fields are the ones Encode writes.
func TestEventTypesMatchTheDocs(t *testing.T) {
	doc, err := os.ReadFile(filepath.Join("..", "..", "..", "docs", "reference", "events.md"))
	if err != nil {
		t.Fatal(err)
	}
	var documented []string
	for _, m := range regexp.MustCompile("(?m)^## `([a-z_]+)`").FindAllStringSubmatch(string(doc), -1) {
		documented = append(documented, m[1])
	}
	var types []string
	for _, e := range EventTypes() {
		types = append(types, e.Type)
		if len(e.Fields) < 3 || e.Fields[0].Name != "event" || e.Fields[1] != (EventField{"time", "time", false}) {
			t.Errorf("%s: fields %v: want the common fields event, time, run first", e.Type, e.Fields)
		}
	}
	if !slices.Equal(types, documented) {
		t.Errorf("event types %v, docs/reference/events.md documents %v (in this order)", types, documented)
	}
}

// TestEventTypesFieldsAreEncodersFields: a field's name and whether it may be absent come
// from the JSON tags of what Encode writes.
func TestEventTypesFieldsAreEncodersFields(t *testing.T) {
	var finished EventType
	for _, e := range EventTypes() {
		if e.Type == "run_finished" {
			finished = e
		}
	}
	want := map[string]EventField{
		"exit_code":      {"exit_code", "int", false},
		"status":         {"status", "string", false},
		"reason":         {"reason", "string", true},
		"statistics":     {"statistics", "object", false},
		"spent_usd":      {"spent_usd", "number", false},
		"spent_uncosted": {"spent_uncosted", "int", true},
	}
	for _, f := range finished.Fields {
		if w, ok := want[f.Name]; ok {
			if f != w {
				t.Errorf("run_finished field %+v, want %+v", f, w)
			}
			delete(want, f.Name)
		}
	}
	for name := range want {
		t.Errorf("run_finished has no field %s", name)
	}
}
