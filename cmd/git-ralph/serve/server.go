package serve

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"crypto/tls"
	"embed"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"io"
	"io/fs"
	"log"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
)

//go:embed assets
var assets embed.FS

// cookiePrefix names the cookie that holds the access token after the first visit,
// followed by the port. The cookie belongs to the dashboard's own host name (host.go), so
// no other server sees it; the port keeps two dashboards that answer to one IP address
// (both listening on every interface, opened by the machine's address) from replacing
// each other's token with their own.
const cookiePrefix = "git_ralph_token_"

// cookieName is the token's cookie for the port the browser asked for (r's Host).
func cookieName(r *http.Request) string {
	_, port, err := net.SplitHostPort(r.Host)
	if err != nil || port == "" {
		port = "80" // a Host without a port: the scheme's own
	}
	return cookiePrefix + port
}

// Server is the dashboard: its secrets and its pages.
type Server struct {
	src   Source
	name  string // the host name it answers to: NAME.localhost (host.go)
	given string // --addr as given, "" without: a host name in it is answered to
	token string // grants access: in the printed URL, then in the cookie
	csrf  string // proves a POST came from one of our pages (a form's hidden field)
	pages *template.Template
	// tls, when set, makes it serve HTTPS only, with fingerprint its certificate's (tls.go)
	tls         *tls.Config
	fingerprint string
	selfSigned  bool // the certificate is its own: the browser warns of it until accepted
	// Repo is the repository's name, in every page's title and header; set before serving
	Repo string
	// stopping closes when the server shuts down: the live streams, which never go
	// idle by themselves, end then rather than holding the shutdown for its grace
	stopping chan struct{}
	stop     sync.Once
	flashes  flashes
	// said is where Serve prints (its writer, one line at a time); nil: nowhere
	said   io.Writer
	saidMu sync.Mutex
}

// New makes a dashboard of src with fresh random secrets and host name; addr is where it
// was asked to listen (--addr as given, "" for loopback's free port).
func New(src Source, addr string) (*Server, error) {
	name, err := randomName()
	if err != nil {
		return nil, err
	}
	token, err := randomToken()
	if err != nil {
		return nil, err
	}
	csrf, err := randomToken()
	if err != nil {
		return nil, err
	}
	pages, err := parsePages()
	if err != nil {
		return nil, err
	}
	return &Server{src: src, name: name, given: addr, token: token, csrf: csrf, pages: pages, stopping: make(chan struct{})}, nil
}

// randomToken is 128 bits from crypto/rand, in hex so that it is safe in a URL.
func randomToken() (string, error) {
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the dashboard's token: %w", err)
	}
	return hex.EncodeToString(b), nil
}

// URL is the address to open: the dashboard's own, with the token.
func (s *Server) URL(addr net.Addr) string {
	return s.Base(addr) + "/?token=" + url.QueryEscape(s.token)
}

// Base is the dashboard's address when it listens at addr, without a path: its own host
// name on loopback and on every interface (opened on this machine), the address it was
// given otherwise (no other reaches it).
func (s *Server) Base(addr net.Addr) string {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return s.scheme() + "://" + addr.String()
	}
	host := s.name
	if !onLoopback(tcp.IP) && !tcp.IP.IsUnspecified() {
		host = tcp.IP.String()
		if g := givenHost(s.given); g != "" {
			host = g
		}
	}
	return s.scheme() + "://" + net.JoinHostPort(host, strconv.Itoa(tcp.Port))
}

// scheme is how the dashboard is reached: https when it has a certificate (tls.go).
func (s *Server) scheme() string {
	if s.tls != nil {
		return "https"
	}
	return "http"
}

