package serve

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/internal/testio"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// panicSource panics on every page, as a bug in reading a hostile repository might.
type panicSource struct{ fakeSource }

func (*panicSource) Loops(context.Context) ([]status.Run, error) {
	panic("a bug in reading the loops\x1b[2J")
}

// A panic in a handler answers 500 with its words and prints one line, never a stack
// trace on the terminal serve runs in (net/http's default prints one through the log).
func TestAPanicIsA500NotAStackTrace(t *testing.T) {
	var logged testio.Buffer
	log.SetOutput(&logged)
	t.Cleanup(func() { log.SetOutput(os.Stderr) })
	r := serveForTest(t, &panicSource{})
	c := browser(t)
	resp, err := c.Get(r.s.URL(r.ln.Addr()))
	if err != nil {
		t.Fatalf("GET with a panicking page: %v (want a 500)", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusInternalServerError || !strings.Contains(string(body), "a bug in reading the loops") {
		t.Errorf("a panicking page: %d %q, want a 500 naming the panic", resp.StatusCode, body)
	}
	out := r.out.String()
	printed := logged.String() + out
	if strings.Contains(printed, "goroutine") || strings.Contains(printed, ".go:") {
		t.Errorf("a panic printed a stack trace:\n%s", printed)
	}
	if strings.Contains(out, "\x1b") {
		t.Errorf("a control character of the panic reached the terminal: %q", out)
	}
	if !strings.Contains(out, "error: GET /: ") || !strings.Contains(out, "a bug in reading the loops") {
		t.Errorf("serve's output does not name the panic in one line:\n%s", out)
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

// rawGet sends a GET with the token's cookie on a connection of its own, which it
// returns unread.
func (r *running) rawGet(t *testing.T, path string) net.Conn {
	t.Helper()
	conn, err := net.Dial("tcp", r.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	port := r.ln.Addr().(*net.TCPAddr).Port
	host := strings.TrimPrefix(r.s.Base(r.ln.Addr()), "http://")
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nCookie: %s%d=%s\r\n\r\n", path, host, cookiePrefix, port, r.s.token)
	return conn
}

// A browser tab that stops reading the live stream (frozen, or a local program that
// opened it and never reads) must not hold the server's goroutine in a write forever:
// the stream gives up once a write waits too long, and a stop is not held by it.
func TestALiveStreamNobodyReadsEnds(t *testing.T) {
	defer func(tick, wait time.Duration) { liveTick, liveWriteWait = tick, wait }(liveTick, liveWriteWait)
	liveTick, liveWriteWait = time.Millisecond, 300*time.Millisecond
	src := &fakeSource{}
	log := filepath.Join(t.TempDir(), "output.log")
	writeFile(t, log, "")
	src.setLive(LiveLog{State: "running", Iteration: 1, Path: log, Format: agentcli.Text})
	// the agent writes fast, for as long as the test runs
	writing := make(chan struct{})
	go func() {
		f, _ := os.OpenFile(log, os.O_APPEND|os.O_WRONLY, 0)
		defer f.Close()
		chunk := []byte(strings.Repeat(strings.Repeat("x", 1023)+"\n", 64))
		for {
			select {
			case <-writing:
				return
			default:
			}
			f.Write(chunk)
			time.Sleep(time.Millisecond)
		}
	}()
	defer close(writing)
	r := serveForTest(t, src)
	r.rawGet(t, "/loops/main/live") // and never read
	time.Sleep(3 * time.Second)     // the socket's buffers fill, the writes block
	if err := r.stop(); err != nil {
		t.Errorf("stopping with a stream nobody reads: %v", err)
	}
}

// bigDiffSource's diff is half what a page shows, of a file not coloured and all of it
// escaped: its page is some 8 MB of HTML, more than the sockets' buffers take (4 MB
// sent, 128 KiB received on Linux when nobody reads).
type bigDiffSource struct{ fakeSource }

func (*bigDiffSource) Diff(context.Context, string, int, int64) ([]byte, bool, error) {
	line := "+" + strings.Repeat("<", 4095) + "\n"
	return []byte("diff --git a/x.txt b/x.txt\n@@ -1 +1 @@\n" + strings.Repeat(line, diffLimit/2/len(line))), true, nil
}

// A page nobody reads does not hold its goroutine (and the stop) forever either.
func TestAPageNobodyReadsEnds(t *testing.T) {
	defer func(wait time.Duration) { pageWriteWait = wait }(pageWriteWait)
	pageWriteWait = 300 * time.Millisecond
	r := serveForTest(t, &bigDiffSource{})
	// the page is made before it is written: as long again as it takes here (seconds
	// under -race), then time for its writing to block and give up
	d, _, _ := (&bigDiffSource{}).Diff(context.Background(), "main", 1, diffLimit)
	start := time.Now()
	diffHTML(diffLines(string(d)))
	making := time.Since(start)
	r.rawGet(t, "/loops/main/iterations/1/diff") // and never read
	time.Sleep(making + 2*time.Second)
	if err := r.stop(); err != nil {
		t.Errorf("stopping with a page nobody reads: %v", err)
	}
}

// A connection left open after its request (keep-alive) is closed after a while: a
// local program cannot hold thousands of them open for nothing.
func TestAnIdleConnectionIsClosed(t *testing.T) {
	defer func(idle time.Duration) { connIdle = idle }(connIdle)
	connIdle = 200 * time.Millisecond
	r := serveForTest(t, &fakeSource{})
	conn := r.rawGet(t, "/static/style.css")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /static/style.css: %d", resp.StatusCode)
	}
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	if _, err := conn.Read(make([]byte, 1)); !errors.Is(err, io.EOF) {
		t.Errorf("an idle connection is still open after 3 s (read: %v)", err)
	}
}

// A connection that sends its headers a byte at a time (slowloris) is closed once the
// headers' time is up, before any token is looked at.
func TestSlowHeadersAreCutOff(t *testing.T) {
	defer func(wait time.Duration) { headerWait = wait }(headerWait)
	headerWait = 300 * time.Millisecond
	r := serveForTest(t, &fakeSource{})
	conn, err := net.Dial("tcp", r.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	start := time.Now()
	var werr error
	for _, b := range []byte("GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ") {
		if _, werr = conn.Write([]byte{b}); werr != nil {
			break
		}
		time.Sleep(50 * time.Millisecond)
	}
	conn.SetReadDeadline(time.Now().Add(3 * time.Second))
	_, rerr := conn.Read(make([]byte, 512))
	if werr == nil && rerr != nil && errors.Is(rerr, os.ErrDeadlineExceeded) {
		t.Errorf("a slowloris connection was still open after %v", time.Since(start))
	}
}

// slowSource takes its time to act and to list, as a checkpoint of a big work tree or
// the loops of a big repository may.
type slowSource struct {
	fakeSource
	took time.Duration
}

func (s *slowSource) Act(ctx context.Context, loop, action, text string) (string, error) {
	time.Sleep(s.took)
	return s.fakeSource.Act(ctx, loop, action, text)
}

func (s *slowSource) Loops(ctx context.Context) ([]status.Run, error) {
	time.Sleep(s.took)
	return s.fakeSource.Loops(ctx)
}

// The bound on a page's writing counts from when it is written, not from its request:
// an action or a listing that takes longer still answers.
func TestASlowActionStillAnswers(t *testing.T) {
	defer func(wait time.Duration) { pageWriteWait = wait }(pageWriteWait)
	pageWriteWait = 300 * time.Millisecond
	src := &slowSource{took: 600 * time.Millisecond}
	r := serveForTest(t, src)
	base := r.s.Base(r.ln.Addr())
	c := browser(t)
	if code, body := get(t, c, r.s.URL(r.ln.Addr())); code != http.StatusOK || !strings.Contains(body, "main") {
		t.Errorf("a slow loops page: %d %q", code, body)
	}
	values := url.Values{"csrf": {r.s.csrf}}
	req, _ := http.NewRequest("POST", base+"/loops/main/checkpoint", strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Do(req)
	if err != nil {
		t.Fatalf("a slow action: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther {
		t.Errorf("a slow action: %d, want 303", resp.StatusCode)
	}
}
