package serve

import (
	"bufio"
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
)

func TestOnlyLoopbackServesPlainHTTP(t *testing.T) {
	for addr, want := range map[string]bool{"127.0.0.1:1": false, "[::1]:1": false, "192.168.1.5:1": true, "0.0.0.0:1": true, "[::]:1": true} {
		tcp, err := net.ResolveTCPAddr("tcp", addr)
		if err != nil {
			t.Fatal(err)
		}
		if got := NeedsTLS(tcp); got != want {
			t.Errorf("listening at %s: HTTPS %v, want %v", addr, got, want)
		}
	}
}

// beyondLoopback makes 127.0.0.2 count as an address beyond loopback for the test, which
// serves there (a LAN address no other machine reaches), and listens on it.
func beyondLoopback(t *testing.T) net.Listener {
	t.Helper()
	onLoopback = func(ip net.IP) bool { return ip.Equal(net.IPv4(127, 0, 0, 1)) || ip.Equal(net.IPv6loopback) }
	t.Cleanup(func() { onLoopback = net.IP.IsLoopback })
	ln, err := Listen("127.0.0.2:0")
	if err != nil {
		t.Skipf("127.0.0.2 is not an address of this machine: %v", err)
	}
	return ln
}

// printedTLS serves s on ln, as 'git ralph serve' does, and returns the URL and the
// fingerprint it printed.
func printedTLS(t *testing.T, s *Server, ln net.Listener) (u, fingerprint string, out *testio.Buffer) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	out = &testio.Buffer{}
	done := make(chan error, 1)
	go func() { done <- s.Serve(ctx, ln, out) }()
	t.Cleanup(func() { cancel(); <-done })
	re := regexp.MustCompile(`open (\S+)\n(?s:.*)certificate SHA-256 fingerprint: ([0-9A-F:]+)\n`)
	for deadline := time.Now().Add(5 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			if !strings.Contains(out.String(), "the traffic is encrypted (HTTPS)") {
				t.Errorf("serve beyond loopback with a certificate said:\n%s", out.String())
			}
			return m[1], m[2], out
		}
	}
	t.Fatalf("serve printed no URL and fingerprint:\n%s", out.String())
	return "", "", nil
}

// phone is a browser on another device that accepted the certificate served: it trusts
// it, and it alone.
func phone(t *testing.T, cert *x509.Certificate) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	pool.AddCert(cert)
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	return &http.Client{Jar: jar, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool}, ForceAttemptHTTP2: true}}
}

// servedCert is the certificate the server at addr presents, unverified (as a browser
// shows it before it is accepted).
func servedCert(t *testing.T, addr string) *x509.Certificate {
	t.Helper()
	conn, err := tls.Dial("tcp", addr, &tls.Config{InsecureSkipVerify: true})
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	return conn.ConnectionState().PeerCertificates[0]
}

