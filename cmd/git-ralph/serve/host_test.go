package serve

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
)

// getAs sends a GET to the test server with the Host header host, the token in the query
// and the token's cookie, as a page of a site that points its own name at this machine
// (DNS rebinding) would if it had them both.
func getAs(t *testing.T, s *Server, addr net.Addr, host, path string) (*http.Response, string) {
	t.Helper()
	req, err := http.NewRequest("GET", "http://"+addr.String()+path, nil)
	if err != nil {
		t.Fatal(err)
	}
	req.Host = host
	req.AddCookie(&http.Cookie{Name: cookiePrefix + fmt.Sprint(addr.(*net.TCPAddr).Port), Value: s.token})
	c := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	return resp, string(body)
}

// A request whose Host is not the dashboard's is refused, the token and cookie
// notwithstanding: a rebinding site's name, 127.0.0.1 and localhost (whose cookie every
// local server would receive), another .localhost name, its own name on another port.
// Nothing is set and the refusal does not name the dashboard's host.
func TestAForeignHostIsRefused(t *testing.T) {
	s, ts, src := newTestServer(t)
	addr := ts.Listener.Addr()
	port := fmt.Sprint(addr.(*net.TCPAddr).Port)
	for _, host := range []string{"evil.example:" + port, "evil.example", "127.0.0.1:" + port, "localhost:" + port,
		"other.localhost:" + port, s.name + ":1", "[::1]:" + port, "0.0.0.0:" + port, s.name + ".evil.example:" + port} {
		for _, path := range []string{"/", "/?token=" + s.token, "/loops/main/iterations/1/diff"} {
			resp, body := getAs(t, s, addr, host, path)
			if resp.StatusCode != http.StatusMisdirectedRequest {
				t.Errorf("Host %s, GET %s: %d, want 421", host, path, resp.StatusCode)
			}
			if c := resp.Header.Get("Set-Cookie"); c != "" {
				t.Errorf("Host %s, GET %s set a cookie: %s", host, path, c)
			}
			if strings.Contains(body, "main") || strings.Contains(body, s.name) || strings.Contains(body, "diff") {
				t.Errorf("Host %s, GET %s: the answer tells too much: %q", host, path, body)
			}
		}
	}
	// its own name answers, in any case of letters
	for _, host := range []string{s.name + ":" + port, strings.ToUpper(s.name) + ":" + port} {
		if resp, body := getAs(t, s, addr, host, "/"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "main") {
			t.Errorf("Host %s: %d %q, want the loops page", host, resp.StatusCode, body)
		}
	}
	if len(src.acted) != 0 {
		t.Errorf("acted: %v", src.acted)
	}
}

// The token's cookie is set for the dashboard's own name, never for 127.0.0.1.
func TestTheCookieBelongsToTheDashboardsName(t *testing.T) {
	s, ts, _ := newTestServer(t)
	if !strings.HasPrefix(ts.URL, "http://git-ralph-") || !strings.HasSuffix(strings.Split(ts.URL, ":")[1], ".localhost") {
		t.Fatalf("the dashboard's address %s is not its own .localhost name", ts.URL)
	}
	other, err := New(&fakeSource{}, "")
	if err != nil {
		t.Fatal(err)
	}
	if other.name == s.name {
		t.Errorf("two dashboards share the name %s", s.name)
	}
	resp, _ := getAs(t, s, ts.Listener.Addr(), strings.TrimPrefix(ts.URL, "http://"), "/?token="+s.token)
	c := resp.Header.Get("Set-Cookie")
	if resp.StatusCode != http.StatusSeeOther || !strings.HasPrefix(c, cookiePrefix) || strings.Contains(strings.ToLower(c), "domain=") {
		t.Errorf("the first visit: %d, Set-Cookie %q, want a host-only cookie", resp.StatusCode, c)
	}
}

// Which hosts a dashboard answers to, by where it listens.
func TestTheHostsItAnswersTo(t *testing.T) {
	const name = "git-ralph-00112233445566778899.localhost"
	loop := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080}
	lan := &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 8080}
	every := &net.TCPAddr{IP: net.IPv4zero, Port: 8080}
	every6 := &net.TCPAddr{IP: net.IPv6unspecified, Port: 8080}
	for _, c := range []struct {
		addr     net.Addr
		given    string
		yes, not []string
	}{
		{loop, "", []string{name + ":8080"}, []string{"127.0.0.1:8080", "localhost:8080", "192.168.1.5:8080", name + ":8081", "evil.example:8080"}},
		{loop, "localhost:8080", []string{name + ":8080"}, []string{"localhost:8080", "127.0.0.1:8080"}},
		{lan, "", []string{"192.168.1.5:8080", name + ":8080"}, []string{"192.168.1.6:8080", "127.0.0.1:8080", "evil.example:8080", "192.168.1.5:8081"}},
		{lan, "Box.lan:8080", []string{"box.lan:8080", "192.168.1.5:8080"}, []string{"evil.example:8080", "localhost:8080"}},
		{every, ":8080", []string{name + ":8080", "192.168.1.5:8080", "10.0.0.2:8080", "[fe80::1]:8080"},
			[]string{"127.0.0.1:8080", "[::1]:8080", "localhost:8080", "0.0.0.0:8080", "evil.example:8080", "192.168.1.5:8081"}},
		{every6, "[::]:8080", []string{name + ":8080", "[2001:db8::1]:8080"}, []string{"[::1]:8080", "evil.example:8080"}},
	} {
		h := hostsFor(name, c.addr, c.given)
		for _, host := range c.yes {
			if !h.answers(host) {
				t.Errorf("listening at %s (--addr %q): Host %s refused", c.addr, c.given, host)
			}
		}
		for _, host := range c.not {
			if h.answers(host) {
				t.Errorf("listening at %s (--addr %q): Host %s answered", c.addr, c.given, host)
			}
		}
	}
	// the printed address is one it answers to
	s := &Server{name: name, given: "box.lan:8080", token: "t"}
	for addr, want := range map[*net.TCPAddr]string{loop: "http://" + name + ":8080", lan: "http://box.lan:8080", every: "http://" + name + ":8080"} {
		if got := s.Base(addr); got != want {
			t.Errorf("listening at %s: the address is %s, want %s", addr, got, want)
		}
	}
}

// On every interface (--addr :PORT) the dashboard prints its own name's URL for this
// machine and says how other machines open it: by an address of this one, which it
// answers to; loopback's it still refuses.
func TestOnEveryInterfaceOtherMachinesUseAnAddress(t *testing.T) {
	s, err := New(&fakeSource{}, ":0")
	if err != nil {
		t.Fatal(err)
	}
	ln, err := Listen(":0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	out := &testio.Buffer{}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, out) }()
	defer func() { cancel(); <-done }()
	port := fmt.Sprint(ln.Addr().(*net.TCPAddr).Port)
	want := "from another machine: http://ADDRESS:" + port + "/?token=" + s.token
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), want) && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if o := out.String(); !strings.Contains(o, "open http://"+s.name+":"+port+"/?token=") || !strings.Contains(o, want) {
		t.Errorf("serve on every interface said:\n%s", o)
	}
	local := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: ln.Addr().(*net.TCPAddr).Port}
	if resp, body := getAs(t, s, local, "192.0.2.7:"+port, "/"); resp.StatusCode != http.StatusOK || !strings.Contains(body, "main") {
		t.Errorf("by an address of the machine: %d %q", resp.StatusCode, body)
	}
	if resp, _ := getAs(t, s, local, "127.0.0.1:"+port, "/"); resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("by 127.0.0.1: %d, want 421", resp.StatusCode)
	}
}
