//go:build linux

package main

import (
	"bufio"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
)

// TestDashboardInChromium drives `git ralph serve` in real headless Chromium beside a
// real loop: without the token every page and the event stream are refused; with it the
// list shows the running loop, the loop's page receives the agent's output as it is
// written, Pause pauses the loop (as `git ralph status` says) and the page says so without
// a reload, and a form of another origin cannot post. Screenshots of each page are saved and their paths logged.
func TestDashboardInChromium(t *testing.T) {
	b := startChromium(t)
	scratchRepo(t)
	loop := startFakeLoopWith(t, "3", `printf 'package greet\n\n// Greet says hello.\nfunc Greet(n int) string {\n\tif n > 1 {\n\t\treturn "hello, all"\n\t}\n\treturn "hello"\n}\n' > greet.go; `+
		`echo "hello from iteration $RALPH_ITERATION"; while [ ! -e more ]; do sleep 0.1; done; `+
		`echo "more from iteration $RALPH_ITERATION"; while [ ! -e go ]; do sleep 0.1; done`)
	waitFor(t, "the agent to run", func() bool {
		out, _ := os.ReadFile(".ralph/history/1/output.log")
		return strings.Contains(string(out), "hello from iteration 1")
	})
	base, token := startServe(t)

	for _, p := range []string{"/", "/loops/main", "/loops/main/iterations/1/diff", "/loops/main/live", "/static/live.js"} {
		b.open(base + p)
		if body := b.text("body"); !strings.HasPrefix(body, "401 unauthorized") {
			t.Errorf("%s without the token: %q, want 401", p, body)
		}
	}
	// the event stream, asked by a script of the dashboard's origin without the cookie,
	// fails for good (EventSource closes on a 401 rather than retrying)
	b.eval(`window.__es = new EventSource("/loops/main/live"); window.__got = 0; __es.onmessage = function () { __got++; }; true`)
	b.waitFor("the event stream to be refused", "window.__es.readyState === EventSource.CLOSED && window.__got === 0")
	b.screenshot("without-token")

	b.open(base + "/?token=" + token)
	if got := b.location(); got != base+"/" {
		t.Errorf("after the token, the address bar says %s, want %s/ (the token in a cookie)", got, base)
	}
	b.waitFor("the running loop in the list", `document.querySelector('.card[data-loop="main"] .badge.state').innerText.startsWith("running")`)
	b.screenshot("loops")

	b.click(`a[href="/loops/main"]`)
	b.waitFor("the output so far", `document.getElementById("live").innerText.includes("hello from iteration 1")`)
	if err := os.WriteFile("more", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	b.waitFor("the output written after the page loaded", `document.getElementById("live").innerText.includes("more from iteration 1")`)
	b.waitFor("the loop's state", `document.getElementById("live-state").innerText.startsWith("running (pid")`)
	b.screenshot("live-output")

	// Cancel asks first: declined, nothing is posted (status, below, says paused, not cancelling)
	b.eval(`window.confirm = function (q) { window.__asked = q; return false; }; true`)
	b.eval(`document.getElementById("cancel").click(); true`)
	if asked, _ := b.eval(`window.__asked`).(string); asked != "Cancel the loop main after its current iteration?" {
		t.Errorf("Cancel, declined, asked %q", asked)
	}
	// Pause posts in the background: the page, its live output, stays
	b.eval("window.__same = true") // gone if the page reloads
	b.eval(`document.getElementById("pause").click()`)
	b.waitFor("Pause's answer, without a reload", `window.__same && document.getElementById("live").innerText.includes("more from iteration 1") && `+
		`((document.getElementById("said") || {}).innerText || "").includes("pauses once its current iteration is recorded")`)
	if st := ralph(t, "status"); !strings.Contains(st, "pausing once its current iteration is recorded") {
		t.Errorf("after Pause, status does not say pausing:\n%s", st)
	}
	if err := os.WriteFile("go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "status to say paused", func() bool { return strings.Contains(ralph(t, "status"), "status:          paused since") })
	b.waitFor("the page to say paused", `document.getElementById("live-state").innerText.startsWith("paused since")`)
	b.waitFor("the paused loop's controls: Resume, not Pause", `!document.getElementById("resume").disabled && document.getElementById("pause").disabled && `+
		`document.getElementById("state-badge").innerText === "paused"`)
	b.screenshot("paused")

	// the recorded iteration's diff, coloured
	b.open(base + "/loops/main")
	b.click(`a[href="/loops/main/iterations/1/diff"]`)
	b.waitFor("the diff's colours", `[...document.querySelectorAll("pre.diff .kw")].some(e => e.textContent === "func") && `+
		`document.querySelector("pre.diff .com").textContent === "// Greet says hello."`)
	b.screenshot("diff")

	// a second dashboard (another repository's: another name and port): the first's
	// cookie must survive the second's first visit
	base2, token2 := startServe(t)
	b.open(base2 + "/?token=" + token2)
	b.waitFor("the second dashboard's list", `document.getElementById("repo") !== null`)
	b.open(base + "/loops/main")
	if body := b.text("body"); strings.HasPrefix(body, "401") {
		t.Errorf("the first dashboard, after the second was opened: %q", body)
	}

	// another origin's form, on 127.0.0.1, on localhost and on another name under
	// .localhost: each another site to Chromium, whose SameSite=Strict keeps the cookie back
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprintf(w, `<!DOCTYPE html><form method="post" action="%s/loops/main/cancel"><input name="csrf" value="guess"><button id="go">win a prize</button></form>`, base)
	}))
	defer evil.Close()
	for _, c := range []struct{ origin, refusal string }{
		{evil.URL, "401 unauthorized"},
		{strings.Replace(evil.URL, "127.0.0.1", "localhost", 1), "401 unauthorized"},
		{strings.Replace(evil.URL, "127.0.0.1", "evil.localhost", 1), "401 unauthorized"},
	} {
		b.open(c.origin)
		b.click("#go")
		if body := b.text("body"); !strings.HasPrefix(body, c.refusal) {
			t.Errorf("a form of %s posted: the dashboard answered %q, want %q", c.origin, body, c.refusal)
		}
		b.screenshot("cross-origin")
	}
	if st := ralph(t, "status"); !strings.Contains(st, "paused since") || strings.Contains(st, "cancel") {
		t.Errorf("after the cross-origin posts, the loop is not paused as it was:\n%s", st)
	}
	ralph(t, "cancel")
	if code := loop.wait(t); code != 130 {
		t.Errorf("the loop exited %d after cancel, want 130", code)
	}
}

