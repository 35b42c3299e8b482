package schedule

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
)

// PrintJSON prints the entries of `schedule list --json` as an array, [] for none, with commands as
// they are written (no \u003e for >).
func PrintJSON(w io.Writer, list []Entry) error {
	if list == nil {
		list = []Entry{}
	}
	enc := json.NewEncoder(w)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	return enc.Encode(list)
}

// PrintTable prints one entry a line; a line edited beyond reading shows its
// command instead of its repository and flags.
func PrintTable(w io.Writer, list []Entry) {
	if len(list) == 0 {
		fmt.Fprintln(w, "no git-ralph cron entries; add one with 'git ralph schedule add --cron SPEC'")
		return
	}
	fmt.Fprintf(w, "  %-6s  %-15s  %s\n", "ID", "SCHEDULE", "REPOSITORY  LOOP FLAGS")
	for _, e := range list {
		mark, what := " ", e.Repo+"  "+strings.Join(QuoteAll(e.Flags), " ")
		if e.Current {
			mark = "*"
		}
		if e.Repo == "" {
			what = e.Command
		}
		fmt.Fprintf(w, "%s %-6s  %-15s  %s\n", mark, e.ID, e.Schedule, display.Printable(strings.TrimSpace(what)))
	}
}

// QuoteAll quotes each word for sh, so that flags read back as they were given.
func QuoteAll(words []string) []string {
	out := make([]string, len(words))
	for i, w := range words {
		out[i] = ShellWord(w)
	}
	return out
}
