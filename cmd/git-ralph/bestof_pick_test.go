//go:build linux

package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/pick"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/serve"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/servesource"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// bestOfRepo is a scratch repository whose validation (its committed, approved
// config) passes only for the work of candidate 3, and a best-of-3 run there to its end.
// It returns the directory of git-ralph's program.
func bestOfRepo(t *testing.T) string {
	t.Helper()
	return bestOfRepoNamed(t, "", "best-of")
}

// bestOfRepoNamed is bestOfRepo in a directory named repo ("": the test's), the best-of
// named group.
func bestOfRepoNamed(t *testing.T, repo, group string) string {
	t.Helper()
	scratchRepo(t)
	if repo != "" {
		here, _ := os.Getwd()
		moved := filepath.Join(filepath.Dir(here), repo)
		if err := os.Rename(here, moved); err != nil {
			t.Fatal(err)
		}
		t.Chdir(moved)
	}
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	if err := os.MkdirAll(".ralph", 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(".ralph/config.toml", []byte("validate = \"grep -q good out.txt\"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dir, _ := os.Getwd()
	gittest.Git(t, dir, "add", ".ralph/config.toml")
	gittest.Git(t, dir, "commit", "-qm", "validation")
	ralph(t, "trust", "--yes")
	out, err := exec.Command("git-ralph", "loop", "--best-of", "3", "--worktree", group, "--jobs", "3", "--max", "1", "--agent-cmd",
		`case $PWD in *-3) echo good > out.txt;; *) echo bad > out.txt;; esac; git add out.txt; git commit -qm "work of $(basename $PWD)"`).CombinedOutput()
	if err != nil || !strings.Contains(string(out), "Winner: "+group+"-3 ") {
		t.Fatalf("the best-of: %v\n%s", err, out)
	}
	return bin
}

// pickDashboard serves the repository's dashboard, merging with the git-ralph of bin, and
// returns a client that holds the token's cookie and the dashboard's address.
func pickDashboard(t *testing.T, bin string) (*http.Client, string) {
	t.Helper()
	here, err := launch.RepoRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	picks := pick.New(here)
	picks.Exe = filepath.Join(bin, "git-ralph") // not the test binary itself
	srv, err := serve.New(repoSource{Repo: servesource.Repo{Here: here}, picks: picks}, "")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = srv.Handler(ts.Listener.Addr())
	ts.Start()
	t.Cleanup(ts.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: &http.Transport{DialContext: dialLocalhost}}
	if code, body := fetch(t, c, srv.URL(ts.Listener.Addr())); code != http.StatusOK {
		t.Fatalf("GET /: %d %s", code, body)
	}
	return c, srv.Base(ts.Listener.Addr())
}

// pickOnPage presses the "Merge this one" button of candidate on the overview, as the
// browser does, and returns what the page then says.
func pickOnPage(t *testing.T, c *http.Client, base, group, candidate string) string {
	t.Helper()
	_, page := fetch(t, c, base+"/")
	m := csrfField.FindStringSubmatch(page)
	if m == nil || !strings.Contains(page, `name="candidate" value="`+candidate+`"`) {
		t.Fatalf("no Merge button for %s on the overview:\n%s", candidate, page)
	}
	form := url.Values{"csrf": {m[1]}, "candidate": {candidate}}
	req, _ := http.NewRequest("POST", base+"/bestof/"+group+"/merge", strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	said := regexp.MustCompile(`id="said">([^<]*)<`).FindStringSubmatch(string(body))
	if resp.StatusCode != http.StatusOK || said == nil {
		t.Fatalf("POST: %d, the page does not say what happened:\n%s", resp.StatusCode, body)
	}
	return said[1]
}

// The story of a manual best-of: three candidates ranked, the ranking kept and shown by
// the dashboard; a person picks the second (whose work fails validation): the merge
// queue validates it and leaves main alone; then picks the winner, which lands on main.
func TestBestOfPickedOnTheDashboardLands(t *testing.T) {
	bin := bestOfRepo(t)
	here, _ := os.Getwd()
	kept, found, err := fleet.LoadRanking(context.Background(), here, "best-of")
	if err != nil || !found || !kept.IsRanked() {
		t.Fatalf("the ranking is not kept: %v %v %+v", found, err, kept)
	}
	if w, _ := kept.Winner(); w.Name != "best-of-3" || !w.Passed() {
		t.Errorf("the kept winner is %+v", w)
	}
	branch := strings.TrimSpace(gittest.Git(t, here, "symbolic-ref", "--short", "HEAD")) // git's default, main or master
	c, base := pickDashboard(t, bin)
	_, page := fetch(t, c, base+"/")
	order := regexp.MustCompile(`data-candidate="([^"]+)"`).FindAllStringSubmatch(page, -1)
	if len(order) != 3 || order[0][1] != "best-of-3" || !strings.Contains(page, `<tr class="winner" data-candidate="best-of-3">`) {
		t.Fatalf("the overview does not rank best-of-3 first, the winner: %v\n%s", order, page)
	}

	said := pickOnPage(t, c, base, "best-of", "best-of-2")
	if !strings.Contains(said, "started git ralph merge best-of-2") || !strings.Contains(said, ".ralph/logs/merge-best-of-2.log") {
		t.Errorf("the page said %q", said)
	}
	waitFor(t, "the merge of best-of-2 to need review", func() bool {
		return regexp.MustCompile(`(?m)^best-of-2 +ralph/best-of-2 +needs-review`).MatchString(ralph(t, "runs"))
	})
	if log := gittest.Git(t, here, "log", "--format=%s", branch); strings.Contains(log, "work of") {
		t.Fatalf("unvalidated work landed on main:\n%s", log)
	}
	if l, _ := os.ReadFile(filepath.Join(here, ".ralph/logs/merge-best-of-2.log")); !strings.Contains(string(l), "validating the merged result: grep -q good out.txt") {
		t.Errorf("the merge's log does not show its validation:\n%s", l)
	}
	_, page = fetch(t, c, base+"/")
	if !strings.Contains(page, "needs review: validation failed") {
		t.Errorf("the overview does not show the merge queue's state of best-of-2:\n%s", page)
	}

	said = pickOnPage(t, c, base, "best-of", "best-of-3")
	if !strings.Contains(said, "started git ralph merge best-of-3") {
		t.Errorf("the page said %q", said)
	}
	waitFor(t, "best-of-3 to land on main", func() bool {
		return strings.Contains(gittest.Git(t, here, "log", "--format=%s", branch), "work of best-of-3")
	})
	waitFor(t, "the overview to show best-of-3 merged", func() bool {
		_, page = fetch(t, c, base+"/")
		return strings.Contains(page, "merged into "+branch)
	})
	if log := gittest.Git(t, here, "log", "--format=%s", branch); strings.Contains(log, "work of best-of-1") || strings.Contains(log, "work of best-of-2") {
		t.Errorf("another candidate landed too:\n%s", log)
	}
	logged, _ := os.ReadFile(filepath.Join(here, ".ralph/logs/merge-best-of-3.log"))
	if !strings.Contains(string(logged), "== git ralph merge best-of-3, picked at") {
		t.Errorf("the merge's log:\n%s", logged)
	}
	// a candidate merged is not offered again; one that is not a candidate is refused
	waitFor(t, "the merge's process to end", func() bool {
		l, _ := os.ReadFile(filepath.Join(here, ".ralph/logs/merge-best-of-3.log"))
		return strings.Contains(string(l), "ended: exit code 0")
	})
	_, page = fetch(t, c, base+"/")
	if strings.Contains(page, `name="candidate" value="best-of-3"`) {
		t.Error("the merged candidate still has a Merge button")
	}
}

// Refusals, said before anything runs: not a candidate of the group, a group that does
// not exist, a candidate that has not ended.
func TestPickRefuses(t *testing.T) {
	bestOfRepo(t)
	here, _ := os.Getwd()
	p := pick.New(here)
	p.Exe = "/nonexistent/git-ralph" // nothing may start
	ctx := context.Background()
	for _, c := range []struct{ group, candidate, want string }{
		{"best-of", "main", `"main" is not a candidate of the best-of best-of`},
		{"best-of", "best-of-4", `"best-of-4" is not a candidate`},
		{"nosuch", "nosuch-1", `no best-of "nosuch"`},
	} {
		if _, err := p.Pick(ctx, c.group, c.candidate); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pick(%s, %s) = %v, want %q", c.group, c.candidate, err, c.want)
		}
	}
	// the merge runs with no terminal: it must have a validate command, approved, and
	// write its log only into the repository's own .ralph/logs
	for _, c := range []struct{ config, want string }{
		{"", "no validate command is set"},
		{"validate = \"true\"\n", "not approved yet"},
	} {
		if err := os.WriteFile(".ralph/config.toml", []byte(c.config), 0o644); err != nil {
			t.Fatal(err)
		}
		if _, err := p.Pick(ctx, "best-of", "best-of-3"); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("pick with .ralph/config.toml %q = %v, want %q", c.config, err, c.want)
		}
	}
	gittest.Git(t, here, "checkout", "--", ".ralph/config.toml")
	elsewhere := t.TempDir()
	if err := os.RemoveAll(".ralph/logs"); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(elsewhere, ".ralph/logs"); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Pick(ctx, "best-of", "best-of-3"); err == nil || !strings.Contains(err.Error(), "symlink") {
		t.Errorf("pick with .ralph/logs a symlink = %v, want it refused", err)
	}
	if left, _ := os.ReadDir(elsewhere); len(left) != 0 {
		t.Errorf("the symlinked .ralph/logs got %v", left)
	}
	if err := os.Remove(".ralph/logs"); err != nil {
		t.Fatal(err)
	}
	// a group whose candidates run again is not ranked: nothing to pick yet
	r, _, _ := fleet.LoadRanking(ctx, here, "best-of")
	if err := fleet.KeepRanking(ctx, here, fleet.Ranking{Name: r.Name, Candidates: r.Candidates}); err != nil {
		t.Fatal(err)
	}
	if _, err := p.Pick(ctx, "best-of", "best-of-3"); err == nil || !strings.Contains(err.Error(), "has not ranked its candidates") {
		t.Errorf("an unranked group: %v", err)
	}
	if len(p.Picked()) != 0 {
		t.Errorf("a refused pick started %v", p.Picked())
	}
}

// A pick the views offer no button for is refused as well, when it is posted by hand:
// a candidate that ran no iteration, and one the merge queue has already merged.
func TestPickRefusesWhatCannotMerge(t *testing.T) {
	bestOfRepo(t)
	here, _ := os.Getwd()
	p := pick.New(here)
	p.Exe = "/nonexistent/git-ralph" // nothing may start
	ctx := context.Background()
	r, _, err := fleet.LoadRanking(ctx, here, "best-of")
	if err != nil {
		t.Fatal(err)
	}
	for i := range r.Ranked {
		if r.Ranked[i].Name == "best-of-1" {
			r.Ranked[i].Iterations = 0
		}
	}
	if err := fleet.KeepRanking(ctx, here, r); err != nil {
		t.Fatal(err)
	}
	common, err := gitops.CommonDir(ctx, here)
	if err != nil {
		t.Fatal(err)
	}
	tip := strings.TrimSpace(gittest.Git(t, here, "rev-parse", "ralph/best-of-3"))
	if err := history.SaveMerge(common, history.Merge{Name: "best-of-3", State: history.MergeMerged, How: "merge",
		BaseBranch: "refs/heads/main", Tip: tip, FinishedAt: time.Now()}); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ candidate, want, hint string }{
		{"best-of-1", "the candidate best-of-1 ran no iteration", "pick a candidate that ran"},
		{"best-of-3", "the candidate best-of-3 is already merged", "nothing is left to merge"},
	} {
		_, err := p.Pick(ctx, "best-of", c.candidate)
		var h interface{ Hint() string }
		if err == nil || !strings.Contains(err.Error(), c.want) || !errors.As(err, &h) || !strings.Contains(h.Hint(), c.hint) {
			t.Errorf("pick(%s) = %v, want %q with the hint %q", c.candidate, err, c.want, c.hint)
		}
	}
	if len(p.Picked()) != 0 {
		t.Errorf("a refused pick started %v", p.Picked())
	}
}

// TestWatchBestOfPickInTmux: watch's list of loops shows the best-of's candidates in
// rank order, the winner starred; m on the winner asks, y merges it through the queue
// (main gains its work) and the list then shows it merged.
func TestWatchBestOfPickInTmux(t *testing.T) {
	needTmux(t)
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(v, "T")
	}
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(v, "t@example.com")
	}
	bestOfRepo(t)
	here, _ := os.Getwd()
	branch := strings.TrimSpace(gittest.Git(t, here, "symbolic-ref", "--short", "HEAD"))
	os.Unsetenv("TMUX")
	t.Setenv("TERM", "xterm-256color")
	tm := startTmux(t, "NO_COLOR=1 git-ralph watch")
	tm.waitScreen("the best-of ranked", "best-of best-of: ranked", "winner ★ best-of-3", "RANK", "★  1 best-of-3", "   2 best-of-", "m merge this best-of candidate")
	tm.keys("m")
	tm.waitScreen("m refused on main", "m merges a candidate of a best-of; main is not one")
	tm.keys("j") // one key at a time: keys sent at once reach the view as one
	tm.waitScreen("the cursor on the winner", "> ★  1 best-of-3")
	tm.keys("m")
	tm.waitScreen("the question", "merge best-of-3 into "+branch+"? y/n")
	tm.keys("y")
	tm.waitScreen("the merge started", "started git ralph merge best-of-3")
	waitFor(t, "best-of-3 to land", func() bool {
		return strings.Contains(gittest.Git(t, here, "log", "--format=%s", branch), "work of best-of-3")
	})
	tm.waitScreen("the candidate merged", "best-of-3  ralph/best-of-3  merged")
	tm.keys("q")
	waitFor(t, "the view to quit", func() bool { return exec.Command("tmux", "-S", tm.socket, "has-session").Run() != nil })

	tm = startTmuxSized(t, "git-ralph watch", 110, 12)
	tm.waitScreen("the list in colour", "★  1 best-of-3")
	for _, k := range []string{"j", "j"} {
		tm.keys(k)
		time.Sleep(100 * time.Millisecond)
	}
	tm.keys("m")
	tm.waitScreen("the question in colour", "merge best-of-1 into")
	tm.shot("bestof", 110, 12)
}

