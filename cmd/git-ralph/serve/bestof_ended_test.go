package serve

import (
	"context"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
)

// endingSource is bestOfSource with try-1's merge picked here, which ends (merged) the
// moment the dashboard asks what became of it: as a merge that ends while the overview
// is being read.
type endingSource struct {
	bestOfSource
	ended bool
}

func (e *endingSource) Picked() map[string]PickedMerge {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.ended = true
	return map[string]PickedMerge{"try-1": {Log: ".ralph/logs/merge-try-1.log"}}
}

func (e *endingSource) state() string {
	e.mu.Lock()
	defer e.mu.Unlock()
	if e.ended {
		return history.MergeMerged
	}
	return history.MergeMerging
}

func (e *endingSource) Loops(ctx context.Context) ([]status.Run, error) {
	runs, _ := e.bestOfSource.Loops(ctx)
	for i := range runs {
		if runs[i].Name == "try-1" {
			runs[i].State = e.state()
		}
	}
	return runs, nil
}

func (e *endingSource) Merges(ctx context.Context) (map[string]history.Merge, error) {
	m, _ := e.bestOfSource.Merges(ctx)
	m["try-1"] = history.Merge{Name: "try-1", State: e.state(), BaseBranch: "refs/heads/main"}
	return m, nil
}

// A merge picked here that ends while the overview is read is never shown ended here
// and still merging in the queue: the page would stop following it (it reads itself
// again only while the merge runs) and keep saying "merging". What became of the
// merges started here is read first, so the queue, read after, has their end.
func TestAPickedMergeEndingAsThePageIsReadShowsItsEnd(t *testing.T) {
	src := &endingSource{}
	s, ts := startTestServer(t, src)
	_, page := get(t, browser(t), ts.URL+"/?token="+s.token)
	row := page[strings.Index(page, `data-candidate="try-1"`):]
	row = row[:strings.Index(row, "</tr>")]
	if !strings.Contains(row, "the merge started here ended") || strings.Contains(row, "merging") {
		t.Errorf("try-1's row, its merge ended as the page was read:\n%s", row)
	}
}
