package notify

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/loop"
)

var at = time.Date(2026, 11, 23, 8, 0, 0, 0, time.UTC)

// The webhook body of a run stopped on a usage limit, field by field (docs/reference/events.md).
func TestRunFinishedBody(t *testing.T) {
	r := loop.Result{Status: loop.StatusLimited, Run: "r-1", Iterations: 2, Elapsed: 90 * time.Second,
		Reason: "usage limit reached\nresets at 14:00."}
	body, err := json.Marshal(RunFinished(Where{Repository: "shop", Loop: "auth"}, r, at))
	if err != nil {
		t.Fatal(err)
	}
	want := `{"source":"git-ralph","event":"run_finished",` +
		`"title":"git-ralph: shop (loop auth) loop stopped on a usage limit",` +
		`"message":"usage limit reached resets at 14:00. 2 iterations in 1m30s, exit code 4.",` +
		`"text":"git-ralph: shop (loop auth) loop stopped on a usage limit\nusage limit reached resets at 14:00. 2 iterations in 1m30s, exit code 4.",` +
		`"repository":"shop","loop":"auth","run":"r-1","status":"limited","cause":"usage_limit",` +
		`"reason":"usage limit reached resets at 14:00","exit_code":4,"iterations":2,"at":"2026-11-23T08:00:00Z"}`
	if string(body) != want {
		t.Errorf("body:\n%s\nwant:\n%s", body, want)
	}
}

// Each way a run ends has its words, and the exit code of that status.
func TestRunFinishedSaysWhy(t *testing.T) {
	tests := []struct {
		r           loop.Result
		title, code string
	}{
		{loop.Result{Status: loop.StatusSuccess, Iterations: 1}, "git-ralph: shop loop finished: the agent signalled SUCCESS", "0"},
		{loop.Result{Status: loop.StatusMaxIters}, "git-ralph: shop loop stopped at its iteration limit", "2"},
		{loop.Result{Status: loop.StatusFatal, Reason: "not logged in"}, "git-ralph: shop loop stopped: the agent cannot run", "1"},
		{loop.Result{Status: loop.StatusInterrupted, Cancelled: true}, "git-ralph: shop loop was cancelled", "130"},
		{loop.Result{Status: loop.StatusAborted, Consecutive: 3}, "git-ralph: shop loop aborted after failures in a row", "1"},
		{loop.Result{Status: loop.StatusAborted, Reason: "git push: rejected"}, "git-ralph: shop loop stopped on an error", "1"},
		{loop.Result{Status: loop.StatusBudget, Reason: "max_cost reached"}, "git-ralph: shop loop stopped: its budget is spent", "5"},
	}
	for _, tt := range tests {
		t.Run(string(tt.r.Status), func(t *testing.T) {
			m := RunFinished(Where{Repository: "shop"}, tt.r, at)
			if m.Title != tt.title || m.ExitCode == nil || !strings.HasSuffix(m.Message, "exit code "+tt.code+".") ||
				m.Cause != tt.r.StopCause() || m.Loop != "" {
				t.Errorf("got %+v", m)
			}
		})
	}
}

// A reason is one short line without secrets: a webhook may be a public service.
func TestReasonIsShortAndRedacted(t *testing.T) {
	secret := "sk-ant-api03-" + strings.Repeat("Ab9", 30)
	m := RunFailed(Where{Repository: "shop"}, errors.New("push failed: token "+secret+"\n"+strings.Repeat("x", 500)), at)
	if strings.Contains(m.Text, secret) || !strings.Contains(m.Reason, "[REDACTED") {
		t.Errorf("secret in the message: %q", m.Reason)
	}
	if len(m.Reason) > reasonMax+len("…") || strings.Contains(m.Reason, "\n") || !strings.HasSuffix(m.Reason, "…") {
		t.Errorf("reason not shortened to one line: %d bytes %q", len(m.Reason), m.Reason)
	}
}

func TestMergeReviewBody(t *testing.T) {
	m := MergeReview(Where{Repository: "shop", Loop: "auth"}, "ralph/auth", "main", "conflict", "a.go, b.go", 8, at)
	if m.Event != EventMergeReview || m.Status != "needs-review" || m.Cause != "conflict" || *m.ExitCode != 8 ||
		m.Message != "ralph/auth conflicts with main (a.go, b.go); main was left as it was." {
		t.Errorf("got %+v", m)
	}
}

