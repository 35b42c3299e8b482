package serve

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// bestOfSource is fakeSource with two best-of groups: "try" ranked (try-2 won; try-3 is
// being merged), "wip" still running.
type bestOfSource struct {
	fakeSource
	mu     sync.Mutex
	picked []string
	busy   string // a merge under way: PickMerge refuses
	bad    []error
}

func figures(name, validation string, iterations, lines int, sc float64) fleet.Figures {
	return fleet.Figures{Name: name, Path: "/wt/" + name, Branch: "ralph/" + name, Reason: history.StopMaxIters,
		Iterations: iterations, Validation: fleet.ValidationOf(validation), Score: &sc, DiffLines: lines}
}

func (b *bestOfSource) Loops(ctx context.Context) ([]status.Run, error) {
	runs, _ := b.fakeSource.Loops(ctx)
	for _, n := range []string{"try-1", "try-2"} {
		runs = append(runs, status.Run{Name: n, Branch: "ralph/" + n, Path: "/wt/" + n, State: status.StateFinished, Reason: "max-iters", BaseBranch: "main"})
	}
	runs = append(runs, status.Run{Name: "try-3", Branch: "ralph/try-3", Path: "/wt/try-3", State: history.MergeMerging, BaseBranch: "main"},
		status.Run{Name: "wip-1", Branch: "ralph/wip-1", Path: "/wt/wip-1", State: status.StateRunning, Iteration: 2, MaxIterations: 5, PID: 42, BaseBranch: "main"})
	return runs, nil
}

func (b *bestOfSource) Merges(ctx context.Context) (map[string]history.Merge, error) {
	m, _ := b.fakeSource.Merges(ctx)
	m["try-3"] = history.Merge{Name: "try-3", State: history.MergeMerging, Phase: history.PhaseValidating, BaseBranch: "refs/heads/main"}
	return m, nil
}

func (b *bestOfSource) BestOfs(context.Context) ([]fleet.Ranking, []error, error) {
	ranked := []fleet.Figures{figures("try-2", "passed", 1, 12, 3), figures("try-3", "passed", 2, 4, 3), figures("try-1", "failed: exit code 1 <x>", 1, 1, 9)}
	return []fleet.Ranking{
		{Name: "try", Candidates: []string{"try-1", "try-2", "try-3"}, Score: "./score.sh", RankedAt: time.Date(2026, 11, 28, 21, 3, 0, 0, time.Local), Ranked: ranked},
		{Name: "wip", Candidates: []string{"wip-1", "wip-2"}, StartedAt: time.Now()},
		{Name: "pruned", Candidates: []string{"pruned-1", "pruned-2"}}, // its candidates all gone
	}, b.bad, nil
}

func (b *bestOfSource) PickMerge(_ context.Context, group, candidate string) (string, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	switch {
	case group != "try" && group != "wip":
		return "", fmt.Errorf("%w: no best-of %q", ErrNotFound, group)
	case b.busy != "":
		return "", fmt.Errorf("the merge of %s is under way <now>", b.busy)
	case group == "wip" || candidate != "try-1" && candidate != "try-2":
		return "", fmt.Errorf("%s is not an ended candidate of %s", candidate, group)
	}
	b.picked = append(b.picked, candidate)
	return "started: git ralph merge " + candidate, nil
}

func (b *bestOfSource) Picked() map[string]PickedMerge {
	b.mu.Lock()
	defer b.mu.Unlock()
	out := map[string]PickedMerge{}
	for _, p := range b.picked {
		out[p] = PickedMerge{Running: true, Log: ".ralph/logs/merge-" + p + ".log"}
	}
	return out
}

// section is the overview's section of a best-of group.
func section(t *testing.T, page, group string) string {
	t.Helper()
	_, after, ok := strings.Cut(page, `<section class="bestof panel" id="bestof-`+group+`"`)
	if !ok {
		t.Fatalf("no section of the best-of %s on the overview:\n%s", group, page)
	}
	for _, next := range []string{`<section class="bestof panel"`, `<div class="cards" id="loops">`} {
		after, _, _ = strings.Cut(after, next)
	}
	return after
}

