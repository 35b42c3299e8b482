package help

import (
	"strconv"
	"strings"
)

// fishScript is the data of the fish template.
type fishScript struct {
	Version     string
	Subcommands []scriptCase
	ValueFlags  string // the switch patterns of the flags that take a value
	Commands    []fishCommand
}

// fishCommand is the block of completion rules for one command.
type fishCommand struct {
	Title string
	Rules []string // the arguments of one `complete` each
}

// fishScriptOf builds the fish template's data. Switch keys are "PATH:WORD".
func fishScriptOf(root *completionCommand, version string) fishScript {
	script := fishScript{Version: "git-ralph " + version}
	var valueFlags []string
	for _, cmd := range root.all() {
		for _, sub := range cmd.Commands {
			script.Subcommands = append(script.Subcommands, scriptCase{
				Pattern: fishPattern(cmd.Path, sub.names()...), Value: fishQuote(sub.Name)})
		}
		for _, f := range cmd.Flags {
			if f.Value != nil {
				valueFlags = append(valueFlags, fishPattern(cmd.Path, f.spellings()...))
			}
		}
		script.Commands = append(script.Commands, fishCommand{Title: cmd.title(), Rules: fishRules(cmd)})
	}
	script.ValueFlags = strings.Join(valueFlags, " ")
	return script
}

// fishPattern matches "path:key" for any of keys.
func fishPattern(path string, keys ...string) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = fishQuote(path + ":" + k)
	}
	return strings.Join(quoted, " ")
}

// fishRules are cmd's completion rules: its subcommands, flags and arguments. A command
// with no file argument completes no file names.
func fishRules(cmd *completionCommand) []string {
	at := "-n " + fishQuote(strings.TrimSpace("__git_ralph_at "+cmd.Path))
	var rules []string
	files := false
	for _, sub := range cmd.Commands {
		rules = append(rules, at+" -f -a "+fishQuote(sub.Name)+" -d "+fishQuote(sub.Help))
	}
	for _, f := range cmd.Flags {
		rules = append(rules, fishFlagRules(at, f)...)
	}
	for i, arg := range cmd.Args {
		index := strconv.Itoa(i)
		if arg.Variadic {
			index += "+"
		}
		cond := "-n " + fishQuote(strings.TrimSpace("__git_ralph_arg "+index+" "+cmd.Path))
		switch {
		case arg.Values.Files:
			files = true
			rules = append(rules, cond+" -F")
		case len(arg.Values.Words) > 0 || arg.Values.Modes:
			rules = append(rules, cond+" -f -a "+fishWords(arg.Values, "")+" -d "+fishQuote(arg.Help))
		}
	}
	if !files {
		rules = append(rules, at+" -f")
	}
	return rules
}

// fishFlagRules describe a flag, its short form, its value, and its negation.
func fishFlagRules(at string, f completionFlag) []string {
	rule := at + " -l " + fishQuote(f.Long)
	if f.Short != "" {
		rule += " -s " + fishQuote(f.Short)
	}
	if v := f.Value; v != nil {
		switch {
		case v.Files:
			rule += " -r -F"
		case len(v.Words) > 0 || v.Modes:
			rule += " -x -a " + fishWords(*v, f.Long)
		default:
			rule += " -x"
		}
	}
	rules := []string{rule + " -d " + fishQuote(f.Help)}
	if f.Negation != "" {
		rules = append(rules, at+" -l "+fishQuote(f.Negation)+" -d "+fishQuote("Turn off --"+f.Long))
	}
	return rules
}

// fishWords is the -a argument of known values: a word list, or the modes function. A
// flag's values are described by the flag's name (one word: -a splits on spaces), rather
// than by its whole help repeated beside each value.
func fishWords(v completionValues, describe string) string {
	if v.Modes {
		return "'(__git_ralph_modes)'"
	}
	words := make([]string, len(v.Words))
	for i, w := range v.Words {
		words[i] = w
		if describe != "" {
			words[i] += `\t` + describe
		}
	}
	return fishQuote(strings.Join(words, " "))
}

// fishQuote quotes s for fish: inside single quotes only \ and ' are special.
func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}