// TestTheTokenStaysWithTheDashboardInChromium opens the dashboard's printed URL (the
// browser now holds the token's cookie) and then, in the same browser, another local web
// server on another port, as a dev server an agent started would be visited: by
// 127.0.0.1, by localhost and by another name under .localhost. None of them receives
// the cookie: browsers scope a cookie to the host name, not the port, and the dashboard's
// is its own random NAME.localhost. A page of the other server cannot reach the
// dashboard by a name of its own either (DNS rebinding): the host is refused.
func TestTheTokenStaysWithTheDashboardInChromium(t *testing.T) {
	b := startChromium(t)
	scratchRepo(t)
	base, token := startServe(t)
	b.open(base + "/?token=" + token)
	b.waitFor("the dashboard's list", `document.getElementById("repo") !== null`)

	var mu sync.Mutex
	var got, favicon []string // the Cookie headers the other server received, by Host
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		if r.URL.Path == "/" {
			got = append(got, r.Host+": "+r.Header.Get("Cookie"))
		} else {
			favicon = append(favicon, r.Host+": "+r.Header.Get("Cookie"))
		}
		mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "dev_server", Value: "1"})
		fmt.Fprint(w, `<!DOCTYPE html><p id="dev">a dev server</p>`)
	}))
	defer other.Close()
	for _, host := range []string{"127.0.0.1", "localhost", "devserver.localhost"} {
		for range 2 { // the second visit carries whatever the browser keeps for the host
			b.open(strings.Replace(other.URL, "127.0.0.1", host, 1) + "/")
			b.waitFor("the other server's page", `document.getElementById("dev") !== null`)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 6 {
		t.Fatalf("the other server saw %d requests, want 6: %q", len(got), got)
	}
	for _, g := range favicon {
		if strings.Contains(g, "git_ralph") || strings.Contains(g, token) {
			t.Errorf("the other local server received the dashboard's token: %s", g)
		}
	}
	for i, g := range got {
		if strings.Contains(g, "git_ralph") || strings.Contains(g, token) {
			t.Errorf("the other local server received the dashboard's token: %s", g)
		}
		if i%2 == 1 && !strings.Contains(g, "dev_server=1") {
			t.Errorf("the browser sent the other server no cookie of its own on its second visit (%s): the test would see none of ours either", g)
		}
	}
	// the dashboard still answers the browser that holds its cookie
	b.open(base + "/")
	if body := b.text("body"); strings.HasPrefix(body, "401") || strings.HasPrefix(body, "421") {
		t.Errorf("the dashboard after the visits: %q", body)
	}
	// and a name of another site pointing at it (DNS rebinding) is refused: Chromium
	// resolves every NAME.localhost to loopback, so another name reaches its port
	u, _ := url.Parse(base)
	b.open("http://rebound.localhost:" + u.Port() + "/")
	if body := b.text("body"); !strings.HasPrefix(body, "421 misdirected request") {
		t.Errorf("the dashboard by another name: %q, want 421", body)
	}
}

var servingAt = regexp.MustCompile(`^git ralph serve: open (http://git-ralph-[0-9a-f]+\.localhost:[0-9]+)/\?token=([0-9a-f]+)$`)

// startServe runs `git ralph serve` in the work tree and returns its address and token;
// the test's end stops it with SIGINT, as Ctrl+C does, and checks it said so.
func startServe(t *testing.T) (base, token string) {
	t.Helper()
	return startServeWith(t, servingAt)
}

// startServeWith runs `git ralph serve` with the flags, as startServe does, and reads its
// address and token in the line said matches.
func startServeWith(t *testing.T, said *regexp.Regexp, flags ...string) (base, token string) {
	t.Helper()
	cmd := exec.Command("git-ralph", append([]string{"serve"}, flags...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr testio.Buffer
	cmd.Stderr = &stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var lines []string
	found := make(chan []string, 1)
	read := make(chan struct{})
	go func() {
		defer close(read)
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			mu.Lock()
			lines = append(lines, sc.Text())
			mu.Unlock()
			if m := said.FindStringSubmatch(sc.Text()); m != nil {
				found <- m
			}
		}
	}()
	t.Cleanup(func() {
		syscall.Kill(cmd.Process.Pid, syscall.SIGINT)
		stopped := make(chan error, 1)
		go func() { <-read; stopped <- cmd.Wait() }()
		select {
		case err := <-stopped:
			mu.Lock()
			defer mu.Unlock()
			if err != nil || lines[len(lines)-1] != "git ralph serve: stopped" {
				t.Errorf("serve after Ctrl+C: %v, said %q", err, lines)
			}
		case <-time.After(5 * time.Second):
			syscall.Kill(cmd.Process.Pid, syscall.SIGQUIT)
			time.Sleep(time.Second)
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			t.Errorf("serve did not stop within 5 s of Ctrl+C, with a page open:\n%s", stderr.String())
		}
	})
	select {
	case m := <-found:
		return m[1], m[2]
	case <-time.After(30 * time.Second):
		t.Fatal("serve printed no URL within 30 s")
		return "", ""
	}
}
