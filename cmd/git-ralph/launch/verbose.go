package launch

import (
	"errors"
	"fmt"
	"strings"

	"github.com/alecthomas/kong"
)

// Verbose is --verbose: the agent's output streamed live, rendered for reading (the
// bare flag, a preset's JSON turned into text, tool calls and usage) or raw
// (--verbose=raw: as the agent prints it), or not (--verbose=false, which beats a
// file's show_agent_output = true). "" is not given: show_agent_output decides.
type Verbose string

const (
	VerboseRendered Verbose = "rendered"
	VerboseRaw      Verbose = "raw"
	VerboseOff      Verbose = "off"
)

// On reports whether the flag asks for the agent's output.
func (v Verbose) On() bool { return v == VerboseRendered || v == VerboseRaw }

// Decode reads --verbose (rendered), --verbose=raw, and the bool spellings git-ralph's
// other flags take (--verbose=false is off).
func (v *Verbose) Decode(ctx *kong.DecodeContext) error {
	if ctx.Scan.Peek().Type != kong.FlagValueToken {
		*v = VerboseRendered
		return nil
	}
	token := ctx.Scan.Pop()
	value, ok := token.Value.(string)
	if !ok {
		return fmt.Errorf("--verbose: expected raw, true or false, got %v", token.Value)
	}
	switch strings.ToLower(value) {
	case "raw":
		*v = VerboseRaw
	case "true", "1", "yes", "rendered":
		*v = VerboseRendered
	case "false", "0", "no", "off": // off: as --best-of spells it for its candidates
		*v = VerboseOff
	default:
		return fmt.Errorf("--verbose=%s: want --verbose (rendered for reading) or --verbose=raw (as the agent prints it)", value)
	}
	return nil
}

// IsBool lets --verbose stand alone, like a bool flag.
func (v *Verbose) IsBool() bool { return true }

// ExplainVerboseValue turns kong's "unexpected argument raw" after a bare --verbose (or -v)
// into what was meant: like a bool flag, --verbose takes its value after "=".
func ExplainVerboseValue(args []string, err error) error {
	for i, a := range args {
		if (a == "--verbose" || a == "-v") && i+1 < len(args) && args[i+1] == "raw" &&
			strings.Contains(err.Error(), "unexpected argument raw") {
			return errors.New("--verbose takes its value after '=': --verbose=raw")
		}
	}
	return err
}
