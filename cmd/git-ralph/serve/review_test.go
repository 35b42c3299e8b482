package serve

import (
	"context"
	"errors"
	"io"
	"log"
	"net"
	"net/http"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
)

// Browsers do not scope cookies by port: two dashboards on 127.0.0.1 (two repositories
// served at once) share one cookie jar, and one's cookie must not replace the other's.
func TestTwoDashboardsOnOneHostKeepTheirCookies(t *testing.T) {
	a, tsA, _ := newTestServer(t)
	b, tsB, _ := newTestServer(t)
	c := browser(t) // Go's cookie jar, as a browser's, ignores the port
	if code, _ := get(t, c, tsA.URL+"/?token="+a.token); code != http.StatusOK {
		t.Fatalf("first dashboard: %d", code)
	}
	if code, _ := get(t, c, tsB.URL+"/?token="+b.token); code != http.StatusOK {
		t.Fatalf("second dashboard: %d", code)
	}
	for name, u := range map[string]string{"first": tsA.URL, "second": tsB.URL} {
		if code, body := get(t, c, u+"/"); code != http.StatusOK {
			t.Errorf("the %s dashboard, after both were opened: %d %s", name, code, strings.TrimSpace(body))
		}
	}
}

// panicSource panics on every page, as a bug in reading a hostile repository might.
type panicSource struct{ fakeSource }

func (*panicSource) Loops(context.Context) ([]status.Run, error) { panic("a bug in reading the loops") }

// A panic in a handler answers 500 with its words and prints one line, never a stack
// trace on the terminal serve runs in (net/http's default prints one through the log).
func TestAPanicIsA500NotAStackTrace(t *testing.T) {
	var logged syncBuffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	s, err := New(&panicSource{})
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen("")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var out syncBuffer
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, &out) }()
	defer func() { cancel(); <-done }()
	c := browser(t)
	resp, err := c.Get(s.URL(ln.Addr()))
	if err != nil {
		t.Fatalf("GET with a panicking page: %v (want a 500)", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "a bug in reading the loops") {
		t.Errorf("a panicking page: %d %q, want a 500 naming the panic", resp.StatusCode, body)
	}
	printed := logged.String() + out.String()
	if strings.Contains(printed, "goroutine") || strings.Contains(printed, ".go:") {
		t.Errorf("a panic printed a stack trace:\n%s", printed)
	}
	if !strings.Contains(out.String(), "error: GET /: a bug in reading the loops") {
		t.Errorf("serve's output does not name the panic in one line:\n%s", out.String())
	}
}

// A connection the server accepted just as it stopped is announced (StateNew) after the
// fresh connections were closed: it must be closed too, or Shutdown waits 5 s on it (the
// stop test failed so one run in four under -race).
func TestAConnectionAcceptedDuringTheStopIsClosed(t *testing.T) {
	f := &freshConns{}
	f.close()
	server, client := net.Pipe()
	defer client.Close()
	f.track(server, http.StateNew)
	server.SetReadDeadline(time.Now().Add(time.Second))
	if _, err := server.Read(make([]byte, 1)); !errors.Is(err, io.ErrClosedPipe) {
		t.Errorf("a connection announced after the stop is still open (read: %v)", err)
	}
}
