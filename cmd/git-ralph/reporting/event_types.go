package reporting

import (
	"reflect"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/loop"
)

// EventType describes one event of the JSON stream for programs (`git ralph help
// --json`): its name and its top-level fields, read from the objects Encode makes.
type EventType struct {
	Type   string       `json:"type"`
	Fields []EventField `json:"fields"`
}

// EventField is one field of an event object.
type EventField struct {
	Name     string `json:"name"`
	Type     string `json:"type"`               // string, int, number, bool, time (an RFC 3339 string) or object
	Optional bool   `json:"optional,omitempty"` // left out when it has no value
}

// streamSamples holds one value of each loop event type, in the order of docs/reference/events.md.
// EventTypes encodes each: those that Encode leaves out of the stream (the agent being
// signalled, truncated output) describe nothing. A test checks that every loop event
// type has its sample here.
var streamSamples = []loop.Event{
	loop.RunStarted{}, loop.BaselineTaken{}, loop.IterationStarted{}, loop.Waiting{}, loop.Paused{}, loop.Resumed{},
	loop.ValidationFailed{}, loop.UntilFailed{}, loop.Judged{Judgement: loop.Judgement{Ran: true}},
	loop.Pushed{}, loop.IterationFinished{}, loop.Warning{}, loop.RunFinished{},
	loop.AgentStopping{}, loop.OutputTruncated{},
}

// EventTypes lists the events of `loop --json` and of the hooks' stdin.
func EventTypes() []EventType {
	enc := NewEventEncoder("")
	var out []EventType
	for _, e := range streamSamples {
		name, obj, ok := enc.Encode(e)
		if !ok {
			continue
		}
		out = append(out, EventType{Type: name, Fields: jsonFields(reflect.TypeOf(obj))})
	}
	return out
}

// jsonFields lists the fields encoding/json writes for struct type t, an embedded
// struct's in its place.
func jsonFields(t reflect.Type) []EventField {
	var out []EventField
	for i := range t.NumField() {
		f := t.Field(i)
		if f.Anonymous && f.Type.Kind() == reflect.Struct {
			out = append(out, jsonFields(f.Type)...)
			continue
		}
		tag := f.Tag.Get("json")
		name, opts, _ := strings.Cut(tag, ",")
		if !f.IsExported() || name == "-" {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out = append(out, EventField{Name: name, Type: jsonType(f.Type),
			Optional: strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")})
	}
	return out
}

// jsonType names how a Go type appears in JSON.
func jsonType(t reflect.Type) string {
	if t == reflect.TypeFor[time.Time]() {
		return "time"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "bool"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "array"
	case reflect.Pointer:
		return jsonType(t.Elem())
	}
	return "object"
}
