package serve

import (
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
)

// Two dashboards served at once (two repositories) share the browser's cookie jar, and
// one's cookie must not replace the other's.
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

// The redirect that takes the token out of the address stays on the dashboard: a path
// beginning with // would be a Location of another host.
func TestTheTokensRedirectStaysHere(t *testing.T) {
	s, err := New(&fakeSource{}, "")
	if err != nil {
		t.Fatal(err)
	}
	addr := &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 1}
	for _, p := range []string{"//evil.example/", "///evil.example/x", "/\\evil.example/"} {
		req := httptest.NewRequest("GET", s.Base(addr)+p+"?token="+s.token, nil)
		rec := httptest.NewRecorder()
		s.Handler(addr).ServeHTTP(rec, req)
		loc := rec.Header().Get("Location")
		if u, err := url.Parse(loc); err != nil || u.Host != "" || !strings.HasPrefix(loc, "/") || strings.HasPrefix(loc, "//") || strings.HasPrefix(loc, "/\\") {
			t.Errorf("GET %s?token=…: redirected to %q, want a path of this server", p, loc)
		}
	}
}

// `--addr :8080` and 0.0.0.0 listen on every interface (IPv6 too, as [::]): the warning
// says so in those words rather than naming the address [::].
func TestTheWarningNamesEveryInterface(t *testing.T) {
	for _, a := range []string{":0", "0.0.0.0:0", "[::]:0"} {
		ln, err := Listen(a)
		if err != nil {
			t.Fatal(err)
		}
		w := Exposed(ln.Addr())
		ln.Close()
		if !strings.Contains(w, "every network interface of this machine") {
			t.Errorf("--addr %s: warning %q does not say every interface", a, w)
		}
	}
	ln, err := Listen("[::1]:0")
	if err != nil {
		t.Skip(err) // no IPv6 here
	}
	defer ln.Close()
	if w := Exposed(ln.Addr()); w != "" {
		t.Errorf("[::1] is loopback, warned %q", w)
	}
}

// An inject's text up to what `git ralph inject` takes (1 MiB) gets through the form
// (it was refused past 64 KiB as a "wrong CSRF token"); a body past the form's bound is
// a 413 that says so.
func TestALongInjectGetsThrough(t *testing.T) {
	s, ts, src := newTestServer(t)
	long := strings.Repeat("use the v2 API; ", 100<<10/16)
	if code := post(t, s, ts, "/loops/main/inject", ts.URL, s.csrf, "text", long); code != http.StatusSeeOther {
		t.Fatalf("inject of %d bytes: %d, want 303", len(long), code)
	}
	if len(src.acted) != 1 || src.acted[0] != "main inject "+strings.TrimSpace(long) {
		t.Errorf("the long text did not reach the action whole")
	}
	huge := strings.Repeat("x", maxForm+1)
	values := url.Values{"csrf": {s.csrf}, "text": {huge}}
	req, _ := http.NewRequest("POST", ts.URL+"/loops/main/inject", strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.URL)
	req.AddCookie(&http.Cookie{Name: cookieName(req), Value: s.token})
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != http.StatusRequestEntityTooLarge || !strings.Contains(string(body), "larger than") {
		t.Errorf("a form of %d bytes: %d %q, want 413 saying it is too large", len(huge), resp.StatusCode, body)
	}
}

// The printed URL opened again in a browser that already holds the cookie (a second
// tab) also ends without the token in its address (and so in the history).
func TestTheTokenLeavesTheAddressWithACookieToo(t *testing.T) {
	s, ts, _ := newTestServer(t)
	c := browser(t)
	get(t, c, ts.URL+"/?token="+s.token)
	resp, err := c.Get(ts.URL + "/loops/main?token=" + s.token)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Request.URL.RawQuery != "" || resp.Request.URL.Path != "/loops/main" {
		t.Errorf("the URL opened again ends at %s (%d), want /loops/main without the token", resp.Request.URL, resp.StatusCode)
	}
}

// More of the ways another page could make the browser post: Origin null (a sandboxed
// frame, a data: URL), the other loopback name, a cross-site fetch naming our origin.
func TestPostsFromANullOriginTheOtherLoopbackOrAnotherSiteAreRefused(t *testing.T) {
	s, ts, src := newTestServer(t)
	u, _ := url.Parse(ts.URL)
	for _, origin := range []string{"null", "http://localhost:" + u.Port(), "https://" + u.Host, "http://" + u.Host + ".evil.example"} {
		if code := post(t, s, ts, "/loops/main/pause", origin, s.csrf); code != http.StatusForbidden {
			t.Errorf("Origin %s: %d, want 403", origin, code)
		}
	}
	values := url.Values{"csrf": {s.csrf}}
	req, _ := http.NewRequest("POST", ts.URL+"/loops/main/pause", strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.URL)
	req.Header.Set("Sec-Fetch-Site", "cross-site")
	req.AddCookie(&http.Cookie{Name: cookieName(req), Value: s.token})
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("Sec-Fetch-Site cross-site: %v %v, want 403", resp.StatusCode, err)
	}
	// a token in the query does not stand for the cookie on a POST
	req, _ = http.NewRequest("POST", ts.URL+"/loops/main/pause?token="+s.token, strings.NewReader(values.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", ts.URL)
	if resp, err := http.DefaultClient.Do(req); err != nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a POST with the token in its query and no cookie: %v %v, want 401", resp.StatusCode, err)
	}
	if len(src.acted) != 0 {
		t.Errorf("a refused POST acted: %v", src.acted)
	}
}
