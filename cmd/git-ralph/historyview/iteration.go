package historyview

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/units"
)

// Iteration is `history --verbose N`: iteration n's row of the table and the rest of
// its record, then the prompt its agent was given. A record or a prompt that cannot be
// read is a line saying so, and the other is shown all the same.
func Iteration(w io.Writer, store *history.Store, n int) error {
	if !hasDir(store, n) {
		return hints.MissingIteration(store, n, "record")
	}
	rec, err := store.Get(n)
	switch {
	case errors.Is(err, history.ErrNoRecord):
		fmt.Fprintf(w, "iteration %d has no record: it is still running, or its loop stopped before saving it\n", n)
	case err != nil:
		fmt.Fprintf(w, "record: cannot be read: %s\n", display.PrintableText(err.Error()))
	default:
		if err := Table(w, []history.Record{rec}); err != nil {
			return err
		}
		printDetails(w, rec)
	}
	prompt, err := KeptPrompt(store, n)
	if err != nil {
		fmt.Fprintf(w, "\nprompt: %s\n", display.PrintableText(err.Error()))
		return nil
	}
	fmt.Fprintf(w, "\nprompt (%s, as kept: secrets redacted):\n", display.Size(int64(len(prompt))))
	_, err = io.WriteString(w, PromptText(prompt))
	return err
}

// printDetails prints the fields of a record the table leaves out, those that are set.
func printDetails(w io.Writer, r history.Record) {
	line := func(key, value string) {
		if value != "" {
			fmt.Fprintf(w, "  %-11s %s\n", key+":", display.Printable(value))
		}
	}
	if !r.StartedAt.IsZero() {
		line("started", r.StartedAt.Local().Format(time.DateTime))
	}
	line("agent", strings.TrimSpace(r.Agent+" "+r.Model))
	line("promise", r.Signal)
	line("validation", r.Validation)
	line("new failures", r.NewFailures) // validate_format: failing now, not before the run
	line("old failures", r.OldFailures) // failing before the run too: not this iteration's
	line("until", r.Until)
	if r.Judge != nil {
		line("judge", r.Judge.Verdict)
	}
	line("push", r.Push)
	line("error", r.Error)
	if r.InputTokens+r.OutputTokens > 0 {
		line("tokens", fmt.Sprintf("%s in, %s out", display.Count(r.InputTokens), display.Count(r.OutputTokens)))
	}
	switch {
	case r.CostKnown():
		line("cost", display.Dollars(r.CostUSD))
	case r.InputTokens+r.OutputTokens > 0:
		line("cost", units.NotReported)
	}
	if r.OutputExcerpt != "" {
		text := display.PrintableText(strings.TrimSuffix(r.OutputExcerpt, "\n"))
		fmt.Fprintf(w, "  output, its first and last 500 characters:\n    %s\n", strings.ReplaceAll(text, "\n", "\n    "))
	}
}

// KeptPrompt reads iteration n's kept prompt. Its errors say why there is none: pruned,
// kept by no iteration of an older git-ralph, refused (not a regular file, too large).
func KeptPrompt(store *history.Store, n int) ([]byte, error) {
	data, err := store.ReadPrompt(n)
	if err == nil {
		return data, nil
	}
	if !errors.Is(err, fs.ErrNotExist) {
		return nil, fmt.Errorf("iteration %d's kept prompt cannot be read: %w", n, err)
	}
	rec, recErr := store.Get(n)
	switch {
	case errors.Is(recErr, history.ErrNoRecord) && !hasDir(store, n):
		return nil, hints.MissingIteration(store, n, "kept prompt")
	case errors.Is(recErr, history.ErrNoRecord):
		return nil, hints.Wrap(fmt.Errorf("iteration %d kept no prompt yet: it is still starting, or its loop stopped before keeping it", n),
			"'git ralph logs %d' shows what its agent printed", n)
	case recErr == nil && rec.Pruned:
		return nil, hints.Wrap(fmt.Errorf("iteration %d's prompt was pruned by the history's retention settings", n),
			"history_keep and history_max_size say how much is kept ('git ralph config')")
	}
	return nil, hints.Wrap(fmt.Errorf("iteration %d kept no prompt: iterations run by an older git-ralph kept none", n),
		"'git ralph logs %d' shows what its agent printed", n)
}

// hasDir reports whether the history has a directory for iteration n.
func hasDir(store *history.Store, n int) bool {
	_, err := os.Lstat(store.IterationDir(n))
	return err == nil
}

// PromptText is a kept prompt as a terminal shows it: line breaks and tabs as they are,
// every other control character spelled out (a prompt carries a repository's files and
// injected texts), ending with a line break.
func PromptText(prompt []byte) string {
	text := display.PrintableText(string(prompt))
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text
}
