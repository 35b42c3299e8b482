//go:build linux

package main

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"syscall"
	"testing"
	"time"
)

// A headless Chromium driven over the DevTools protocol, for the dashboard's tests. The
// protocol is JSON over a WebSocket; the few frames it needs are written here rather
// than bringing in a browser-automation module for tests alone.

// chromium is one headless browser of the test's, with one page.
type chromium struct {
	t    *testing.T
	page *devtools
	shot string // where screenshots go
	n    int    // screenshots taken
}

// startChromium starts Debian's chromium headless on a profile of the test's and
// connects to its page. Without chromium the test fails (CI installs it), unless
// RALPH_BROWSER=skip. -short skips it: a contributor's quick run needs no browser.
func startChromium(t *testing.T, flags ...string) *chromium {
	t.Helper()
	if testing.Short() {
		t.Skip("-short: the dashboard's browser tests need headless Chromium; go test without -short runs them")
	}
	exe, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("RALPH_BROWSER") == "skip" {
			t.Skip("chromium is not installed and RALPH_BROWSER=skip: the dashboard's browser tests are skipped")
		}
		t.Fatal("chromium is not installed: the dashboard is tested in headless Chromium (apt-get install chromium; .ci/run installs it), or set RALPH_BROWSER=skip")
	}
	// --no-sandbox: a test machine or container often runs as root or without user
	// namespaces, where Chromium's sandbox cannot start; the pages are the test's own.
	cmd := exec.Command(exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--no-default-browser-check", "--window-size=1200,800",
		"--remote-debugging-address=127.0.0.1", "--remote-debugging-port=0",
		"--user-data-dir="+t.TempDir())
	cmd.Args = append(append(cmd.Args, flags...), "about:blank")
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // the browser and its helpers
		cmd.Wait()
	})
	endpoint := devToolsEndpoint(t, stderr)
	page := connectPage(t, endpoint)
	shots, err := os.MkdirTemp("", "git-ralph-serve-screenshots-")
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshots of the dashboard go to %s", shots)
	b := &chromium{t: t, page: page, shot: shots}
	b.call("Page.enable", nil)
	return b
}

var devToolsLine = regexp.MustCompile(`DevTools listening on ws://([0-9.:]+)/`)

// devToolsEndpoint reads the browser's stderr for the host:port it listens on, and
// keeps draining it so that the browser never blocks on a full pipe.
func devToolsEndpoint(t *testing.T, stderr io.Reader) string {
	t.Helper()
	found := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			if m := devToolsLine.FindStringSubmatch(sc.Text()); m != nil {
				select {
				case found <- m[1]:
				default:
				}
			}
		}
	}()
	select {
	case hostport := <-found:
		return hostport
	case <-time.After(60 * time.Second):
		t.Fatal("chromium did not say where its DevTools listen within 60 s")
		return ""
	}
}

// connectPage finds the browser's page target and opens its WebSocket.
func connectPage(t *testing.T, hostport string) *devtools {
	t.Helper()
	var targets []struct{ Type, URL, WebSocketDebuggerURL string }
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(100 * time.Millisecond) {
		resp, err := http.Get("http://" + hostport + "/json/list")
		if err == nil {
			err = json.NewDecoder(resp.Body).Decode(&targets)
			resp.Body.Close()
		}
		for _, tg := range targets {
			if tg.Type == "page" && tg.URL == "about:blank" {
				d, err := dialDevtools(tg.WebSocketDebuggerURL)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { d.conn.Close() })
				return d
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no page target in chromium: %v %v", targets, err)
		}
	}
}

// call sends one DevTools command and returns its result.
func (b *chromium) call(method string, params any) json.RawMessage {
	b.t.Helper()
	res, err := b.page.call(method, params)
	if err != nil {
		b.t.Fatalf("%s: %v", method, err)
	}
	return res
}

// eval runs a JavaScript expression in the page and returns its value.
func (b *chromium) eval(expr string) any {
	b.t.Helper()
	v, err := b.tryEval(expr)
	if err != nil {
		b.t.Fatalf("evaluating %s: %v", expr, err)
	}
	return v
}

func (b *chromium) tryEval(expr string) (any, error) {
	res, err := b.page.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true})
	if err != nil {
		return nil, err
	}
	var out struct {
		Result           struct{ Value any }
		ExceptionDetails *struct{ Text string }
	}
	if err := json.Unmarshal(res, &out); err != nil {
		return nil, err
	}
	if out.ExceptionDetails != nil {
		return nil, errors.New(out.ExceptionDetails.Text)
	}
	return out.Result.Value, nil
}

// open loads u and waits until the page it ends on (after redirects) has loaded.
func (b *chromium) open(u string) {
	b.t.Helper()
	b.leaving()
	b.call("Page.navigate", map[string]any{"url": u})
	b.loaded()
}

// click clicks the element and, when it leaves the page (a form's button), waits for
// the next one to load.
func (b *chromium) click(selector string) {
	b.t.Helper()
	b.leaving()
	b.eval(fmt.Sprintf("document.querySelector(%q).click()", selector))
	b.loaded()
}

// leaving marks the page, so that loaded can tell the next one from it.
func (b *chromium) leaving() { b.tryEval("window.__leaving = true") }

// loaded waits for a page without leaving's mark that has loaded.
func (b *chromium) loaded() {
	b.t.Helper()
	b.waitFor("the page to load", "!window.__leaving && document.readyState === 'complete'")
}

