package serve

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// sse reads server-sent events, one "event name: data" string each ("message" unnamed).
func sse(t *testing.T, c *http.Client, u string) (events <-chan string, stop func()) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "GET", u, nil)
	resp, err := c.Do(req)
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		cancel()
		t.Fatalf("GET %s: %d %s", u, resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	ch := make(chan string, 100)
	go func() {
		defer close(ch)
		defer resp.Body.Close()
		sc := bufio.NewScanner(resp.Body)
		name := "message"
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				name = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				ch <- name + ": " + strings.TrimPrefix(line, "data: ")
				name = "message"
			}
		}
	}()
	return ch, cancel
}

// expect waits for the events wanted, in order, skipping others.
func expect(t *testing.T, events <-chan string, want ...string) {
	t.Helper()
	timeout := time.After(10 * time.Second)
	for _, w := range want {
		for found := false; !found; {
			select {
			case e, ok := <-events:
				if !ok {
					t.Fatalf("the stream ended before %q", w)
				}
				found = e == w
			case <-timeout:
				t.Fatalf("no %q within 10 s", w)
			}
		}
	}
}

// The stream sends the loop's state, the latest iteration's log as it grows (rendered,
// whole lines only), and starts again from a new iteration's log.
func TestTheLiveOutputStreams(t *testing.T) {
	s, ts, src := newTestServer(t)
	dir := t.TempDir()
	one, two := filepath.Join(dir, "1.log"), filepath.Join(dir, "2.log")
	writeFile(t, one, "hello <b>\npart")
	src.setLive(LiveLog{State: "running (pid 7)", Iteration: 1, Path: one, Format: agentcli.Text})
	c := browser(t)
	get(t, c, ts.URL+"/?token="+s.token)
	events, stop := sse(t, c, ts.URL+"/loops/main/live")
	defer stop()
	expect(t, events, "state: running (pid 7)", "iteration: 1", "message: hello <b>")
	writeFile(t, one, "hello <b>\npart of a line\nnext\n")
	expect(t, events, "message: part of a line", "message: next")

	writeFile(t, two, "second\n")
	src.setLive(LiveLog{State: "paused since now", Iteration: 2, Path: two, Format: agentcli.Text})
	expect(t, events, "state: paused since now", "iteration: 2", "message: second")
}

// A loop that does not exist is a 404, not an empty stream.
func TestTheLiveOutputOfNoLoop(t *testing.T) {
	s, ts, _ := newTestServer(t)
	c := browser(t)
	get(t, c, ts.URL+"/?token="+s.token)
	if code, _ := get(t, c, ts.URL+"/loops/other/live"); code != http.StatusNotFound {
		t.Errorf("the live output of no loop: %d, want 404", code)
	}
}

// The loop's page holds the live output's place and loads the script from our origin.
func TestTheLoopPageHasTheLiveOutput(t *testing.T) {
	s, ts, _ := newTestServer(t)
	_, body := get(t, browser(t), ts.URL+"/loops/main?token="+s.token)
	for _, want := range []string{`id="live" data-src="/loops/main/live"`, `<script src="/static/live.js" defer></script>`} {
		if !strings.Contains(body, want) {
			t.Errorf("the loop page lacks %q:\n%s", want, body)
		}
	}
}

func writeFile(t *testing.T, path, text string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}