// Handler is every page, for a server listening at addr, behind the host check
// (host.go) and the token check, and the POSTs behind the CSRF checks.
func (s *Server) Handler(addr net.Addr) http.Handler {
	mux := http.NewServeMux()
	static, _ := fs.Sub(assets, "assets/static")
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(static)))
	mux.HandleFunc("GET /{$}", s.loopsPage)
	mux.HandleFunc("GET /loops/{loop}", s.iterationsPage)
	mux.HandleFunc("GET /loops/{loop}/iterations/{n}/diff", s.diffPage)
	mux.HandleFunc("GET /loops/{loop}/live", s.livePage)
	mux.Handle("POST /loops/{loop}/{action}", s.sameOrigin(http.HandlerFunc(s.act)))
	mux.Handle("POST /bestof/{group}/merge", s.sameOrigin(http.HandlerFunc(s.pickMerge)))
	return s.recovered(hostsFor(s.name, addr, s.given).checkHost(s.authorized(securityHeaders(mux))))
}

// recovered turns a panic in a page (a bug, perhaps met in a hostile repository) into a
// 500 naming it and one line of serve's output, where net/http would print a stack trace
// on the terminal and drop the connection. A stream that has begun is cut instead.
func (s *Server) recovered(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		rw := &startedWriter{ResponseWriter: w}
		defer func() {
			v := recover()
			if v == nil || v == http.ErrAbortHandler {
				if v != nil {
					panic(v) // net/http's own way to cut a response, silent
				}
				return
			}
			// printable: the path and the panic's words may hold a repository's bytes
			s.say("error: %s %s: %s (a bug in git ralph serve)", r.Method, display.Printable(r.URL.Path), display.Printable(fmt.Sprint(v)))
			if rw.started {
				panic(http.ErrAbortHandler)
			}
			http.Error(w, fmt.Sprintf("500: %v (a bug in git ralph serve)", v), http.StatusInternalServerError)
		}()
		next.ServeHTTP(rw, r)
	})
}

// say prints one line to serve's output.
func (s *Server) say(format string, args ...any) {
	s.saidMu.Lock()
	defer s.saidMu.Unlock()
	if s.said != nil {
		fmt.Fprintf(s.said, format+"\n", args...)
	}
}

// saidLines is serve's output as an io.Writer of lines, for net/http's log.
type saidLines struct{ s *Server }

func (w saidLines) Write(p []byte) (int, error) {
	w.s.say("serve: %s", display.Printable(strings.TrimSpace(string(p))))
	return len(p), nil
}

// startedWriter knows whether the response has begun, after which a 500 cannot be sent.
// When it begins, the response gets pageWriteWait to be written from then: the server's
// WriteTimeout counts from the request, and an action (a checkpoint of a big work tree)
// or a listing may take longer than that before it writes anything.
type startedWriter struct {
	http.ResponseWriter
	started bool
}

func (w *startedWriter) start() {
	if !w.started {
		w.started = true
		_ = http.NewResponseController(w.ResponseWriter).SetWriteDeadline(time.Now().Add(pageWriteWait))
	}
}

func (w *startedWriter) WriteHeader(code int) {
	w.start()
	w.ResponseWriter.WriteHeader(code)
}

func (w *startedWriter) Write(b []byte) (int, error) {
	w.start()
	return w.ResponseWriter.Write(b)
}

// Flush and Unwrap keep the stream's flushes and http.ResponseController working.
func (w *startedWriter) Flush() {
	w.start()
	if f, ok := w.ResponseWriter.(http.Flusher); ok {
		f.Flush()
	}
}

func (w *startedWriter) Unwrap() http.ResponseWriter { return w.ResponseWriter }

// authorized lets a request through with the token in its cookie. The token in the query
// sets the cookie and redirects to the same page without it, so that it stays out of the
// address bar, the browser's history and Referer headers.
func (s *Server) authorized(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		name := cookieName(r)
		// the token in the query is taken out of the address even with the cookie set:
		// the printed URL opened again in a second tab
		q := r.URL.Query()
		if r.Method == http.MethodGet && q.Has("token") && s.isToken(q.Get("token")) {
			http.SetCookie(w, &http.Cookie{Name: name, Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode,
				Secure: r.TLS != nil}) // over HTTPS, never sent back in the clear
			q.Del("token")
			clean := *r.URL
			clean.RawQuery = q.Encode()
			// one leading slash: "//evil.example/" would be a Location of another host
			here := "/" + strings.TrimLeft(clean.RequestURI(), "/\\")
			http.Redirect(w, r, here, http.StatusSeeOther)
			return
		}
		if c, err := r.Cookie(name); err == nil && s.isToken(c.Value) {
			next.ServeHTTP(w, r)
			return
		}
		http.Error(w, "401 unauthorized: open the URL that 'git ralph serve' printed (it carries the token)", http.StatusUnauthorized)
	})
}