// The overview shows a ranked group as one section: its candidates in rank order with
// their figures, the winner marked, a Merge button on each that can be merged (not on one
// the queue is merging, which shows the queue's state instead); a group still running
// shows its candidates' cards, waiting for the ranking. Candidates are not shown twice.
func TestOverviewShowsABestOfGroupRanked(t *testing.T) {
	src := &bestOfSource{bad: []error{errors.New("the best-of ranking x.toml cannot be read <torn>")}}
	s, ts := startTestServer(t, src)
	_, page := get(t, browser(t), ts.URL+"/?token="+s.token)
	try := section(t, page, "try")
	order := regexp.MustCompile(`data-candidate="([^"]+)"`).FindAllStringSubmatch(try, -1)
	if len(order) != 3 || order[0][1] != "try-2" || order[1][1] != "try-3" || order[2][1] != "try-1" {
		t.Fatalf("candidates not in rank order: %v\n%s", order, try)
	}
	for _, want := range []string{
		`<tr class="winner" data-candidate="try-2">`, "★ winner", "ranked Nov 28 21:03", "scored by <code>./score.sh</code>",
		`<span class="badge validation ok">passed</span>`, `<span class="badge validation fail">failed: exit code 1 &lt;x&gt;</span>`,
		"12 lines", "1 line", `<td class="num" data-label="score">9</td>`,
		"merging into main (validating)", // the queue's state of the candidate it merges
	} {
		if !strings.Contains(try, want) {
			t.Errorf("the section does not show %q:\n%s", want, try)
		}
	}
	buttons := regexp.MustCompile(`name="candidate" value="([^"]+)"`).FindAllStringSubmatch(try, -1)
	if len(buttons) != 2 || buttons[0][1] != "try-2" || buttons[1][1] != "try-1" {
		t.Errorf("Merge buttons for %v, want try-2 and try-1 (try-3 is merging)", buttons)
	}
	if !strings.Contains(try, `action="/bestof/try/merge" data-confirm="Merge try-2 into main?`) {
		t.Errorf("the button does not ask before it merges:\n%s", try)
	}
	wip := section(t, page, "wip")
	for _, want := range []string{"ranking when all have ended", `data-loop="wip-1"`, "2/5", `data-loop="wip-2"`, "not started"} {
		if !strings.Contains(wip, want) {
			t.Errorf("the running group does not show %q:\n%s", want, wip)
		}
	}
	if strings.Contains(wip, `name="candidate"`) {
		t.Error("a candidate of a group not ranked yet can be merged")
	}
	if strings.Count(page, `data-loop="wip-1"`) != 1 || strings.Count(page, `data-loop="try-1"`) != 0 {
		t.Error("a candidate is shown as a loop's card too")
	}
	if !strings.Contains(page, `data-loop="main"`) || !strings.Contains(page, "x.toml cannot be read &lt;torn&gt;") {
		t.Error("the other loops or the unreadable ranking are not shown")
	}
	if strings.Contains(page, "bestof-pruned") {
		t.Error("a group whose candidates are all gone is shown")
	}
	if !strings.Contains(page, `/static/actions.js`) {
		t.Error("the page lacks the script that asks before a merge")
	}
}