// waitFor waits until the expression is true in the page.
func (b *chromium) waitFor(what, expr string) {
	b.t.Helper()
	for deadline := time.Now().Add(30 * time.Second); time.Now().Before(deadline); time.Sleep(100 * time.Millisecond) {
		if v, err := b.tryEval(expr); err == nil && v == true {
			return
		}
	}
	b.t.Fatalf("timed out waiting for %s (%s); the page:\n%s", what, expr, b.text("body"))
}

// text is the text of the first element the selector finds; "" when none.
func (b *chromium) text(selector string) string {
	v, _ := b.tryEval(fmt.Sprintf("(document.querySelector(%q) || {}).innerText || ''", selector))
	s, _ := v.(string)
	return s
}

// location is the page's address.
func (b *chromium) location() string {
	s, _ := b.eval("location.href").(string)
	return s
}

// screenshot saves the page as NAME.png among the test's screenshots and logs where.
func (b *chromium) screenshot(name string) {
	b.t.Helper()
	res := b.call("Page.captureScreenshot", map[string]any{"format": "png"})
	var shot struct{ Data string }
	if err := json.Unmarshal(res, &shot); err != nil {
		b.t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	b.n++
	path := filepath.Join(b.shot, fmt.Sprintf("%02d-%s.png", b.n, name))
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}

// devtools is a DevTools protocol connection: commands with ids, answered in order
// among events (which it drops: the tests poll the page instead).
type devtools struct {
	conn net.Conn
	r    *bufio.Reader
	id   int
}

// dialDevtools opens the WebSocket (RFC 6455) at the ws:// URL.
func dialDevtools(wsURL string) (*devtools, error) {
	u, err := url.Parse(wsURL)
	if err != nil {
		return nil, err
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		return nil, err
	}
	key := make([]byte, 16)
	rand.Read(key)
	fmt.Fprintf(conn, "GET %s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\n\r\n",
		u.RequestURI(), u.Host, base64.StdEncoding.EncodeToString(key))
	r := bufio.NewReader(conn)
	resp, err := http.ReadResponse(r, nil)
	if err != nil {
		conn.Close()
		return nil, err
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		conn.Close()
		return nil, fmt.Errorf("the DevTools WebSocket answered %s", resp.Status)
	}
	return &devtools{conn: conn, r: r}, nil
}

func (d *devtools) call(method string, params any) (json.RawMessage, error) {
	d.id++
	msg, err := json.Marshal(map[string]any{"id": d.id, "method": method, "params": params})
	if err != nil {
		return nil, err
	}
	d.conn.SetDeadline(time.Now().Add(30 * time.Second))
	if err := d.send(msg); err != nil {
		return nil, err
	}
	for {
		data, err := d.receive()
		if err != nil {
			return nil, err
		}
		var answer struct {
			ID     int
			Result json.RawMessage
			Error  *struct{ Message string }
		}
		if err := json.Unmarshal(data, &answer); err != nil {
			return nil, err
		}
		if answer.ID != d.id {
			continue // an event
		}
		if answer.Error != nil {
			return nil, errors.New(answer.Error.Message)
		}
		return answer.Result, nil
	}
}

// send writes one text frame, masked as a client's must be.
func (d *devtools) send(payload []byte) error {
	header := []byte{0x81} // FIN, text
	switch n := len(payload); {
	case n < 126:
		header = append(header, 0x80|byte(n))
	case n <= 0xffff:
		header = append(header, 0x80|126)
		header = binary.BigEndian.AppendUint16(header, uint16(n))
	default:
		header = append(header, 0x80|127)
		header = binary.BigEndian.AppendUint64(header, uint64(n))
	}
	mask := make([]byte, 4)
	rand.Read(mask)
	header = append(header, mask...)
	masked := make([]byte, len(payload))
	for i, c := range payload {
		masked[i] = c ^ mask[i%4]
	}
	_, err := d.conn.Write(append(header, masked...))
	return err
}

// receive reads one message, joining its fragments and answering pings.
func (d *devtools) receive() ([]byte, error) {
	var msg []byte
	for {
		fin, op, payload, err := d.frame()
		if err != nil {
			return nil, err
		}
		switch op {
		case 0x8:
			return nil, errors.New("the browser closed the DevTools connection")
		case 0x9:
			if err := d.pong(payload); err != nil {
				return nil, err
			}
			continue
		case 0xa:
			continue
		}
		msg = append(msg, payload...)
		if fin {
			return msg, nil
		}
	}
}

// frame reads one frame (a server's are not masked).
func (d *devtools) frame() (fin bool, op byte, payload []byte, err error) {
	var h [2]byte
	if _, err = io.ReadFull(d.r, h[:]); err != nil {
		return
	}
	fin, op = h[0]&0x80 != 0, h[0]&0x0f
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		_, err = io.ReadFull(d.r, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		_, err = io.ReadFull(d.r, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	if err != nil {
		return
	}
	if n > 64<<20 {
		return false, 0, nil, fmt.Errorf("a DevTools frame of %d bytes", n)
	}
	payload = make([]byte, n)
	_, err = io.ReadFull(d.r, payload)
	return
}

func (d *devtools) pong(payload []byte) error {
	mask := make([]byte, 4)
	rand.Read(mask)
	frame := append([]byte{0x8a, 0x80 | byte(len(payload))}, mask...)
	for i, c := range payload {
		frame = append(frame, c^mask[i%4])
	}
	_, err := d.conn.Write(frame)
	return err
}