func (s *Server) isToken(got string) bool {
	return subtle.ConstantTimeCompare([]byte(got), []byte(s.token)) == 1
}

// maxForm bounds a POST's form: above what `git ralph inject` takes (1 MiB of text, up to
// three times that once URL-encoded), so that its own error and hint speak for a text too
// long, and far below what could trouble the server.
const maxForm = 4 << 20

// sameOrigin refuses a POST that another site could have made the browser send: its
// Origin must be this server's (the Host it was sent to, one checkHost answers to), and
// its form must carry the CSRF token.
func (s *Server) sameOrigin(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		origin, scheme := r.Header.Get("Origin"), "http://"
		if r.TLS != nil {
			scheme = "https://"
		}
		if origin == "" || origin != scheme+r.Host {
			http.Error(w, "403 forbidden: cross-origin request", http.StatusForbidden)
			return
		}
		if site := r.Header.Get("Sec-Fetch-Site"); site != "" && site != "same-origin" {
			http.Error(w, "403 forbidden: cross-site request", http.StatusForbidden)
			return
		}
		r.Body = http.MaxBytesReader(w, r.Body, maxForm)
		if err := r.ParseForm(); err != nil {
			var big *http.MaxBytesError
			if errors.As(err, &big) {
				http.Error(w, fmt.Sprintf("413: the form is larger than %d MiB: inject a summary, or point the agent at a file", maxForm>>20), http.StatusRequestEntityTooLarge)
				return
			}
			http.Error(w, "400: the form cannot be read: "+err.Error(), http.StatusBadRequest)
			return
		}
		if subtle.ConstantTimeCompare([]byte(r.PostFormValue("csrf")), []byte(s.csrf)) != 1 {
			http.Error(w, "403 forbidden: missing or wrong CSRF token; reload the page", http.StatusForbidden)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// securityHeaders keep the pages from being framed or from loading anything not ours.
func securityHeaders(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		h := w.Header()
		h.Set("Content-Security-Policy", "default-src 'self'; frame-ancestors 'none'; form-action 'self'")
		h.Set("X-Content-Type-Options", "nosniff")
		// same-origin, not no-referrer: under no-referrer a browser sends "Origin: null" with
		// our own forms, which sameOrigin must refuse; other sites get no Referer either way
		h.Set("Referrer-Policy", "same-origin")
		h.Set("Cache-Control", "no-store")
		next.ServeHTTP(w, r)
	})
}

// Listen opens the dashboard's socket: on 127.0.0.1 on a free port when addr is empty.
func Listen(addr string) (net.Listener, error) {
	if addr == "" {
		addr = "127.0.0.1:0"
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return nil, fmt.Errorf("listening on %s: %w", addr, err)
	}
	return ln, nil
}

// Exposed says, for a listener not on loopback, who can reach it; "" on loopback.
func Exposed(addr net.Addr) string { return exposed(addr, false) }

// exposed is Exposed for a dashboard that serves HTTPS (encrypted) or not.
func exposed(addr net.Addr, encrypted bool) string {
	tcp, ok := addr.(*net.TCPAddr)
	if ok && onLoopback(tcp.IP) {
		return ""
	}
	where := fmt.Sprintf("on %s, beyond this machine", addr)
	if ok && tcp.IP.IsUnspecified() { // ":8080", "0.0.0.0:8080": IPv6 too, as [::]
		where = fmt.Sprintf("on every network interface of this machine (port %d)", tcp.Port)
	}
	traffic := "the traffic is not encrypted"
	if encrypted {
		traffic = "the traffic is encrypted (HTTPS)"
	}
	return fmt.Sprintf("the dashboard listens %s: anyone who can reach it there and has the token can read the repository's loops, diffs and agent output, and steer its loops; %s", where, traffic)
}

