package main

import (
	"reflect"
	"slices"

	"github.com/alecthomas/kong"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/kongmodel"
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
	model := reflect.New(kongmodel.OneCommand(reflect.TypeFor[CLI](), command))
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
		if kongmodel.IsCommand(f) && slices.Contains(kongmodel.CommandNames(f), args[0]) {
			return f, !kongmodel.ReadsWholeModel(f.Type, map[reflect.Type]bool{})
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
