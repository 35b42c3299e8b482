package main

import (
	"reflect"
	"slices"
	"strings"
	"unicode"

	"github.com/alecthomas/kong"
)

// Building kong's parser over the whole CLI costs 2–3 ms at every start, most of it
// kong interpolating ${vars} into the help, default and placeholder of every flag of
// every command; a script or the merge queue starting `git ralph merge NAME` pays it for
// one command. So run builds the parser over a model that holds only the command the
// first argument names, with the CLI's global flags (--version), and reads the command
// line with the whole parser wherever the whole model shows: no command first, a command
// that is handed the parser (help, completion and man print the whole CLI), and every
// error, whose message, hints and usage name other commands and flags (explainMissingValue
// looks the flag up in every command, kong suggests other commands). A one-command model
// has no --help either, so -h anywhere is an error that goes to the whole parser.
//
// The model is a struct type made with reflect.StructOf from the CLI's own fields, not a
// kong.DynamicCommand: kong then builds the command's node from the same field, tag and
// all, as it does in the whole model, and a command with subcommands only (schedule,
// workflow, hook), which DynamicCommand refuses for having no Run, works the same way.

// parseArgs reads the command line with a one-command parser when it can and with the
// whole CLI's parser otherwise, and again with the whole one when the one-command parser
// fails, so that whatever the user sees of a parser is the whole one's.
func parseArgs(args []string, s Streams, exit func(int)) (*kong.Kong, *kong.Context, error) {
	if k := oneCommandParser(args, s, exit); k != nil {
		if kctx, err := k.Parse(args); err == nil {
			return k, kctx, nil
		}
	}
	return parseWhole(args, s, exit)
}

// oneCommandParser builds a parser over the command args[0] names and the global flags,
// or returns nil where the whole parser must read the command line.
func oneCommandParser(args []string, s Streams, exit func(int)) *kong.Kong {
	command, ok := oneCommandField(args)
	if !ok {
		return nil
	}
	model := reflect.New(oneCommandModel(command))
	k, err := kong.New(model.Interface(), append(parserOptions(s, exit), kong.NoDefaultHelp())...)
	if err != nil {
		return nil // the whole parser reports it
	}
	return k
}

// oneCommandField is the field of the CLI that args[0] names, if a one-command parser
// reads args exactly as the whole parser does.
func oneCommandField(args []string) (reflect.StructField, bool) {
	if len(args) == 0 || negativeValueGiven(args) {
		return reflect.StructField{}, false
	}
	cli := reflect.TypeFor[CLI]()
	for i := range cli.NumField() {
		f := cli.Field(i)
		if isCommand(f) && slices.Contains(commandNames(f), args[0]) {
			return f, !readsWholeModel(f.Type, map[reflect.Type]bool{})
		}
	}
	return reflect.StructField{}, false
}

// negativeValueGiven reports whether an argument before "--" looks like a negative
// value: joinNegativeValues rewrites "--max -1" by what the flags of every command take,
// which only the whole model knows (-f is inject's --file and logs' --follow).
// Otherwise it leaves the arguments as they are and the one-command parser needs it not.
func negativeValueGiven(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if negativeValue.MatchString(a) {
			return true
		}
	}
	return false
}

// oneCommandModel is the CLI's struct type with command as its only command.
func oneCommandModel(command reflect.StructField) reflect.Type {
	cli := reflect.TypeFor[CLI]()
	var fields []reflect.StructField
	for i := range cli.NumField() {
		f := cli.Field(i)
		if !isCommand(f) || f.Name == command.Name {
			fields = append(fields, f)
		}
	}
	return reflect.StructOf(fields)
}

func isCommand(f reflect.StructField) bool {
	_, ok := f.Tag.Lookup("cmd")
	return ok
}

// commandNames are the names kong gives a command field: its name tag or its field name
// in kebab case (PrePush is pre-push), and its aliases.
func commandNames(f reflect.StructField) []string {
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

// readsWholeModel reports whether kong may hand t, a command's type, or a type within
// it (a subcommand, a flag), the parser or part of its model: a method such as help's
// Run(*kong.Kong) or a hook with a parameter of one of kong's types. A mapper's
// Decode(*kong.DecodeContext) sees the tokens of its own flag only.
func readsWholeModel(t reflect.Type, seen map[reflect.Type]bool) bool {
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
		return readsWholeModel(t.Elem(), seen)
	case reflect.Struct:
		for i := range t.NumField() {
			if readsWholeModel(t.Field(i).Type, seen) {
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