// TestBestOfPickInChromium: `git ralph serve` in headless Chromium shows the best-of as
// one section, the winner first and marked; Merge this one asks first (here answered
// yes), and the page then says the merge started and, read again by itself while the
// merge runs, that the queue merged it. RALPH_SCREENSHOTS=1 saves docs/images/dashboard-bestof.png.
func TestBestOfPickInChromium(t *testing.T) {
	b := startChromium(t)
	bestOfRepoNamed(t, "greeter", "greet")
	here, _ := os.Getwd()
	branch := strings.TrimSpace(gittest.Git(t, here, "symbolic-ref", "--short", "HEAD"))
	base, token := startServe(t)
	b.open(base + "/?token=" + token)
	b.waitFor("the best-of's section", `document.querySelector('#bestof-greet tr.winner[data-candidate="greet-3"]') !== null`)
	if first := b.text(`#bestof-greet tbody tr td:nth-child(2)`); !strings.HasPrefix(first, "greet-3") || !strings.Contains(first, "★ winner") {
		t.Errorf("the first row: %q, want greet-3, the winner", first)
	}
	if asks, _ := b.eval(`document.querySelector('form[action="/bestof/greet/merge"]').getAttribute("data-confirm")`).(string); !strings.HasPrefix(asks, "Merge greet-3 into "+branch+"?") {
		t.Errorf("the button asks %q", asks)
	}
	b.save("dashboard-bestof")
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true})
	b.open(base + "/")
	if w := b.eval("document.documentElement.scrollWidth"); w.(float64) > 390 {
		t.Errorf("the overview with a best-of on a 390 px phone is %v px wide: it scrolls sideways", w)
	}
	b.save("dashboard-bestof-phone")
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 800, "deviceScaleFactor": 1, "mobile": false})
	b.open(base + "/")
	// the person says no: the button asked, and nothing is posted
	b.eval(`window.confirm = function (q) { window.__asked = q; return false; }; true`)
	b.eval(`document.querySelector('tr[data-candidate="greet-3"] button.pick').click(); true`)
	if asked, _ := b.eval(`window.__asked`).(string); !strings.HasPrefix(asked, "Merge greet-3 into "+branch+"?") {
		t.Errorf("the Merge button, declined, asked %q", asked)
	}
	b.eval(`window.confirm = function () { return true; }; true`) // the person says yes
	b.click(`tr[data-candidate="greet-3"] button.pick`)
	if said := b.text("#said"); !strings.Contains(said, "started git ralph merge greet-3") {
		t.Errorf("after the button the page says %q", said)
	}
	waitFor(t, "greet-3 to land", func() bool {
		return strings.Contains(gittest.Git(t, here, "log", "--format=%s", branch), "work of greet-3")
	})
	// the page follows the merge by itself while it runs: no reload by hand
	b.waitFor("the merge queue's word", `document.querySelector('tr[data-candidate="greet-3"]') !== null && `+
		`document.querySelector('tr[data-candidate="greet-3"]').innerText.includes("merged into `+branch+`")`)
	b.waitFor("the merge's end", `document.querySelector('tr[data-candidate="greet-3"] .picked').innerText.includes("the merge started here ended")`)
}
