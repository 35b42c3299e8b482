package serve

import (
	"context"
	"errors"
	"html"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/internal/testio"
)

// fakeSource is one running loop with two iterations, strings hostile on purpose; its
// latest iteration's log is whatever live says.
type fakeSource struct {
	acted []string
	mu    sync.Mutex
	live  LiveLog
	runs  []history.Record // the loop's iterations, when not the two of every test
	// maxTokens is the main loop's run's max_tokens (0: none)
	maxTokens int64
}

func (f *fakeSource) Live(_ context.Context, loop string) (LiveReader, error) {
	if loop != "main" {
		return nil, ErrNotFound
	}
	return func() (LiveLog, error) {
		f.mu.Lock()
		defer f.mu.Unlock()
		return f.live, nil
	}, nil
}

func (f *fakeSource) setLive(l LiveLog) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.live = l
}

func (f *fakeSource) Loops(context.Context) ([]status.Run, error) {
	return []status.Run{{Name: "main", Branch: "main", Path: "/repo", State: status.StateRunning, Iteration: 2, MaxIterations: 5, LastOutcome: "success",
		Spend: &status.Spend{SpentUSD: 0.42, MaxCost: 1, MaxTokens: f.maxTokens}},
		{Name: "evil", Branch: "<script>alert(1)</script>", Path: "/wt/evil", State: status.StateFinished, Reason: "success"},
		{Name: "feat", Branch: "ralph/feat", Path: "/wt/feat", State: history.MergeNeedsReview, Reason: "validation failed", Iteration: 3, MaxIterations: 4,
			Validation: "failed: exit code 1", Spend: &status.Spend{SpentUSD: 4.5, MaxCost: 5}}}, nil
}

func (f *fakeSource) Merges(context.Context) (map[string]history.Merge, error) {
	return map[string]history.Merge{"feat": {Name: "feat", State: history.MergeNeedsReview, BaseBranch: "refs/heads/main", Problem: "validation failed",
		Conflicts: []string{"a<b>.go"}, Output: "--- FAIL: TestX <script>"}}, nil
}

func (f *fakeSource) Iterations(_ context.Context, loop string) ([]history.Record, []history.BadRecord, error) {
	if loop != "main" {
		return nil, nil, ErrNotFound
	}
	if f.runs != nil {
		return f.runs, nil, nil
	}
	return []history.Record{{Iteration: 1, Outcome: "success", FilesChanged: 1, Insertions: 2, Deletions: 1, CommitAfter: "0123456789abcdef",
		CostUSD: 0.42, CostReported: true},
		{Iteration: 2, Outcome: "failure", Error: "<b>bad</b>", InputTokens: 1200, OutputTokens: 80}}, nil, nil
}

const fakeDiff = "diff --git a/x b/x\nindex 1..2 100644\n--- a/x\n+++ b/x\n@@ -1 +1,2 @@\n-old <i>\n+new\n+more\n" +
	"diff --git a/m.go b/m.go\n--- a/m.go\n+++ b/m.go\n@@ -1 +1 @@\n+s := \"</pre><script>\" // <b>&\n"

func (f *fakeSource) Diff(_ context.Context, loop string, n int, _ int64) ([]byte, bool, error) {
	if loop != "main" || n != 1 {
		return nil, false, ErrNotFound
	}
	return []byte(fakeDiff), false, nil
}

func (f *fakeSource) Act(_ context.Context, loop, action, text string) (string, error) {
	switch {
	case action == "nothing":
		return "", ErrNotFound
	case text == "<bad>":
		return "", errors.New("the label <bad> is not one")
	}
	f.acted = append(f.acted, strings.TrimSpace(loop+" "+action+" "+text))
	return action + "d <ok>", nil
}

func newTestServer(t *testing.T) (*Server, *httptest.Server, *fakeSource) {
	t.Helper()
	src := &fakeSource{}
	s, ts := startTestServer(t, src)
	return s, ts, src
}