// pick posts the Merge button's form as the page does and returns the response (not
// followed).
func pick(t *testing.T, s *Server, ts string, group, origin, csrf string, form ...string) *http.Response {
	t.Helper()
	values := url.Values{"csrf": {csrf}}
	for i := 0; i+1 < len(form); i += 2 {
		values.Set(form[i], form[i+1])
	}
	req, _ := http.NewRequest("POST", ts+"/bestof/"+group+"/merge", strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.AddCookie(&http.Cookie{Name: cookieName(req), Value: s.token})
	if origin != "" {
		req.Header.Set("Origin", origin)
	}
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// The button merges the candidate it was pressed for, and the overview then says so in
// the group's section, with the merge shown; a refusal is said there too.
func TestMergeThisOneQueuesThatCandidate(t *testing.T) {
	src := &bestOfSource{}
	s, ts := startTestServer(t, src)
	resp := pick(t, s, ts.URL, "try", ts.URL, s.csrf, "candidate", "try-1")
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/#bestof-try" {
		t.Fatalf("POST: %d to %q, want 303 to the group's section", resp.StatusCode, resp.Header.Get("Location"))
	}
	if strings.Join(src.picked, " ") != "try-1" {
		t.Fatalf("merged %v, want try-1", src.picked)
	}
	c := browser(t)
	_, page := get(t, c, ts.URL+"/?token="+s.token)
	try := section(t, page, "try")
	if !strings.Contains(try, `<p class="said" id="said">started: git ralph merge try-1</p>`) ||
		!strings.Contains(try, `<div class="picked" data-running>merging from here: <code>.ralph/logs/merge-try-1.log</code>`) ||
		!strings.Contains(page, `<script src="/static/bestof.js" defer>`) {
		t.Errorf("the section does not say the merge started:\n%s", try)
	}
	_, again := get(t, c, ts.URL+"/")
	if strings.Contains(again, `id="said"`) {
		t.Error("the message is shown twice")
	}

	for _, c := range []struct{ name, group, candidate, want string }{
		{"not a candidate", "try", "main", "main is not an ended candidate of try"},
		{"not ranked", "wip", "wip-1", "wip-1 is not an ended candidate of wip"},
	} {
		resp := pick(t, s, ts.URL, c.group, ts.URL, s.csrf, "candidate", c.candidate)
		if resp.StatusCode != http.StatusSeeOther {
			t.Fatalf("%s: %d, want 303 and the refusal on the page", c.name, resp.StatusCode)
		}
		_, page := get(t, browser(t), ts.URL+"/?token="+s.token)
		if !strings.Contains(section(t, page, c.group), `<p class="said error" id="said">error: `+c.want) {
			t.Errorf("%s: the page does not say %q:\n%s", c.name, c.want, section(t, page, c.group))
		}
	}
	src.busy = "feat"
	pick(t, s, ts.URL, "try", ts.URL, s.csrf, "candidate", "try-2")
	_, page = get(t, browser(t), ts.URL+"/?token="+s.token)
	if !strings.Contains(section(t, page, "try"), "error: the merge of feat is under way &lt;now&gt;") {
		t.Errorf("a merge under way does not refuse on the page:\n%s", section(t, page, "try"))
	}
	if resp := pick(t, s, ts.URL, "nosuch", ts.URL, s.csrf, "candidate", "x-1"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("a group that does not exist: %d, want 404", resp.StatusCode)
	}
	if strings.Join(src.picked, " ") != "try-1" {
		t.Errorf("merged %v, want only try-1", src.picked)
	}
}

// The button's POST is refused unless it comes from the dashboard's own page: its Origin
// and its CSRF token; nothing is merged then.
func TestMergeThisOneRefusesCrossSite(t *testing.T) {
	src := &bestOfSource{}
	s, ts := startTestServer(t, src)
	for _, c := range []struct{ name, origin, csrf string }{
		{"another site", "http://evil.example", s.csrf},
		{"no Origin", "", s.csrf},
		{"no CSRF token", ts.URL, ""},
		{"a wrong CSRF token", ts.URL, s.token},
	} {
		if resp := pick(t, s, ts.URL, "try", c.origin, c.csrf, "candidate", "try-2"); resp.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", c.name, resp.StatusCode)
		}
	}
	if len(src.picked) != 0 {
		t.Errorf("a refused POST merged %v", src.picked)
	}
	// without the token's cookie: 401
	req, _ := http.NewRequest("POST", ts.URL+"/bestof/try/merge", strings.NewReader("candidate=try-2&csrf="+s.csrf))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.URL)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("without the cookie: %v %v, want 401", resp.StatusCode, err)
	}
}

// A dashboard whose Source cannot merge has no button and answers the POST with a 404.
func TestMergeThisOneWithoutAMerger(t *testing.T) {
	s, ts, _ := newTestServer(t)
	if resp := pick(t, s, ts.URL, "try", ts.URL, s.csrf, "candidate", "try-2"); resp.StatusCode != http.StatusNotFound {
		t.Errorf("%d, want 404", resp.StatusCode)
	}
}
