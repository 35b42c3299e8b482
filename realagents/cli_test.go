package realagents

import (
	"net/http"
	"sort"
	"testing"
)

// agentCLI is what the tests need to know of one agent CLI: how to point it at its
// vendor's mock, and how to read its own totals. Each vendor's file registers its CLIs
// with register (claude twice: with an API key and as a subscriber).
type agentCLI struct {
	name    string // the test's name: the preset, or preset-account
	preset  string // git ralph loop --agent PRESET; its line in versions.txt
	account string // "" or a second way to run the same CLI ("subscriber")

	// api returns the handler of the vendor's API mock, which takes model answers from m.
	api func(m *mock) http.Handler
	// configure writes into home whatever the CLI needs to talk to the mock at baseURL
	// (settings files) and returns the environment it needs (NAME=value), never touching
	// the user's own HOME.
	configure func(t *testing.T, home, baseURL string) []string
	// totals reads the CLI's own usage totals from what it printed (its output log), as a
	// person checking the CLI's final summary would — not with git-ralph's reader.
	totals func(output []byte) (tokens usage, costUSD float64, ok bool)
	// says holds, per kind of failure, words of the CLI's own message about it, which
	// git-ralph must pass on to the user.
	says map[errorKind]string
	// judgeRefuses are words of the CLI's own refusal of a write by a --judge of its
	// preset, which runs in the CLI's read-only mode: the judge's next model request
	// carries them back to the model (judge-writes). "" for a CLI whose preset judge
	// runs with the agent's own permissions, which git-ralph's check afterwards catches.
	judgeRefuses string
	// judgeCmd is the CLI as a --judge command a user could write: its permissions
	// skipped, its output plain text. git-ralph runs a command as written, so this judge
	// can write (judge-cmd-writes).
	judgeCmd string
	// skip names scenarios this CLI cannot play, with the reason (shown in the test log).
	skip map[string]string
	// more are scenarios of this CLI's own, played after the common ones: what it does
	// differently (opencode waits out a short limit itself; a longer one is git-ralph's).
	more []scenario
}

var clis = map[string]agentCLI{}

func register(c agentCLI) {
	if c.name == "" {
		c.name = c.preset
	}
	if _, dup := clis[c.name]; dup {
		panic("realagents: two CLIs named " + c.name)
	}
	clis[c.name] = c
}

// sortedCLIs returns the registered CLIs by name, so that runs are in a stable order.
func sortedCLIs() []agentCLI {
	out := make([]agentCLI, 0, len(clis))
	for _, c := range clis {
		out = append(out, c)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out
}