// startTestServer serves src on a test server whose URL is the dashboard's own address,
// NAME.localhost:PORT, which the tests' clients resolve as browsers do.
func startTestServer(t *testing.T, src Source) (*Server, *httptest.Server) {
	t.Helper()
	s, err := New(src, "")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = s.Handler(ts.Listener.Addr())
	ts.Start()
	ts.URL = s.Base(ts.Listener.Addr())
	t.Cleanup(ts.Close)
	return s, ts
}

// TestMain makes the tests' HTTP clients resolve NAME.localhost to loopback, as browsers
// do (Go's resolver asks DNS, which knows no such name).
func TestMain(m *testing.M) {
	http.DefaultTransport.(*http.Transport).DialContext = dialLocalhost
	os.Exit(m.Run())
}

func dialLocalhost(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && strings.HasSuffix(host, ".localhost") {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

// browser is a client that keeps cookies, as a browser does, and does not follow redirects.
func browser(t *testing.T) *http.Client {
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar}
}

func get(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var pages = []string{"/", "/loops/main", "/loops/main/iterations/1/diff", "/static/style.css", "/static/live.js", "/nowhere", "/loops/main/live"}

func TestEveryPageNeedsTheToken(t *testing.T) {
	_, ts, _ := newTestServer(t)
	for _, p := range pages {
		for _, q := range []string{"", "?token=", "?token=00112233445566778899aabbccddeeff"} {
			code, body := get(t, browser(t), ts.URL+p+q)
			if code != http.StatusUnauthorized {
				t.Errorf("GET %s%s without the token: %d, want 401", p, q, code)
			}
			if strings.Contains(body, "main") && p != "/nowhere" {
				t.Errorf("GET %s%s without the token leaks the page: %q", p, q, body)
			}
		}
	}
	// a wrong cookie is no better
	req, _ := http.NewRequest("GET", ts.URL+"/", nil)
	req.AddCookie(&http.Cookie{Name: cookieName(req), Value: "guess"})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong cookie: %d, want 401", resp.StatusCode)
	}
}

func TestTheTokenBecomesACookie(t *testing.T) {
	s, ts, _ := newTestServer(t)
	c := browser(t)
	resp, err := c.Get(ts.URL + "/loops/main?token=" + s.token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.Request.URL.RawQuery != "" || resp.Request.URL.Path != "/loops/main" {
		t.Errorf("after the token, the browser is at %s, want /loops/main without the token", resp.Request.URL)
	}
	u, _ := url.Parse(ts.URL)
	cookies := c.Jar.Cookies(u)
	if len(cookies) != 1 || cookies[0].Value != s.token {
		t.Fatalf("cookies after the first visit: %v", cookies)
	}
	setCookie := resp.Request.Response.Header.Get("Set-Cookie")
	for _, want := range []string{"HttpOnly", "SameSite=Strict"} {
		if !strings.Contains(setCookie, want) {
			t.Errorf("Set-Cookie %q lacks %s", setCookie, want)
		}
	}
	for _, p := range pages[:5] {
		if code, _ := get(t, c, ts.URL+p); code != http.StatusOK {
			t.Errorf("GET %s with the cookie: %d, want 200", p, code)
		}
	}
}

func TestTheLoopsPageShowsTheLoopsEscaped(t *testing.T) {
	s, ts, _ := newTestServer(t)
	code, body := get(t, browser(t), ts.URL+"/?token="+s.token)
	if code != http.StatusOK {
		t.Fatalf("GET /: %d %s", code, body)
	}
	for _, want := range []string{`<a href="/loops/main">main</a>`, "running", "2/5", "finished (success)", "&lt;script&gt;alert(1)&lt;/script&gt;"} {
		if !strings.Contains(body, want) {
			t.Errorf("the loops page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script>") {
		t.Errorf("a branch name reached the page unescaped:\n%s", body)
	}
}

// TestTheOverviewIsOneCardPerLoop: the repository's name in the title and header, each
// loop a card with its state, iteration, spend against its budget, and the merge queue's
// word with the conflicting files and the validation's output.
func TestTheOverviewIsOneCardPerLoop(t *testing.T) {
	s, ts, _ := newTestServer(t)
	s.Repo = "my<repo>"
	_, body := get(t, browser(t), ts.URL+"/?token="+s.token)
	for _, want := range []string{"<title>Loops · my&lt;repo&gt; · git ralph</title>", `<a class="repo" id="repo" href="/">my&lt;repo&gt;</a>`,
		`<section class="card state-needs-review" data-loop="feat">`, `<span class="badge state fail">needs-review (validation failed)</span>`,
		"3/4", `<rect class="bar" width="75" height="4"/>`, "$4.50 of $5.00 (max_cost)", `<svg class="meter high"`, `<rect class="bar" width="90" height="4"/>`,
		`<span class="badge validation fail">failed: exit code 1</span>`,
		"needs review: validation failed; main was left alone", "<li><code>a&lt;b&gt;.go</code></li>",
		`<pre class="merge-output">--- FAIL: TestX &lt;script&gt;</pre>`, "git ralph merge feat --resolve",
		`<span class="badge state ok live">running</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the overview lacks %q:\n%s", want, body)
		}
	}
}

// TestTheLoopPage: the controls grouped by what they act on, the timeline's rows with
// coloured outcomes and validations and a short run id (whole on hover), and the
// timeline alone for the page's live refresh, which leaves the action's message alone.
func TestTheLoopPage(t *testing.T) {
	s, ts, src := newTestServer(t)
	src.runs = []history.Record{{Iteration: 1, Run: "20261128T185600Z-1a2b3c4d", Outcome: "success", Validation: "failed: exit code 2"}}
	c := browser(t)
	if code := post(t, s, ts, "/loops/main/pause", ts.URL, s.csrf); code != http.StatusSeeOther {
		t.Fatalf("pause: %d", code)
	}
	_, part := get(t, c, ts.URL+"/loops/main?part=timeline&token="+s.token)
	for _, want := range []string{`<tr class="outcome-success" id="iteration-1">`, `<span class="badge outcome ok">success</span>`,
		`<span class="badge validation fail">failed: exit code 2</span>`, `<code title="20261128T185600Z-1a2b3c4d">Nov 28 18:56</code>`} {
		if !strings.Contains(part, want) {
			t.Errorf("the timeline lacks %q:\n%s", want, part)
		}
	}
	if strings.Contains(part, "<html") || strings.Contains(part, "paused") {
		t.Errorf("the timeline's part is more than the timeline:\n%s", part)
	}
	_, body := get(t, c, ts.URL+"/loops/main")
	for _, want := range []string{`<fieldset class="run-controls"><legend>The run</legend>`, `id="pause"`, `id="resume"`, `id="cancel"`,
		`<legend>The next iteration's prompt</legend>`, `<legend>The work tree</legend>`, `<div id="timeline">`, `data-timeline="/loops/main?part=timeline"`,
		`<p class="said" id="said">paused &lt;ok&gt;</p>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the loop page lacks %q:\n%s", want, body)
		}
	}
}

// TestTheDiffLinksTheIterationsWithChanges: the previous and the next iteration that
// changed something, skipping those that did not or whose diff was pruned.
func TestTheDiffLinksTheIterationsWithChanges(t *testing.T) {
	s, ts, src := newTestServer(t)
	src.runs = []history.Record{{Iteration: 1, FilesChanged: 1}, {Iteration: 2}, {Iteration: 3, FilesChanged: 2, Pruned: true}, {Iteration: 4, FilesChanged: 1}}
	_, body := get(t, browser(t), ts.URL+"/loops/main/iterations/1/diff?token="+s.token)
	if !strings.Contains(body, `<a rel="next" href="/loops/main/iterations/4/diff">iteration 4 →</a>`) || strings.Contains(body, `rel="prev"`) {
		t.Errorf("iteration 1's diff should link iteration 4 as the next, no previous:\n%s", body)
	}
	if rec, prev, next := neighbours(src.runs, 4); rec == nil || rec.Iteration != 4 || prev != 1 || next != 0 {
		t.Errorf("iteration 4's neighbours: %v, %d, %d; want itself, 1, 0", rec, prev, next)
	}
}

// TestTheCostCharts: each iteration's reported cost a bar as tall as its share of the
// dearest, and the latest run's spend summed against its max_cost, over the budget in
// the failure colour; no chart where no cost was reported.
func TestTheCostCharts(t *testing.T) {
	s, ts, src := newTestServer(t)
	src.runs = []history.Record{{Iteration: 1, Run: "a", CostUSD: 0.5, CostReported: true},
		{Iteration: 2, Run: "b", CostUSD: 0.25, CostReported: true}, {Iteration: 3, Run: "b", InputTokens: 5}, {Iteration: 4, Run: "b", CostUSD: 1, CostReported: true}}
	c := browser(t)
	_, body := get(t, c, ts.URL+"/loops/main?token="+s.token)
	body = html.UnescapeString(body)
	for _, want := range []string{
		// ten slots of 60 at least, a bar 48 wide in its slot; the dearest 96 high
		`<rect x="66" y="76" width="48" height="24"><title>iteration 2: $0.25</title></rect>`,
		`<rect x="186" y="4" width="48" height="96"><title>iteration 4: $1.00</title></rect>`,
		"The latest run's spend: $1.25 of $1.00 (max_cost)",
		`<line class="budget" x1="0" y1="23.2" x2="600" y2="23.2">`, // $1 of the $1.25 at the top
		`<polyline class="spent over" points="0,100 60,80.8 120,80.8 180,4"/>`,
		`<title>after iteration 4: $1.25</title>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the charts lack %q:\n%s", want, body)
		}
	}
	if strings.Contains(figureOf(t, body, "cost-chart"), "<title>iteration 3:") {
		t.Errorf("an iteration that reported no cost has a bar:\n%s", body)
	}
	src.runs = []history.Record{{Iteration: 1, InputTokens: 5}}
	if _, body := get(t, c, ts.URL+"/loops/main"); strings.Contains(body, `id="cost-chart"`) || strings.Contains(body, `id="spend-chart"`) {
		t.Errorf("a chart of no reported cost:\n%s", body)
	}
}

func TestTheIterationsAndTheDiff(t *testing.T) {
	s, ts, _ := newTestServer(t)
	c := browser(t)
	_, body := get(t, c, ts.URL+"/loops/main?token="+s.token)
	for _, want := range []string{`href="/loops/main/iterations/1/diff"`, `<span class="plus">+2</span> <span class="minus">−1</span> (1 file)`, "&lt;b&gt;bad&lt;/b&gt;", "0123456",
		`<td class="num">$0.42</td>`, `<td class="num">not reported</td>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the iterations page lacks %q:\n%s", want, body)
		}
	}
	if strings.Index(body, "failure") > strings.Index(body, "0123456") {
		t.Errorf("the newest iteration should come first:\n%s", body)
	}
	_, body = get(t, c, ts.URL+"/loops/main/iterations/1/diff")
	for _, want := range []string{`<span class="line meta file" id="file-1">diff --git a/x b/x</span>`, `<span class="line meta">--- a/x</span>`,
		`<span class="line hunk"><span class="ln ln-old"></span><span class="ln ln-new"></span>@@ -1 +1,2 @@</span>`,
		`<span class="line del"><span class="ln ln-old">1</span><span class="ln ln-new"></span>-old &lt;i&gt;</span>`,
		`<span class="line add"><span class="ln ln-old"></span><span class="ln ln-new">1</span>+new</span>`,
		`<span class="line add"><span class="ln ln-old"></span><span class="ln ln-new">2</span>+more</span>`,
		`<span class="line add"><span class="ln ln-old"></span><span class="ln ln-new">1</span>+s := <span class="str">&#34;&lt;/pre&gt;&lt;script&gt;&#34;</span> <span class="com">// &lt;b&gt;&amp;</span></span>`,
		`<li><a href="#file-1">x</a><span class="stat"><span class="plus">+2</span> <span class="minus">−1</span></span></li>`,
		`<li><a href="#file-2">m.go</a><span class="stat"><span class="plus">+1</span> <span class="minus">−0</span></span></li>`,
		`<span class="badge outcome ok">success</span>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the diff page lacks %q:\n%s", want, body)
		}
	}
	if strings.Contains(body, "<script>") || strings.Count(body, "</pre>") != 1 {
		t.Errorf("the diff's text reached the page unescaped:\n%s", body)
	}
	if strings.Contains(body, `rel="prev"`) || strings.Contains(body, `rel="next"`) {
		t.Errorf("iteration 1 of 2, the second without changes, links to another diff:\n%s", body)
	}
	for _, p := range []string{"/loops/other", "/loops/main/iterations/7/diff", "/loops/main/iterations/x/diff"} {
		if code, _ := get(t, c, ts.URL+p); code != http.StatusNotFound {
			t.Errorf("GET %s: %d, want 404", p, code)
		}
	}
}

// post sends a form as a page of origin would, with the cookie, and does not follow
// the redirect.
func post(t *testing.T, s *Server, ts *httptest.Server, path, origin, csrf string, form ...string) int {
	t.Helper()
	values := url.Values{"csrf": {csrf}}
	for i := 0; i+1 < len(form); i += 2 {
		values.Set(form[i], form[i+1])
	}
	req, _ := http.NewRequest("POST", ts.URL+path, strings.NewReader(values.Encode()))
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
	if resp.StatusCode == http.StatusSeeOther && resp.Header.Get("Location") != "/loops/main" {
		t.Errorf("POST %s went back to %q, want /loops/main", path, resp.Header.Get("Location"))
	}
	return resp.StatusCode
}

func TestACrossOriginPostIsRefused(t *testing.T) {
	s, ts, src := newTestServer(t)
	for _, c := range []struct{ name, origin, csrf string }{
		{"another site", "http://evil.example", s.csrf},
		{"no Origin", "", s.csrf},
		{"another port", "http://127.0.0.1:1", s.csrf},
		{"another port of its name", strings.TrimSuffix(ts.URL, ts.URL[strings.LastIndex(ts.URL, ":"):]) + ":1", s.csrf},
		{"no CSRF token", ts.URL, ""},
		{"a wrong CSRF token", ts.URL, s.token},
	} {
		if code := post(t, s, ts, "/loops/main/pause", c.origin, c.csrf); code != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", c.name, code)
		}
	}
	if len(src.acted) != 0 {
		t.Fatalf("a refused POST acted: %v", src.acted)
	}
	// the same POST from our own page goes through: the refusals above are the checks'
	if code := post(t, s, ts, "/loops/main/pause", ts.URL, s.csrf); code != http.StatusSeeOther {
		t.Errorf("a same-origin POST with the CSRF token: %d, want 303", code)
	}
	if strings.Join(src.acted, ",") != "main pause" {
		t.Errorf("acted: %v, want [main pause]", src.acted)
	}
	// and a GET never acts
	if code, _ := get(t, &http.Client{}, ts.URL+"/loops/main/pause?token="+s.token); code == http.StatusOK && len(src.acted) != 1 {
		t.Errorf("a GET acted: %v", src.acted)
	}
}

func TestItListensOnLoopbackByDefault(t *testing.T) {
	ln, err := Listen("")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	tcp := ln.Addr().(*net.TCPAddr)
	if !tcp.IP.IsLoopback() || tcp.Port == 0 {
		t.Errorf("default address %s, want 127.0.0.1 on a free port", tcp)
	}
	if w := Exposed(ln.Addr()); w != "" {
		t.Errorf("loopback said to be exposed: %q", w)
	}
	if w := Exposed(&net.TCPAddr{IP: net.IPv4zero, Port: 80}); !strings.Contains(w, "every network interface") {
		t.Errorf("0.0.0.0 not said to be exposed: %q", w)
	}
	if w := Exposed(&net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 80}); !strings.Contains(w, "on 192.168.1.5:80, beyond this machine") {
		t.Errorf("a LAN address not said to be exposed: %q", w)
	}
}

func TestServePrintsTheURLAndStopsOnCancel(t *testing.T) {
	r := serveForTest(t, &fakeSource{})
	u := r.s.URL(r.ln.Addr())
	deadline := time.Now().Add(5 * time.Second)
	for !strings.Contains(r.out.String(), u) && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if !regexp.MustCompile(`^http://git-ralph-[0-9a-f]{20}\.localhost:[0-9]+/\?token=`).MatchString(u) || !strings.Contains(u, "token="+r.s.token) {
		t.Errorf("URL %q", u)
	}
	c := browser(t)
	if code, body := get(t, c, u); code != http.StatusOK || !strings.Contains(body, "main") {
		t.Errorf("GET the printed URL: %d %s", code, body)
	}
	// a page showing the live output holds a stream open: the stop must not wait on it
	_, stopStream := sse(t, c, strings.TrimSuffix(u, "/?token="+r.s.token)+"/loops/main/live")
	defer stopStream()
	// and a browser opens connections ahead of need (Chromium does): one that has sent
	// nothing yet must not hold the stop either
	idle, err := net.Dial("tcp", r.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer idle.Close()
	if err := r.stop(); err != nil { // past shutdownGrace/2, stop fails the test itself
		t.Fatal(err)
	}
	if _, err := net.DialTimeout("tcp", r.ln.Addr().String(), time.Second); err == nil {
		t.Errorf("still listening after the stop")
	}
	if !strings.Contains(r.out.String(), "stopped") {
		t.Errorf("output %q", r.out.String())
	}
}

// running is a dashboard served as `git ralph serve` serves it (timeouts and all).
type running struct {
	s    *Server
	ln   net.Listener
	out  *testio.Buffer
	stop func() error // ends Serve and returns its error; fails the test past the grace/2
}

// serveForTest serves src on a free loopback port until the test stops it or ends.
func serveForTest(t *testing.T, src Source) *running {
	t.Helper()
	s, err := New(src, "")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &testio.Buffer{}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, out) }()
	stopped := false
	var result error
	stop := func() error {
		if stopped {
			return result
		}
		stopped = true
		cancel()
		select {
		case result = <-done:
		case <-time.After(shutdownGrace / 2):
			t.Errorf("Serve did not stop within %v", shutdownGrace/2)
			result = <-done
		}
		return result
	}
	t.Cleanup(func() { stop() })
	return &running{s: s, ln: ln, out: out, stop: stop}
}

// A button posts, goes back to the loop's page (303), and the page says once what the
// action said, or its error; the text field's words reach the action; an action that
// does not exist is a 404.
func TestTheButtonsActAndGoBack(t *testing.T) {
	s, ts, src := newTestServer(t)
	c := browser(t)
	_, page := get(t, c, ts.URL+"/loops/main?token="+s.token)
	for _, a := range []string{"pause", "resume", "cancel", "inject", "checkpoint"} {
		if !strings.Contains(page, `action="/loops/main/`+a+`"`) {
			t.Errorf("the loop page has no %s button:\n%s", a, page)
		}
	}
	if n := strings.Count(page, `name="csrf" value="`+s.csrf+`"`); n != 5 {
		t.Errorf("%d forms carry the CSRF token, want 5", n)
	}
	if code := post(t, s, ts, "/loops/main/inject", ts.URL, s.csrf, "text", "use <v2>"); code != http.StatusSeeOther {
		t.Fatalf("inject: %d, want 303", code)
	}
	if strings.Join(src.acted, ",") != "main inject use <v2>" {
		t.Errorf("acted: %q", src.acted)
	}
	_, page = get(t, c, ts.URL+"/loops/main")
	if !strings.Contains(page, `<p class="said" id="said">injectd &lt;ok&gt;</p>`) {
		t.Errorf("the page does not say what the action said:\n%s", page)
	}
	if _, again := get(t, c, ts.URL+"/loops/main"); strings.Contains(again, `id="said"`) {
		t.Errorf("the action's words are shown twice")
	}
	post(t, s, ts, "/loops/main/checkpoint", ts.URL, s.csrf, "text", "<bad>")
	if _, page = get(t, c, ts.URL+"/loops/main"); !strings.Contains(page, `<p class="said error" id="said">error: the label &lt;bad&gt; is not one</p>`) {
		t.Errorf("the page does not say the action's error:\n%s", page)
	}
	if code := post(t, s, ts, "/loops/main/nothing", ts.URL, s.csrf); code != http.StatusNotFound {
		t.Errorf("an action that does not exist: %d, want 404", code)
	}
}