// shutdownGrace is how long Serve lets requests in flight finish once asked to stop.
const shutdownGrace = 5 * time.Second

// The server's bounds on the peers it waits for, so that nothing local can hold its
// goroutines and sockets for nothing (the live stream sets its own deadline each round).
var (
	headerWait    = 10 * time.Second // a request's headers: a slowloris waits no longer
	pageWriteWait = time.Minute      // a page's writing, from its first byte: 17 MB of the largest diff, slowly read, fits
	connIdle      = time.Minute      // a kept-alive connection with no request
)

// Serve serves on ln, printing the URL to w, until ctx ends; then it shuts down cleanly.
func (s *Server) Serve(ctx context.Context, ln net.Listener, w io.Writer) error {
	s.saidMu.Lock()
	s.said = w
	s.saidMu.Unlock()
	fresh := &freshConns{}
	hs := &http.Server{Handler: s.Handler(ln.Addr()), ReadHeaderTimeout: headerWait, WriteTimeout: pageWriteWait,
		IdleTimeout: connIdle, ConnState: fresh.track, TLSConfig: s.tls,
		// net/http's own complaints (a phone's browser refusing the certificate until it is
		// accepted) in serve's output, as its other lines, not with a time stamp on stderr
		ErrorLog: log.New(saidLines{s}, "", 0)}
	hs.RegisterOnShutdown(func() {
		s.stop.Do(func() { close(s.stopping) })
		fresh.close()
	})
	if warning := exposed(ln.Addr(), s.tls != nil); warning != "" {
		s.say("warning: %s", warning)
	}
	s.say("git ralph serve: open %s\n(Ctrl+C stops it)", s.URL(ln.Addr()))
	if tcp, ok := ln.Addr().(*net.TCPAddr); ok && tcp.IP.IsUnspecified() {
		s.say("from another machine: %s://ADDRESS:%d/?token=%s, with an IP address of this machine", s.scheme(), tcp.Port, s.token)
	}
	if s.tls != nil {
		s.say("certificate SHA-256 fingerprint: %s", s.fingerprint)
		if s.selfSigned {
			s.say("(the browser warns of a certificate it does not know: accept it once the fingerprint it shows is this one)")
		}
	}
	served := make(chan error, 1)
	go func() {
		if s.tls != nil {
			// a plain HTTP request on this port gets a 400 of net/http's, no token
			served <- hs.ServeTLS(ln, "", "")
			return
		}
		served <- hs.Serve(ln)
	}()
	select {
	case err := <-served:
		return fmt.Errorf("serving the dashboard: %w", err)
	case <-ctx.Done():
	}
	stop, cancel := context.WithTimeout(context.Background(), shutdownGrace)
	defer cancel()
	err := hs.Shutdown(stop)
	if e := <-served; !errors.Is(e, http.ErrServerClosed) && err == nil {
		err = e
	}
	if err != nil {
		return fmt.Errorf("stopping the dashboard: %w", err)
	}
	s.say("git ralph serve: stopped")
	return nil
}

// freshConns are the connections that have not sent a request yet. Shutdown waits up to
// 5 s for those (net/http counts one idle only once that old), and a browser opens them
// ahead of need: Chromium's made every Ctrl+C wait out the grace. Once the server stops,
// no request on them will be answered, so they are closed at once.
type freshConns struct {
	mu     sync.Mutex
	conns  map[net.Conn]bool
	closed bool // the server stopped: a connection announced now is closed at once
}

func (f *freshConns) track(c net.Conn, state http.ConnState) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.conns == nil {
		f.conns = map[net.Conn]bool{}
	}
	switch {
	case state == http.StateNew && f.closed:
		// accepted as the server stopped, announced after close ran (a race
		// Shutdown loses to its accept loop): nothing will answer it either
		c.Close()
	case state == http.StateNew:
		f.conns[c] = true
	default:
		delete(f.conns, c)
	}
}

func (f *freshConns) close() {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.closed = true
	for c := range f.conns {
		c.Close()
	}
}
