package kongmodel

import (
	"reflect"
	"strings"
	"unicode"

	"github.com/alecthomas/kong"
)

// OneCommand is the struct type cli (a kong model) with command as its only command:
// its other fields (the global flags) kept as they are.
func OneCommand(cli reflect.Type, command reflect.StructField) reflect.Type {
	var fields []reflect.StructField
	for i := range cli.NumField() {
		f := cli.Field(i)
		if !IsCommand(f) || f.Name == command.Name {
			fields = append(fields, f)
		}
	}
	return reflect.StructOf(fields)
}

// IsCommand reports whether f is a command of the model (its cmd tag).
func IsCommand(f reflect.StructField) bool {
	_, ok := f.Tag.Lookup("cmd")
	return ok
}

// CommandNames are the names kong gives a command field: its name tag or its field name
// in kebab case (PrePush is pre-push), and its aliases.
func CommandNames(f reflect.StructField) []string {
	name := f.Tag.Get("name")
	if name == "" {
		name = kebabCase(f.Name)
	}
	names := []string{name}
	if aliases := f.Tag.Get("aliases"); aliases != "" {
		names = append(names, strings.Split(aliases, ",")...)
	}
	return names
}

// kebabCase is a Go name as kong names its command: a dash before each capital that
// follows a small letter or a digit, all in small letters.
func kebabCase(name string) string {
	var b strings.Builder
	var prev rune
	for _, r := range name {
		if unicode.IsUpper(r) && (unicode.IsLower(prev) || unicode.IsDigit(prev)) {
			b.WriteByte('-')
		}
		b.WriteRune(unicode.ToLower(r))
		prev = r
	}
	return b.String()
}

// kongPackage is the import path of kong's types.
var kongPackage = reflect.TypeFor[kong.Kong]().PkgPath()

// ReadsWholeModel reports whether kong may hand t, a command's type, or a type within
// it (a subcommand, a flag), the parser or part of its model: a method such as help's
// Run(*kong.Kong) or a hook with a parameter of one of kong's types. A mapper's
// Decode(*kong.DecodeContext) sees the tokens of its own flag only.
func ReadsWholeModel(t reflect.Type, seen map[reflect.Type]bool) bool {
	if seen[t] {
		return false
	}
	seen[t] = true
	for _, methods := range []reflect.Type{t, reflect.PointerTo(t)} {
		for i := range methods.NumMethod() {
			if m := methods.Method(i); m.Name != "Decode" && takesKong(m.Type) {
				return true
			}
		}
	}
	switch t.Kind() {
	case reflect.Pointer, reflect.Slice, reflect.Array, reflect.Map:
		return ReadsWholeModel(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if ReadsWholeModel(t.Field(i).Type, seen) {
				return true
			}
		}
	}
	return false
}

// takesKong reports whether a function has a parameter of one of kong's types.
func takesKong(fn reflect.Type) bool {
	for i := range fn.NumIn() {
		in := fn.In(i)
		for in.Kind() == reflect.Pointer {
			in = in.Elem()
		}
		if in.PkgPath() == kongPackage {
			return true
		}
	}
	return false
}