// Beyond loopback the dashboard serves HTTPS with a certificate it made, whose fingerprint
// it prints; a phone that accepted it opens the printed URL, gets a Secure cookie and
// pauses a loop; a plain HTTP request on the port gets no token.
func TestBeyondLoopbackAPhoneSteersOverHTTPS(t *testing.T) {
	ln := beyondLoopback(t)
	src := &fakeSource{}
	s, err := New(src, ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	if made, err := s.SelfSigned(state, ln.Addr()); err != nil || !made {
		t.Fatalf("first start: made %v, %v", made, err)
	}
	u, fingerprint, out := printedTLS(t, s, ln)
	base := "https://" + ln.Addr().String()
	if u != base+"/?token="+s.token {
		t.Errorf("printed %s, want %s/?token=…", u, base)
	}
	if !strings.Contains(out.String(), "accept it once the fingerprint it shows is this one") {
		t.Errorf("serve with its own certificate does not say to compare the fingerprint:\n%s", out)
	}
	cert := servedCert(t, ln.Addr().String())
	if got := Fingerprint(cert.Raw); got != fingerprint {
		t.Errorf("printed fingerprint %s, served certificate's %s", fingerprint, got)
	}
	if info, err := os.Stat(filepath.Join(state, certFile)); err != nil || info.Mode().Perm() != 0o600 {
		t.Errorf("the kept certificate and key: %v, %v; want mode 0600", info, err)
	}

	c := phone(t, cert) // verifies the name: the certificate names 127.0.0.2
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	resp, err := c.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.ProtoMajor != 2 {
		t.Errorf("served over %s, want HTTP/2", resp.Proto)
	}
	if sc := resp.Header.Get("Set-Cookie"); resp.StatusCode != http.StatusSeeOther || !strings.Contains(sc, "; Secure") {
		t.Errorf("the printed URL: %d, Set-Cookie %q; want 303 and a Secure cookie", resp.StatusCode, sc)
	}
	c.CheckRedirect = nil
	code, body := get(t, c, base+"/loops/main")
	csrf := regexp.MustCompile(`name="csrf" value="([0-9a-f]+)"`).FindStringSubmatch(body)
	if code != http.StatusOK || csrf == nil {
		t.Fatalf("the loop's page over HTTPS: %d\n%s", code, body)
	}
	req, _ := http.NewRequest("POST", base+"/loops/main/pause", strings.NewReader(url.Values{"csrf": {csrf[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", base)
	if resp, err := c.Do(req); err != nil {
		t.Fatal(err)
	} else {
		resp.Body.Close()
	}
	if len(src.acted) != 1 || src.acted[0] != "main pause" {
		t.Errorf("pause from the phone: acted %q", src.acted)
	}
	// the live stream, over HTTP/2 as browsers speak it with HTTPS
	src.setLive(LiveLog{State: "running (pid 7)"})
	events, stop := sse(t, c, base+"/loops/main/live")
	expect(t, events, "state: running (pid 7)")
	stop()
	// an Origin of plain HTTP is another origin
	req, _ = http.NewRequest("POST", base+"/loops/main/resume", strings.NewReader(url.Values{"csrf": {csrf[1]}}.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+ln.Addr().String())
	if resp, err := c.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a POST with an http:// Origin: %v, %v; want 403", resp, err)
	}

	// plain HTTP on the port: net/http's 400, never the token nor a page
	conn, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "GET /?token=%s HTTP/1.1\r\nHost: %s\r\n\r\n", s.token, ln.Addr())
	_ = conn.SetReadDeadline(time.Now().Add(5 * time.Second))
	plain, _ := io.ReadAll(bufio.NewReader(conn))
	if !strings.Contains(string(plain), "400 Bad Request") || strings.Contains(string(plain), s.token) || strings.Contains(string(plain), "Set-Cookie") {
		t.Errorf("plain HTTP on the HTTPS port got:\n%s", plain)
	}
	// said in serve's output, as its own lines are
	for deadline := time.Now().Add(5 * time.Second); !strings.Contains(out.String(), "serve: http: TLS handshake error") && time.Now().Before(deadline); {
		time.Sleep(10 * time.Millisecond)
	}
	if !strings.Contains(out.String(), "\nserve: http: TLS handshake error from 127.") {
		t.Errorf("the plain HTTP request is not in serve's output:\n%s", out)
	}
}

// A second start takes the certificate (and its .localhost name) the first one kept: a
// phone that accepted it keeps trusting it. Another address is added to a new one.
func TestTheCertificateIsKeptBetweenStarts(t *testing.T) {
	state := t.TempDir()
	lan := &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 8080}
	first, _ := New(&fakeSource{}, lan.String())
	if made, err := first.SelfSigned(state, lan); err != nil || !made {
		t.Fatalf("first start: made %v, %v", made, err)
	}
	second, _ := New(&fakeSource{}, lan.String())
	if made, err := second.SelfSigned(state, lan); err != nil || made {
		t.Fatalf("second start: made %v, %v; want the kept one", made, err)
	}
	if second.fingerprint != first.fingerprint || second.name != first.name {
		t.Errorf("second start: fingerprint %s, name %s; first: %s, %s", second.fingerprint, second.name, first.fingerprint, first.name)
	}
	other := &net.TCPAddr{IP: net.IPv4(10, 0, 0, 7), Port: 8080}
	third, _ := New(&fakeSource{}, other.String())
	if made, err := third.SelfSigned(state, other); err != nil || !made || third.fingerprint == first.fingerprint {
		t.Fatalf("another address: made %v, %v; want a new certificate", made, err)
	}
	leaf := third.tls.Certificates[0].Leaf
	if !covers(leaf, []string{first.name}, []net.IP{lan.IP, other.IP}) {
		t.Errorf("the new certificate names %v %v; want both addresses and %s", leaf.DNSNames, leaf.IPAddresses, first.name)
	}
}

// The kept certificate's file is never read or written through a symlink.
func TestAKeptCertificateSymlinkIsRefused(t *testing.T) {
	state := t.TempDir()
	target := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(target, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(state, certFile)); err != nil {
		t.Skip(err)
	}
	s, _ := New(&fakeSource{}, "")
	_, err := s.SelfSigned(state, &net.TCPAddr{IP: net.IPv4(192, 168, 1, 5), Port: 8080})
	if err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a symlink in place of the certificate: %v", err)
	}
	if data, _ := os.ReadFile(target); string(data) != "x" {
		t.Errorf("the symlink's target was written: %q", data)
	}
}

// A certificate and key of the user's are served; a bad key is refused, naming the file.
func TestUseKeyPair(t *testing.T) {
	_, pemData, err := makeCert([]string{"box.lan"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certPath, keyPath, bad := filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem"), filepath.Join(dir, "bad.pem")
	for path, data := range map[string][]byte{certPath: pemData, keyPath: pemData, bad: []byte("not a key\n")} {
		if err := os.WriteFile(path, data, 0o600); err != nil {
			t.Fatal(err)
		}
	}
	s, _ := New(&fakeSource{}, "")
	if err := s.UseKeyPair(certPath, keyPath); err != nil || s.tls == nil {
		t.Fatalf("a good pair: %v", err)
	}
	err = s.UseKeyPair(certPath, bad)
	if err == nil || !strings.Contains(err.Error(), "--tls-key "+bad) || !strings.Contains(err.Error(), "key") {
		t.Errorf("a bad key: %v", err)
	}
	err = s.UseKeyPair(certPath, filepath.Join(dir, "missing.pem"))
	if err == nil || !strings.Contains(err.Error(), "--tls-key: open "+filepath.Join(dir, "missing.pem")) {
		t.Errorf("a missing key: %v", err)
	}
}
