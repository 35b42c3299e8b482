package agentcli

import "slices"

// Override is a user's change to a preset, from the config's table for it, agents.NAME:
//
//	[agents.claude]
//	program = "/opt/claude/bin/claude"                        # Program
//	args = ["-p", "--output-format", "stream-json", "--verbose"] # Args, ReplaceArgs
//	extra_args = ["--model", "opus"]                          # ExtraArgs
type Override struct {
	Program     string   // another executable or a wrapper; "" keeps the preset's
	Args        []string // the arguments that replace the preset's, when ReplaceArgs
	ReplaceArgs bool     // true when the config set args at all, even to an empty list
	ExtraArgs   []string // appended after the (possibly replaced) arguments
}

// With is p changed by o. The prompt channel and the output format stay the preset's:
// replaced arguments must still produce the output that format reads (or plain text,
// which every format falls back to), and a File preset's must still contain PromptFile
// (see Check).
func (p Preset) With(o Override) Preset {
	p = p.clone()
	if o.Program != "" {
		p.Program = o.Program
	}
	if o.ReplaceArgs {
		p.Args = slices.Clone(o.Args)
	}
	p.Args = append(p.Args, o.ExtraArgs...)
	return p
}
