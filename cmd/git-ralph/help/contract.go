package help

import (
	"encoding/json"
	"io"
	"reflect"
	"strings"
	"time"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
)

// ContractVersion is the version of the format of `git ralph help --json`. It changes
// only when something is renamed, removed or means something else; a new command, flag,
// key, code, event or field leaves it as it is (docs/reference/help-json.md).
const ContractVersion = 1

// Contract is what a program needs to drive git-ralph without reading its help text:
// every command and flag (from the command-line model), config key (from the specs the
// configuration is checked against), exit code and event type (from the encoder of the
// events).
type Contract struct {
	Version     int                   `json:"version"`
	Program     string                `json:"program"` // the version line: "git-ralph v1.2.0"
	GlobalFlags []Flag                `json:"global_flags"`
	Commands    []Command             `json:"commands"`
	ConfigKeys  []config.KeyInfo      `json:"config_keys"`
	ExitCodes   []ExitCode            `json:"exit_codes"`
	Events      []reporting.EventType `json:"events"`
}

// Command is one command of the contract, with its subcommands.
type Command struct {
	Name     string    `json:"name"`
	Path     string    `json:"path"` // the words after "git ralph": "schedule add"
	Aliases  []string  `json:"aliases,omitempty"`
	Help     string    `json:"help"`
	Detail   string    `json:"detail,omitempty"`
	Flags    []Flag    `json:"flags"`
	Args     []Arg     `json:"args"`
	Commands []Command `json:"commands,omitempty"`
}

// Flag is one flag of a command.
type Flag struct {
	Name        string   `json:"name"` // without the dashes
	Short       string   `json:"short,omitempty"`
	Negation    string   `json:"negation,omitempty"` // the flag that turns it off: "no-push"
	Type        string   `json:"type"`               // bool, counter, int, number, string, duration, path, list
	Placeholder string   `json:"placeholder,omitempty"`
	Default     string   `json:"default,omitempty"`
	Enum        []string `json:"enum,omitempty"`
	Env         []string `json:"env,omitempty"`
	Required    bool     `json:"required,omitempty"`
	Help        string   `json:"help"`
}

// Arg is one positional argument of a command.
type Arg struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Required bool     `json:"required"`
	Variadic bool     `json:"variadic,omitempty"`
	Enum     []string `json:"enum,omitempty"`
	Help     string   `json:"help"`
}

// NewContract builds the contract of the command-line model app, of git-ralph at the
// version line program. Hidden commands and flags are left out.
func NewContract(app *kong.Application, program string) Contract {
	c := Contract{Version: ContractVersion, Program: program, GlobalFlags: contractFlags(app.Flags),
		Commands: []Command{}, ConfigKeys: config.Describe(), ExitCodes: ExitCodes, Events: reporting.EventTypes()}
	for _, child := range commandChildren(app.Node) {
		c.Commands = append(c.Commands, contractCommand(child, ""))
	}
	return c
}

// WriteContract writes the contract as indented JSON, with <, > and & as they are.
func WriteContract(w io.Writer, c Contract) error {
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(c)
}

// commandChildren are n's visible subcommands.
func commandChildren(n *kong.Node) []*kong.Node {
	var out []*kong.Node
	for _, child := range n.Children {
		if !child.Hidden && child.Type == kong.CommandNode {
			out = append(out, child)
		}
	}
	return out
}

func contractCommand(n *kong.Node, parent string) Command {
	path := strings.TrimSpace(parent + " " + n.Name)
	cmd := Command{Name: n.Name, Path: path, Aliases: n.Aliases, Help: n.Help, Detail: n.Detail,
		Flags: contractFlags(n.Flags), Args: []Arg{}}
	for _, p := range n.Positional {
		cmd.Args = append(cmd.Args, Arg{Name: p.Name, Type: valueType(p), Required: p.Required,
			Variadic: p.IsCumulative(), Enum: enum(p), Help: p.Help})
	}
	for _, child := range commandChildren(n) {
		cmd.Commands = append(cmd.Commands, contractCommand(child, path))
	}
	return cmd
}

func contractFlags(flags []*kong.Flag) []Flag {
	out := []Flag{}
	for _, f := range flags {
		if f.Hidden {
			continue
		}
		flag := Flag{Name: f.Name, Type: valueType(f.Value), Default: f.Default, Enum: enum(f.Value),
			Env: f.Envs, Required: f.Required, Help: f.Help}
		if f.Short != 0 {
			flag.Short = string(f.Short)
		}
		flag.Negation = completionFlagOf(f).Negation
		if !f.IsBool() && !f.IsCounter() {
			flag.Placeholder = f.FormatPlaceHolder()
		}
		out = append(out, flag)
	}
	return out
}

func enum(v *kong.Value) []string {
	if v.Enum == "" {
		return nil
	}
	return v.EnumSlice()
}

// valueType names what a flag or an argument takes.
func valueType(v *kong.Value) string {
	switch {
	case v.IsCounter():
		return "counter"
	case v.IsBool():
		return "bool"
	case v.Tag.Type == "path" || v.Tag.Type == "existingfile" || v.Tag.Type == "existingdir":
		return "path"
	}
	t := v.Target.Type()
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t == reflect.TypeFor[time.Duration]() {
		return "duration"
	}
	switch t.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "int"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		return "list"
	case reflect.Bool:
		return "bool"
	}
	return "string"
}
