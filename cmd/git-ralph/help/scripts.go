package help

import (
	"embed"
	"fmt"
	"strconv"
	"strings"
	"text/template"

	"github.com/alecthomas/kong"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// completionTemplates hold each shell's script; the tables in them come from the model.
//
//go:embed templates/completion.bash templates/completion.zsh templates/completion.fish
var completionTemplates embed.FS

// Completion is the completion script of shell (bash, zsh or fish) for the command-line
// model app, of git-ralph at version. Hidden commands and flags are left out.
func Completion(shell, version string, app *kong.Application) (string, error) {
	return completionScript(shell, version, completionModel(app))
}

// completionScript renders the completion script of shell for the command tree root.
func completionScript(shell, version string, root *completionCommand) (string, error) {
	var data any
	switch shell {
	case "bash":
		data = bashScriptOf(root, version)
	case "zsh":
		data = zshScriptOf(root, version)
	case "fish":
		data = fishScriptOf(root, version)
	default:
		return "", hints.Wrap(fmt.Errorf("no completion for the shell %q", shell), "the shells are bash, zsh and fish")
	}
	name := "completion." + shell
	tmpl, err := template.New(name).Funcs(template.FuncMap{"shq": display.ShellQuote}).
		ParseFS(completionTemplates, "templates/"+name)
	if err != nil {
		return "", fmt.Errorf("reading the %s completion template: %w", shell, err)
	}
	var b strings.Builder
	if err := tmpl.Execute(&b, data); err != nil {
		return "", fmt.Errorf("writing the %s completion script: %w", shell, err)
	}
	return b.String(), nil
}

// scriptCase is one arm of a generated case/switch: the keys it matches, rendered as a
// pattern, and what it yields.
type scriptCase struct {
	Pattern string
	Value   string
	Modes   bool // yields the modes, found when completing
}

// bashScript is the data of the bash template.
type bashScript struct {
	Version                        string
	Subcommands, ValueFlags, Words []scriptCase
}

// bashScriptOf builds the lookup tables of the bash script. Keys are "PATH:WORD".
func bashScriptOf(root *completionCommand, version string) bashScript {
	script := bashScript{Version: "git-ralph " + version}
	for _, cmd := range root.all() {
		for _, sub := range cmd.Commands {
			script.Subcommands = append(script.Subcommands, scriptCase{
				Pattern: bashPattern(cmd.Path, sub.names()...), Value: sub.Name})
		}
		if len(cmd.Commands) > 0 {
			script.Words = append(script.Words, scriptCase{Pattern: bashPattern(cmd.Path, "commands"), Value: cmd.subcommandNames()})
		}
		script.Words = append(script.Words, scriptCase{Pattern: bashPattern(cmd.Path, "flags"), Value: cmd.flagNames()})
		script.addValues(cmd)
	}
	return script
}

// addValues adds what cmd's flags and arguments take.
func (s *bashScript) addValues(cmd *completionCommand) {
	for _, f := range cmd.Flags {
		if f.Value == nil {
			continue
		}
		pattern := bashPattern(cmd.Path, f.spellings()...)
		s.ValueFlags = append(s.ValueFlags, scriptCase{Pattern: pattern})
		if len(f.Value.Words) > 0 || f.Value.Modes {
			s.Words = append(s.Words, scriptCase{Pattern: pattern, Value: strings.Join(f.Value.Words, " "), Modes: f.Value.Modes})
		}
	}
	for i, arg := range cmd.Args {
		// every argument gets an arm, so that one with no known values does not fall
		// into a variadic argument's pattern
		pattern := bashPattern(cmd.Path, "@"+strconv.Itoa(i))
		if arg.Variadic { // this and every later argument
			pattern = display.ShellQuote(cmd.Path+":@") + "*"
		}
		s.Words = append(s.Words, scriptCase{Pattern: pattern, Value: strings.Join(arg.Values.Words, " "), Modes: arg.Values.Modes})
	}
}

// bashPattern matches "path:key" for any of keys.
func bashPattern(path string, keys ...string) string {
	quoted := make([]string, len(keys))
	for i, k := range keys {
		quoted[i] = display.ShellQuote(path + ":" + k)
	}
	return strings.Join(quoted, "|")
}

// names are the words that select cmd: its name and aliases.
func (cmd *completionCommand) names() []string {
	return append([]string{cmd.Name}, cmd.Aliases...)
}

// subcommandNames lists cmd's subcommands for a shell word list.
func (cmd *completionCommand) subcommandNames() string {
	names := make([]string, len(cmd.Commands))
	for i, sub := range cmd.Commands {
		names[i] = sub.Name
	}
	return strings.Join(names, " ")
}

// flagNames lists the long flags cmd takes, negations included.
func (cmd *completionCommand) flagNames() string {
	var names []string
	for _, f := range cmd.Flags {
		names = append(names, "--"+f.Long)
		if f.Negation != "" {
			names = append(names, "--"+f.Negation)
		}
	}
	return strings.Join(names, " ")
}

// spellings are the ways to write a flag that takes a value: --long and -s.
func (f completionFlag) spellings() []string {
	out := []string{"--" + f.Long}
	if f.Short != "" {
		out = append(out, "-"+f.Short)
	}
	return out
}