// received is what a test webhook got.
type received struct {
	mu     sync.Mutex
	bodies []Message
	header http.Header
}

func hook(t *testing.T, status int, delay time.Duration) (*httptest.Server, *received) {
	t.Helper()
	got := &received{}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		var m Message
		data, _ := io.ReadAll(r.Body)
		if err := json.Unmarshal(data, &m); err != nil {
			t.Errorf("body is not a message: %v: %s", err, data)
		}
		got.mu.Lock()
		got.bodies, got.header = append(got.bodies, m), r.Header.Clone()
		got.mu.Unlock()
		select {
		case <-time.After(delay):
		case <-r.Context().Done():
		}
		w.WriteHeader(status)
		w.Write([]byte("server says no\n"))
	}))
	t.Cleanup(srv.Close)
	return srv, got
}

// A run's end reaches the webhook as JSON, and Close waits for it.
func TestWebhookGetsTheRunsEnd(t *testing.T) {
	srv, got := hook(t, http.StatusOK, 0)
	n := New(Destinations([]string{srv.URL + "/topic"}, nil), Where{Repository: "shop"}, func(f Failure) {
		t.Errorf("failed: %+v", f)
	})
	n.Report(loop.IterationFinished{Iteration: 1})
	n.Report(loop.RunFinished{Result: loop.Result{Status: loop.StatusIdle, Iterations: 3}, At: at})
	n.Close(nil)
	if len(got.bodies) != 1 || got.bodies[0].Status != "idle" || got.bodies[0].Event != EventRunFinished {
		t.Fatalf("webhook got %+v", got.bodies)
	}
	if ct := got.header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q", ct)
	}
	if title := got.header.Get("Title"); title != "git-ralph: shop loop stopped: iterations changed nothing in git" {
		t.Errorf("Title header %q", title)
	}
}

// A webhook that refuses, hangs, is not there or redirects is a failure reported with
// its reason; Close is bounded by the timeout; the URL's path is never shown.
func TestWebhookFailures(t *testing.T) {
	refusing, _ := hook(t, http.StatusInternalServerError, 0)
	hanging, _ := hook(t, http.StatusOK, time.Minute)
	moving, _ := hook(t, http.StatusFound, 0)
	gone := httptest.NewServer(http.NotFoundHandler())
	gone.Close()
	tests := []struct{ url, want string }{
		{refusing.URL + "/secret-path", "HTTP 500 Internal Server Error: server says no"},
		{hanging.URL, "timed out after 300ms"},
		{moving.URL, "HTTP 302 Found: server says no"},
		{gone.URL + "/x", "connection refused"},
	}
	for _, tt := range tests {
		t.Run(tt.want, func(t *testing.T) {
			var failures []Failure
			n := New(Destinations([]string{tt.url}, nil), Where{Repository: "shop"}, func(f Failure) { failures = append(failures, f) }).
				WithTimeout(300 * time.Millisecond)
			start := time.Now()
			n.Failed(errors.New("state unsavable"))
			n.Close(nil)
			if took := time.Since(start); took >= time.Minute { // what the hanging hook takes
				t.Errorf("close took %s: it waited for the hanging hook, past its 300ms bound", took)
			}
			if len(failures) != 1 || !strings.Contains(failures[0].Err.Error(), tt.want) || failures[0].Event != EventRunFailed {
				t.Fatalf("failures %+v, want one saying %q", failures, tt.want)
			}
			if name := failures[0].Destination; strings.Contains(name, "secret") || strings.Contains(failures[0].Err.Error(), "secret") ||
				!strings.HasPrefix(name, "webhook http://127.0.0.1:") {
				t.Errorf("destination named %q: %v", name, failures[0].Err)
			}
		})
	}
}

// A second Ctrl+C abandons a send that hangs.
func TestHurryAbandonsTheSends(t *testing.T) {
	hanging, _ := hook(t, http.StatusOK, time.Minute)
	var failures []Failure
	n := New(Destinations([]string{hanging.URL}, nil), Where{Repository: "shop"}, func(f Failure) { failures = append(failures, f) })
	n.Failed(errors.New("boom"))
	hurry := make(chan struct{})
	close(hurry)
	start := time.Now()
	n.Close(hurry)
	if took := time.Since(start); took >= time.Minute { // what the hanging hook takes
		t.Errorf("close took %s after a second Ctrl+C: it waited for the hanging hook", took)
	}
	if len(failures) != 1 || !strings.Contains(failures[0].Err.Error(), "stop at once") {
		t.Errorf("failures %+v", failures)
	}
	n.Failed(errors.New("after close: dropped"))
}

