package serve

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
)

// oddNameSource has a loop named after a user's worktree directory, "feat#2?x": a
// linked worktree's loop is named after its directory, which may hold any character but /.
type oddNameSource struct{ fakeSource }

const oddName = "feat#2?x %"

func (*oddNameSource) Loops(context.Context) ([]status.Run, error) {
	return []status.Run{{Name: oddName, State: status.StateRunning}}, nil
}

func (o *oddNameSource) Iterations(_ context.Context, loop string) ([]history.Record, []history.BadRecord, error) {
	if loop != oddName {
		return nil, nil, ErrNotFound
	}
	return []history.Record{{Iteration: 1, Outcome: "success", FilesChanged: 1}}, nil, nil
}

// Every link and form to a loop escapes its name as one path segment: "feat#2" linked as
// /loops/feat#2 is the page of "feat", and its buttons posted to no loop.
func TestALoopNameIsOnePathSegmentInEveryLink(t *testing.T) {
	s, ts := startTestServer(t, &oddNameSource{})
	c := browser(t)
	escaped := "feat%232%3Fx%20%25"
	_, body := get(t, c, ts.URL+"/?token="+s.token)
	if !strings.Contains(body, `href="/loops/`+escaped+`"`) {
		t.Errorf("the loops page does not link the loop as /loops/%s:\n%s", escaped, body)
	}
	code, body := get(t, c, ts.URL+"/loops/"+escaped)
	if code != http.StatusOK {
		t.Fatalf("GET /loops/%s: %d %s", escaped, code, body)
	}
	for _, want := range []string{`action="/loops/` + escaped + `/pause"`, `action="/loops/` + escaped + `/cancel"`,
		`data-src="/loops/` + escaped + `/live"`, `href="/loops/` + escaped + `/iterations/1/diff"`} {
		if !strings.Contains(body, want) {
			t.Errorf("the loop's page lacks %s:\n%s", want, body)
		}
	}
}

// The command a cut diff's page suggests quotes the loop's name for the shell.
func TestTheCutDiffsCommandQuotesTheName(t *testing.T) {
	s, ts := startTestServer(t, &cutOddSource{})
	code, body := get(t, browser(t), ts.URL+"/loops/x%3B%20rm%20-rf%20~/iterations/1/diff?token="+s.token)
	if code != http.StatusOK || !strings.Contains(body, "git ralph history --loop &#39;x; rm -rf ~&#39; --diff 1") {
		t.Errorf("the cut diff's page: %d\n%s", code, body)
	}
	if got := shellWord("main"); got != "main" {
		t.Errorf("a plain name is quoted: %s", got)
	}
}

type cutOddSource struct{ fakeSource }

func (*cutOddSource) Diff(context.Context, string, int, int64) ([]byte, bool, error) {
	return []byte(fakeDiff), true, nil
}
