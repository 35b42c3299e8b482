package help

import (
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
)

// zshScript is the data of the zsh template: one function per command.
type zshScript struct {
	Version  string
	Commands []zshCommand
}

// zshCommand is one generated function, which completes a command's flags and arguments,
// or its flags and subcommands.
type zshCommand struct {
	Title       string // "git ralph hook"
	Func        string
	Specs       string // _arguments specs, one per line
	Subcommands []zshSubcommand
}

// zshSubcommand is a subcommand as its parent's function lists and dispatches it.
type zshSubcommand struct {
	Describe string // a _describe entry, "name:help"
	Pattern  string // the case pattern of its names
	Func     string
}

// zshScriptOf builds the zsh template's data.
func zshScriptOf(root *completionCommand, version string) zshScript {
	script := zshScript{Version: "git-ralph " + version}
	for _, cmd := range root.all() {
		z := zshCommand{Title: cmd.title(), Func: zshFunc(cmd), Specs: strings.Join(zshSpecs(cmd), " \\\n\t\t")}
		for _, sub := range cmd.Commands {
			quoted := make([]string, 0, 1+len(sub.Aliases))
			for _, name := range sub.names() {
				quoted = append(quoted, display.ShellQuote(name))
			}
			z.Subcommands = append(z.Subcommands, zshSubcommand{
				Describe: display.ShellQuote(strings.ReplaceAll(sub.Name, ":", `\:`) + ":" + sub.Help),
				Pattern:  strings.Join(quoted, "|"),
				Func:     zshFunc(sub),
			})
		}
		script.Commands = append(script.Commands, z)
	}
	return script
}

// title is how a user types cmd: "git ralph hook install".
func (cmd *completionCommand) title() string {
	return strings.TrimSpace("git ralph " + cmd.Path)
}

// zshFunc names cmd's completion function; git-ralph's own is _git-ralph, the name zsh's
// git completion looks for.
func zshFunc(cmd *completionCommand) string {
	if cmd.Path == "" {
		return "_git-ralph"
	}
	return "__git_ralph_cmd_" + strings.NewReplacer(" ", "_", "-", "_").Replace(cmd.Path)
}

// zshSpecs are the _arguments specs of cmd's flags and arguments.
func zshSpecs(cmd *completionCommand) []string {
	var specs []string
	for _, f := range cmd.Flags {
		specs = append(specs, zshFlagSpecs(f)...)
	}
	if len(cmd.Commands) > 0 {
		return specs
	}
	for _, arg := range cmd.Args {
		head := ":"
		if arg.Optional {
			head = "::"
		}
		if arg.Variadic {
			head = "*:"
		}
		specs = append(specs, display.ShellQuote(head+zshMessage(arg.Name)+":"+zshAction(arg.Values)))
	}
	return specs
}

// zshFlagSpecs are one flag's specs: "-s" and "--long" exclude each other, and so do a
// negatable flag and its negation.
func zshFlagSpecs(f completionFlag) []string {
	help := "[" + zshDescription(f.Help) + "]"
	value := ""
	long, short := "--"+f.Long, "-"+f.Short
	if f.Value != nil {
		value = ":" + zshMessage(strings.ToLower(f.Value.Placeholder)) + ":" + zshAction(*f.Value)
		long += "="
		short += "+"
	}
	switch {
	case f.Negation != "":
		both := "(--" + f.Long + " --" + f.Negation + ")"
		return []string{
			display.ShellQuote(both + long + help + value),
			display.ShellQuote(both + "--" + f.Negation + "[" + zshDescription("Turn off --"+f.Long) + "]"),
		}
	case f.Short != "":
		return []string{display.ShellQuote("(-"+f.Short+" --"+f.Long+")") + "{" + short + "," + long + "}" + display.ShellQuote(help+value)}
	default:
		return []string{display.ShellQuote(long + help + value)}
	}
}

// zshAction completes a value: its known words, the modes, files, or nothing.
func zshAction(v completionValues) string {
	switch {
	case len(v.Words) > 0:
		words := make([]string, len(v.Words))
		for i, w := range v.Words {
			words[i] = zshEscape(w, ` ():\`)
		}
		return "(" + strings.Join(words, " ") + ")"
	case v.Modes:
		return "__git_ralph_modes"
	case v.Files:
		return "_files"
	default:
		return " "
	}
}

// zshDescription escapes text for the brackets of an _arguments spec.
func zshDescription(text string) string { return zshEscape(text, `\[]`) }

// zshMessage escapes text for the message part of an _arguments spec.
func zshMessage(text string) string { return zshEscape(text, `\:`) }

// zshEscape puts a backslash before each of chars in text.
func zshEscape(text, chars string) string {
	var b strings.Builder
	for _, r := range text {
		if strings.ContainsRune(chars, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}
