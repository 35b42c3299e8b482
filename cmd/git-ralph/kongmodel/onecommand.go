package kongmodel

import (
	"reflect"
	"slices"
)

// Building kong's parser over the whole CLI costs 2–3 ms at every start, most of it
// kong interpolating ${vars} into the help, default and placeholder of every flag of
// every command; a script or the merge queue starting `git ralph merge NAME` pays it for
// one command. So the command package builds the parser over a model that holds only the command the
// first argument names, with the CLI's global flags (--version), and reads the command
// line with the whole parser wherever the whole model shows: no command first, a command
// that is handed the parser (help, completion and man print the whole CLI), and every
// error, whose message, hints and usage name other commands and flags (ExplainMissingValue
// looks the flag up in every command, kong suggests other commands). A one-command model
// has no --help either, so -h anywhere is an error that goes to the whole parser.
//
// The model is a struct type made with reflect.StructOf from the CLI's own fields, not a
// kong.DynamicCommand: kong then builds the command's node from the same field, tag and
// all, as it does in the whole model, and a command with subcommands only (schedule,
// workflow, hook), which DynamicCommand refuses for having no Run, works the same way.

// CommandField is the field of cli (a kong model) that args[0] names, if a parser of
// the model with that command only (OneCommand) reads args exactly as the whole model's
// does.
func CommandField(cli reflect.Type, args []string) (reflect.StructField, bool) {
	if len(args) == 0 || NegativeValueGiven(args) {
		return reflect.StructField{}, false
	}
	for i := range cli.NumField() {
		f := cli.Field(i)
		if IsCommand(f) && slices.Contains(CommandNames(f), args[0]) {
			return f, !ReadsWholeModel(f.Type, map[reflect.Type]bool{})
		}
	}
	return reflect.StructField{}, false
}
