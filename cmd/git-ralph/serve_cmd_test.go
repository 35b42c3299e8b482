//go:build linux

package main

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/serve"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/servesource"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
)

// fakeLoop is `git ralph loop` running for real in the scratch repository.
type fakeLoop struct {
	cmd   *exec.Cmd
	ended chan error
}

// startFakeLoop starts a loop whose agent prints a line and waits for the file go before
// it exits; it returns once the first agent has printed its line.
func startFakeLoop(t *testing.T, max string) *fakeLoop {
	t.Helper()
	l := startFakeLoopWith(t, max, `echo "hello from iteration $RALPH_ITERATION"; while [ ! -e go ]; do sleep 0.1; done`)
	waitFor(t, "the agent to run", func() bool {
		out, _ := os.ReadFile(".ralph/history/1/output.log")
		return strings.Contains(string(out), "hello from iteration 1")
	})
	return l
}

// startFakeLoopWith starts the loop with the agent command given ("": the flags name
// the agent) and the flags.
func startFakeLoopWith(t *testing.T, max, agent string, flags ...string) *fakeLoop {
	t.Helper()
	if err := os.WriteFile(".gitignore", []byte("go\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := installSelf(t)
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	args := []string{"loop", "--max", max, "--idle-threshold", "0"}
	if agent != "" { // else the flags name it
		args = append(args, "--agent-cmd", agent)
	}
	cmd := exec.Command("git-ralph", append(args, flags...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	l := &fakeLoop{cmd: cmd, ended: make(chan error, 1)}
	go func() { l.ended <- cmd.Wait() }()
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-l.ended
	})
	return l
}

// wait waits for the loop's end and returns its exit code.
func (l *fakeLoop) wait(t *testing.T) int {
	t.Helper()
	select {
	case <-l.ended:
		l.ended <- nil // for the cleanup
		return l.cmd.ProcessState.ExitCode()
	case <-time.After(30 * time.Second):
		t.Fatal("the loop did not end")
		return -1
	}
}

// dashboard serves the repository's dashboard on a test server and returns a client
// that has been through the printed URL (it holds the cookie) and the server's address.
func dashboard(t *testing.T) (*http.Client, string) {
	t.Helper()
	here, err := launch.RepoRoot(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	srv, err := serve.New(repoSource{Repo: servesource.Repo{Here: here}}, "")
	if err != nil {
		t.Fatal(err)
	}
	ts := httptest.NewUnstartedServer(nil)
	ts.Config.Handler = srv.Handler(ts.Listener.Addr())
	ts.Start()
	t.Cleanup(ts.Close)
	jar, _ := cookiejar.New(nil)
	c := &http.Client{Jar: jar, Transport: &http.Transport{DialContext: dialLocalhost}}
	first := srv.URL(ts.Listener.Addr())
	if code, body := fetch(t, c, first); code != http.StatusOK {
		t.Fatalf("GET %s: %d %s", first, code, body)
	}
	return c, srv.Base(ts.Listener.Addr())
}

// dialLocalhost dials NAME.localhost on loopback, as browsers resolve it (Go's resolver
// asks DNS, which knows no such name).
func dialLocalhost(ctx context.Context, network, addr string) (net.Conn, error) {
	host, port, err := net.SplitHostPort(addr)
	if err == nil && strings.HasSuffix(host, ".localhost") {
		addr = net.JoinHostPort("127.0.0.1", port)
	}
	var d net.Dialer
	return d.DialContext(ctx, network, addr)
}

func fetch(t *testing.T, c *http.Client, u string) (int, string) {
	t.Helper()
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(body)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`)

// press posts the form of the loop page's button as the browser does: with the page's
// CSRF token, from the page's origin; it returns what the page then says.
func press(t *testing.T, c *http.Client, base, action string, form ...string) string {
	t.Helper()
	_, page := fetch(t, c, base+"/loops/main")
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field on the loop's page:\n%s", page)
	}
	values := url.Values{"csrf": {m[1]}}
	for i := 0; i+1 < len(form); i += 2 {
		values.Set(form[i], form[i+1])
	}
	req, _ := http.NewRequest("POST", base+"/loops/main/"+action, strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK || resp.Request.URL.Path != "/loops/main" {
		t.Fatalf("POST %s: %d at %s, want the loop's page\n%s", action, resp.StatusCode, resp.Request.URL, body)
	}
	said := regexp.MustCompile(`id="said">([^<]*)<`).FindStringSubmatch(string(body))
	if said == nil {
		t.Fatalf("POST %s: the page does not say what happened:\n%s", action, body)
	}
	return said[1]
}

// The dashboard's buttons run the commands of their names on a real loop: pause makes
// status say pausing, then paused once the iteration is recorded; inject queues the
// text; checkpoint takes one under the label; cancel ends the paused loop.
func TestServeButtonsSteerARealLoop(t *testing.T) {
	scratchRepo(t)
	loop := startFakeLoop(t, "3")
	c, base := dashboard(t)

	if said := press(t, c, base, "pause"); !strings.Contains(said, "pauses once its current iteration is recorded") {
		t.Errorf("pause said %q", said)
	}
	if st := ralph(t, "status"); !strings.Contains(st, "pausing once its current iteration is recorded") {
		t.Errorf("after Pause, status does not say pausing:\n%s", st)
	}
	if err := os.WriteFile("go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	waitFor(t, "the loop to pause", func() bool { return strings.Contains(ralph(t, "status"), "paused since") })

	if said := press(t, c, base, "inject", "text", "use the v2 API"); !strings.Contains(said, "queued 14 bytes") {
		t.Errorf("inject said %q", said)
	}
	if said := press(t, c, base, "checkpoint", "text", "before-v2"); !strings.Contains(said, "refs/ralph/checkpoints/") {
		t.Errorf("checkpoint said %q", said)
	}
	if list := ralph(t, "checkpoints"); !strings.Contains(list, "before-v2") {
		t.Errorf("the checkpoint is not listed:\n%s", list)
	}
	if said := press(t, c, base, "checkpoint", "text", "1"); !strings.HasPrefix(said, "error: ") || !strings.Contains(said, "hint: ") {
		t.Errorf("a bad label said %q, want its error and hint", said)
	}
	if said := press(t, c, base, "cancel"); said == "" {
		t.Errorf("cancel said nothing")
	}
	if code := loop.wait(t); code != 130 {
		t.Errorf("the cancelled loop exited %d, want 130", code)
	}
}

// repoSource reads a real loop's records: the loop in the runs list, its iterations,
// a saved diff, its latest iteration's log; a loop that does not exist is ErrNotFound.
func TestRepoSourceReadsARealLoop(t *testing.T) {
	scratchRepo(t)
	if err := os.WriteFile("go", nil, 0o644); err != nil {
		t.Fatal(err)
	}
	loop := startFakeLoopWith(t, "2", `echo "line $RALPH_ITERATION" >> notes.txt; echo "wrote line $RALPH_ITERATION"`)
	if code := loop.wait(t); code != 2 {
		t.Fatalf("the loop exited %d, want 2 (max iterations)", code)
	}
	ctx := context.Background()
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src := repoSource{Repo: servesource.Repo{Here: here}}
	runs, err := src.Loops(ctx)
	if err != nil || len(runs) != 1 {
		t.Fatalf("Loops: %v, %v", runs, err)
	}
	if r := runs[0]; r.Name != "main" || r.State != status.StateFinished || r.Iteration != 2 {
		t.Errorf("the loop: %+v", r)
	}
	recs, bad, err := src.Iterations(ctx, "main")
	if err != nil || len(bad) != 0 || len(recs) != 2 || recs[0].Iteration != 1 || recs[1].FilesChanged != 1 {
		t.Fatalf("Iterations: %+v, %v, %v", recs, bad, err)
	}
	diff, cut, err := src.Diff(ctx, "main", 2, 1<<20)
	if err != nil || cut || !strings.Contains(string(diff), "+line 2") {
		t.Errorf("Diff(2): %q, %v, %v", diff, cut, err)
	}
	if diff, cut, _ := src.Diff(ctx, "main", 2, 10); !cut || len(diff) != 10 {
		t.Errorf("Diff(2) within 10 bytes: %q, cut %v", diff, cut)
	}
	read, err := src.Live(ctx, "main")
	if err != nil {
		t.Fatal(err)
	}
	live, err := read()
	if err != nil || live.Iteration != 2 || !strings.HasPrefix(live.State, "not running: the last run stopped (max-iters") {
		t.Errorf("Live: %+v, %v", live, err)
	}
	if out, err := os.ReadFile(live.Path); err != nil || !strings.Contains(string(out), "wrote line 2") {
		t.Errorf("the live log %s: %q, %v", live.Path, out, err)
	}
	if _, _, err := src.Iterations(ctx, "nope"); !errors.Is(err, serve.ErrNotFound) {
		t.Errorf("Iterations of no loop: %v", err)
	}
	if _, _, err := src.Diff(ctx, "main", 9, 10); !errors.Is(err, serve.ErrNotFound) {
		t.Errorf("Diff of no iteration: %v", err)
	}
	if _, err := src.Live(ctx, "nope"); !errors.Is(err, serve.ErrNotFound) {
		t.Errorf("Live of no loop: %v", err)
	}
	if _, err := src.Act(ctx, "main", "explode", ""); !errors.Is(err, serve.ErrNotFound) {
		t.Errorf("Act of no action: %v", err)
	}
}

// A button's POST for a loop that does not exist (an old tab, a name that is a path) is
// a 404 saying so, not a 303 to a page that then 404s, the action's words lost.
func TestServeActOnNoLoopIs404(t *testing.T) {
	scratchRepo(t)
	c, base := dashboard(t)
	_, page := fetch(t, c, base+"/loops/main")
	m := csrfField.FindStringSubmatch(page)
	if m == nil {
		t.Fatalf("no CSRF field on the loop's page:\n%s", page)
	}
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	for _, name := range []string{"nope", "..%2F..%2Fetc", "main%2F.."} {
		req, _ := http.NewRequest("POST", base+"/loops/"+name+"/pause", strings.NewReader(url.Values{"csrf": {m[1]}}.Encode()))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set("Origin", base)
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusNotFound || !strings.Contains(string(body), "no loop named") {
			t.Errorf("POST pause of the loop %s: %d %q, want 404 naming it", name, resp.StatusCode, body)
		}
	}
	if _, err := os.Stat(".git/ralph.pause"); err == nil {
		t.Errorf("a pause was asked of a loop that does not exist")
	}
}

// A saved diff a repository or an agent replaced: a symlink to a secret is not followed,
// a FIFO is not waited on, a 10 GB file is read only up to the limit; none hangs.
func TestRepoSourceDiffOfHostileFiles(t *testing.T) {
	scratchRepo(t)
	ctx := context.Background()
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		t.Fatal(err)
	}
	src := repoSource{Repo: servesource.Repo{Here: here}}
	diff := func(n int) string { return filepath.Join(".ralph", "history", strconv.Itoa(n), "diff.patch") }
	for n := 1; n <= 3; n++ {
		if err := os.MkdirAll(filepath.Dir(diff(n)), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	os.WriteFile("secret", []byte("do not show"), 0o600)
	if err := os.Symlink(filepath.Join(here, "secret"), diff(1)); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Mkfifo(diff(2), 0o644); err != nil {
		t.Fatal(err)
	}
	if f, err := os.Create(diff(3)); err != nil || f.Truncate(10<<30) != nil || f.Close() != nil {
		t.Fatalf("a 10 GB sparse file: %v", err)
	}
	type result struct {
		data []byte
		cut  bool
		err  error
	}
	for n, want := range map[int]string{1: "symlink", 2: "not a regular file", 3: ""} {
		got := make(chan result, 1)
		go func() {
			d, cut, err := src.Diff(ctx, "main", n, 1<<20)
			got <- result{d, cut, err}
		}()
		select {
		case r := <-got:
			switch {
			case want == "" && (r.err != nil || !r.cut || len(r.data) != 1<<20):
				t.Errorf("the 10 GB diff: %d bytes, cut %v, %v; want 1 MiB, cut", len(r.data), r.cut, r.err)
			case want != "" && (r.err == nil || !strings.Contains(r.err.Error(), want) || strings.Contains(string(r.data), "do not show")):
				t.Errorf("diff %d: %q, %v; want an error saying %s", n, r.data, r.err, want)
			}
		case <-time.After(10 * time.Second):
			t.Fatalf("the diff of iteration %d hung", n)
		}
	}
}

// TestTheDashboardIsNamedAfterTheRepository: the name in the pages is the main work
// tree's directory, from a linked worktree too (whose directory is a loop's name).
func TestTheDashboardIsNamedAfterTheRepository(t *testing.T) {
	scratchRepo(t)
	here, _ := os.Getwd()
	wt := filepath.Join(t.TempDir(), "feat")
	if out, err := exec.Command("git", "worktree", "add", "-q", "-b", "feat", wt).CombinedOutput(); err != nil {
		t.Fatalf("git worktree add: %v\n%s", err, out)
	}
	ctx := context.Background()
	if got, want := servesource.Name(ctx, here), filepath.Base(here); got != want {
		t.Errorf("the main work tree's dashboard is named %q, want %q", got, want)
	}
	if got, want := servesource.Name(ctx, wt), filepath.Base(here); got != want {
		t.Errorf("a worktree's dashboard is named %q, want the repository's %q", got, want)
	}
}

// Beyond loopback, serve's certificate is kept in the user's state directory: made (and
// said) on the first start, taken again on the next.
func TestServeKeepsItsCertificateInTheStateDir(t *testing.T) {
	state := t.TempDir()
	t.Setenv("XDG_STATE_HOME", state)
	lan := &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 8080}
	var said strings.Builder
	for start := 1; start <= 2; start++ {
		srv, err := serve.New(repoSource{}, lan.String())
		if err != nil {
			t.Fatal(err)
		}
		said.Reset()
		if err := servesource.SelfSigned(srv, lan, &said); err != nil {
			t.Fatal(err)
		}
		if made := strings.HasPrefix(said.String(), "note: made a self-signed certificate"); made != (start == 1) {
			t.Errorf("start %d said %q", start, said.String())
		}
	}
	if info, err := os.Stat(filepath.Join(state, "git-ralph", "serve", "serve-tls.pem")); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the kept certificate: %v, %v", info, err)
	}
}