// desktop runs notify-send with the title and the message as arguments.
func TestDesktopRunsNotifySend(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("macOS uses osascript")
	}
	bin := t.TempDir()
	record := filepath.Join(bin, "args")
	script := "#!/bin/sh\nprintf '%s\\n' \"$@\" > " + record + "\n"
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	m := MergeReview(Where{Repository: "shop"}, "ralph/a", "main", "validation", "make test", 9, at)
	if err := (desktop{}).Send(t.Context(), m); err != nil {
		t.Fatal(err)
	}
	args, _ := os.ReadFile(record)
	if want := "--app-name=git-ralph\n" + m.Title + "\n" + m.Message + "\n"; string(args) != want {
		t.Errorf("notify-send got:\n%s\nwant:\n%s", args, want)
	}
	t.Setenv("PATH", t.TempDir())
	if err := (desktop{}).Send(t.Context(), m); err == nil || !strings.Contains(err.Error(), "no notify-send on PATH") {
		t.Errorf("without notify-send: %v", err)
	}
}

// A message that starts with '-' (a reason that does) reaches notify-send as its text,
// not as an option: GLib reads options after the title too, and "--wait" would hold the
// send until the timeout, "--help" would show nothing at all.
func TestDesktopMessageIsNeverAnOption(t *testing.T) {
	if runtime.GOOS == "darwin" {
		t.Skip("macOS uses osascript")
	}
	bin := t.TempDir()
	if err := os.WriteFile(filepath.Join(bin, "notify-send"), []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin)
	m := RunFailed(Where{Repository: "shop"}, errors.New("--wait for it"), at)
	argv, err := desktopCommand(m)
	if err != nil {
		t.Fatal(err)
	}
	for _, arg := range argv[2:] {
		if strings.HasPrefix(arg, "-") {
			t.Errorf("notify-send would read %q as an option: %q", arg, argv)
		}
	}
	if last := argv[len(argv)-1]; strings.TrimSpace(last) != m.Message {
		t.Errorf("message argument %q, want %q", last, m.Message)
	}
}

// The bell is one BEL byte, and only where there is a terminal to ring.
func TestBell(t *testing.T) {
	var tty bytes.Buffer
	n := New(Destinations([]string{"bell"}, &tty), Where{Repository: "shop"}, func(f Failure) { t.Errorf("failed: %+v", f) })
	n.Report(loop.RunFinished{Result: loop.Result{Status: loop.StatusSuccess}})
	n.Close(nil)
	if tty.String() != "\a" {
		t.Errorf("bell wrote %q", tty.String())
	}
	if ds := Destinations([]string{"bell", "none"}, nil); len(ds) != 0 {
		t.Errorf("no terminal, no destination: got %v", ds)
	}
}

// A run that could not go on reports run_finished (aborted) and then fails: one message,
// not two. A loop that fails before its run starts gets run_failed.
func TestFailedAfterRunFinishedSaysNothingNew(t *testing.T) {
	srv, got := hook(t, http.StatusOK, 0)
	n := New(Destinations([]string{srv.URL}, nil), Where{Repository: "shop"}, func(f Failure) { t.Errorf("failed: %+v", f) })
	n.Report(loop.RunFinished{Result: loop.Result{Status: loop.StatusAborted, Reason: "git failed"}, At: at})
	n.Failed(errors.New("git failed"))
	n.Close(nil)
	if len(got.bodies) != 1 || got.bodies[0].Event != EventRunFinished || got.bodies[0].Cause != "error" {
		t.Errorf("webhook got %+v", got.bodies)
	}
	srv2, got2 := hook(t, http.StatusOK, 0)
	n = New(Destinations([]string{srv2.URL}, nil), Where{Repository: "shop"}, func(f Failure) { t.Errorf("failed: %+v", f) })
	n.Failed(errors.New("reading the state: permission denied"))
	n.Close(nil)
	if len(got2.bodies) != 1 || got2.bodies[0].Event != EventRunFailed || got2.bodies[0].Reason != "reading the state: permission denied" {
		t.Errorf("webhook got %+v", got2.bodies)
	}
}
