package help

import (
	"strings"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// completionCommand is a command as the completion scripts see it: the words that select
// it, and what may follow them.
type completionCommand struct {
	Path     string // the words after "git ralph" that select it, space-separated; "" for git ralph itself
	Name     string
	Help     string
	Aliases  []string
	Commands []*completionCommand // visible subcommands
	Flags    []completionFlag     // its own and its parents': kong takes a parent's flags after a subcommand
	Args     []completionArg
}

// completionFlag is one flag of a command.
type completionFlag struct {
	Long     string // without the dashes
	Short    string // one letter, or ""
	Negation string // the long name that turns a negatable flag off, e.g. "no-push"
	Help     string
	Value    *completionValues // nil for a flag that takes no value
}

// completionArg is one positional argument of a command.
type completionArg struct {
	Name     string
	Help     string
	Optional bool
	Variadic bool
	Values   completionValues
}

// completionValues says what a flag's value or an argument may be.
type completionValues struct {
	Placeholder string
	Words       []string // the complete list of known values, if there is one
	Files       bool     // a path: the shell completes file names
	Modes       bool     // a mode: plan, build, and PROMPT_<mode>.md at the repository's top level
}

// completionModel turns kong's model into the tree the scripts are generated from,
// leaving out hidden commands and flags.
func completionModel(app *kong.Application) *completionCommand {
	return completionNode(app.Node, "", nil)
}

// completionNode converts one kong node; inherited are its parents' flags.
func completionNode(n *kong.Node, path string, inherited []completionFlag) *completionCommand {
	cmd := &completionCommand{Path: path, Name: n.Name, Help: firstSentence(n.Help), Aliases: n.Aliases}
	cmd.Flags = append(cmd.Flags, inherited...)
	for _, f := range n.Flags {
		if !f.Hidden {
			cmd.Flags = append(cmd.Flags, completionFlagOf(f))
		}
	}
	for _, p := range n.Positional {
		cmd.Args = append(cmd.Args, completionArg{
			Name: p.Name, Help: firstSentence(p.Help), Optional: !p.Required,
			Variadic: p.IsCumulative(), Values: valuesOf(p, ""),
		})
	}
	for _, child := range n.Children {
		if child.Hidden || child.Type != kong.CommandNode {
			continue
		}
		childPath := strings.TrimSpace(path + " " + child.Name)
		cmd.Commands = append(cmd.Commands, completionNode(child, childPath, cmd.Flags))
	}
	return cmd
}

// completionFlagOf converts one flag; counters and booleans take no value.
func completionFlagOf(f *kong.Flag) completionFlag {
	flag := completionFlag{Long: f.Name, Help: firstSentence(f.Help)}
	if f.Short != 0 {
		flag.Short = string(f.Short)
	}
	switch neg := f.Tag.Negatable; neg {
	case "":
	case "_": // kong's mark for the default negation, --no-<flag>
		flag.Negation = "no-" + f.Name
	default:
		flag.Negation = neg
	}
	if !f.IsBool() && !f.IsCounter() {
		v := valuesOf(f.Value, f.FormatPlaceHolder())
		flag.Value = &v
	}
	return flag
}

// valuesOf finds what is known about a value's possible words: a kong enum, a path type,
// the names this program defines (agent presets, modes), or literal words in an
// argument's name such as "N|initial".
func valuesOf(v *kong.Value, placeholder string) completionValues {
	values := completionValues{Placeholder: placeholder}
	if values.Placeholder == "" {
		values.Placeholder = v.Name
	}
	switch {
	case v.Enum != "":
		values.Words = v.EnumSlice()
	case v.Tag.Type == "path" || v.Tag.Type == "existingfile" || v.Tag.Type == "existingdir":
		values.Files = true
	case v.Flag != nil && (v.Name == "agent" || v.Name == "judge"): // a judge may also be a command
		values.Words = agentcli.Names()
	case v.Flag != nil && v.Name == "feedback":
		values.Words = []string{"last", "all"}
	case v.Flag != nil && v.Name == "mode":
		values.Modes = true
	case v.Flag == nil:
		values.Words = literalWords(v.Name)
	}
	return values
}

// literalWords are the lower-case alternatives in a name like "N|initial": the words a
// user types as they are, unlike a placeholder such as N.
func literalWords(name string) []string {
	if !strings.Contains(name, "|") {
		return nil
	}
	var words []string
	for _, part := range strings.Split(name, "|") {
		if part != "" && part == strings.ToLower(part) {
			words = append(words, part)
		}
	}
	return words
}

// firstSentence shortens help text to what fits beside a completion candidate.
func firstSentence(help string) string {
	help = strings.Join(strings.Fields(help), " ")
	for from := 0; ; {
		i := strings.Index(help[from:], ". ")
		if i < 0 {
			break
		}
		end := from + i
		if !strings.HasSuffix(help[:end], "e.g") && !strings.HasSuffix(help[:end], "i.e") {
			help = help[:end]
			break
		}
		from = end + 2
	}
	return strings.TrimSuffix(help, ".")
}

// all lists cmd and every command under it, parents first.
func (cmd *completionCommand) all() []*completionCommand {
	out := []*completionCommand{cmd}
	for _, child := range cmd.Commands {
		out = append(out, child.all()...)
	}
	return out
}
