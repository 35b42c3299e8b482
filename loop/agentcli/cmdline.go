package agentcli

import "strings"

// CommandLine is the line git-ralph gives `sh -c` to start the agent: `exec` and the
// program and its arguments, each single-quoted so that no byte in them (space, quote,
// $, backslash, newline) means anything to the shell, with promptFile in place of
// PromptFile when the prompt goes by file. exec makes the agent the shell's own process,
// so its exit status and signals are the agent's; a program that is not found still
// makes the shell exit 127, which Read reports as Fatal. promptFile is ignored for a
// Stdin preset. Arguments cannot hold NUL bytes (no command line can).
func (p Preset) CommandLine(promptFile string) string {
	var b strings.Builder
	b.WriteString("exec")
	for _, a := range p.Argv(promptFile) {
		b.WriteByte(' ')
		b.WriteString(shellQuote(a))
	}
	return b.String()
}

// shellQuote puts s in single quotes, where sh takes every byte literally. A single
// quote in s ends the quoting, is written escaped, and the quoting starts again:
//
//	it's  →  'it'\''s'
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
