package launch

import (
	"fmt"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
)

// ProtectFlags are the loop's protected paths given on the command line: added to those
// of the config files, never replacing them (see docs/guide/spend-and-safety.md).
type ProtectFlags struct {
	Protect []string `sep:"none" help:"Reject (roll back) an iteration that changes a path matching GLOB (** for any depth, e.g. tests/acceptance/**); repeatable, added to the config's protect list." placeholder:"GLOB"`
}

// ConfigFlags are the --protect flags as the config package takes them, one each.
func (p ProtectFlags) ConfigFlags() []config.Flag {
	var fs Flags
	for _, g := range p.Protect {
		fs.Add(true, "protect", "--protect", g)
	}
	return fs
}

// Flags are the flags a command was given, as the config package takes them.
type Flags []config.Flag

// Add adds the flag name (the setting key) with its value raw when it was given.
func (fs *Flags) Add(given bool, key, name, raw string) {
	if given {
		*fs = append(*fs, config.Flag{Key: key, Name: name, Raw: raw})
	}
}

// FlagText is a flag's value as text, "" when it was not given (nil).
func FlagText[T int | bool | time.Duration](v *T) string {
	if v == nil {
		return ""
	}
	return fmt.Sprint(*v)
}
