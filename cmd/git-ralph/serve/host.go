package serve

import (
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"net"
	"net/http"
	"strconv"
	"strings"
)

// The dashboard answers to a host name of its own, NAME.localhost, which browsers resolve
// to loopback themselves. A browser scopes a cookie to the host name and ignores the
// port, so a cookie of 127.0.0.1 (or of localhost) goes to every server on it: any other
// local web server the user's browser visits (a dev server an agent started) would
// receive the token. A cookie of NAME.localhost goes only where the browser is sent to
// NAME.localhost, and NAME is random: no other server is visited by it.
//
// Every request's Host must be one the dashboard answers to, so that a site that points
// its own name at this machine (DNS rebinding) reaches nothing; the Origin of a POST must
// then be that same host. Which hosts, by where it listens:
//   - on loopback (the default): NAME.localhost:PORT alone;
//   - on a given non-loopback address (--addr 192.168.1.5:8080, or a host name of this
//     machine: --addr box.lan:8080): that address as given, with its port (and
//     NAME.localhost:PORT, which no browser reaches there: it resolves to loopback);
//   - on every interface (0.0.0.0, [::], :PORT): NAME.localhost:PORT and any IP address
//     but loopback's with the port (other machines reach it by one of this one's
//     addresses, and a rebinding site always has a name, never an IP address).
//
// 127.0.0.1 and localhost are never answered to: their cookie would reach every local
// server.

// randomName is the dashboard's host name: 80 random bits under .localhost, too many to
// guess by sending a browser to candidates.
func randomName() (string, error) {
	b := make([]byte, 10)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("making the dashboard's host name: %w", err)
	}
	return "git-ralph-" + hex.EncodeToString(b) + ".localhost", nil
}

// hosts are the hosts a dashboard listening at one address answers to.
type hosts struct {
	port  string
	names map[string]bool // lower case, without the port
	anyIP bool            // any IP address but loopback's (listening on every interface)
}

// hostsFor is what a dashboard named name answers to when it listens at addr, given on
// the command line as given ("" when it was not).
func hostsFor(name string, addr net.Addr, given string) hosts {
	h := hosts{names: map[string]bool{name: true}}
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return h
	}
	h.port = strconv.Itoa(tcp.Port)
	switch {
	case tcp.IP.IsUnspecified():
		h.anyIP = true
	case !onLoopback(tcp.IP):
		h.names[strings.ToLower(tcp.IP.String())] = true
		if g := givenHost(given); g != "" {
			h.names[g] = true
		}
	}
	return h
}

// givenHost is the host name of --addr HOST:PORT, lower case, when it is a name other
// than localhost's (whose cookie would reach every local server); "" otherwise.
func givenHost(given string) string {
	host, _, err := net.SplitHostPort(given)
	host = strings.ToLower(host)
	if err != nil || host == "" || net.ParseIP(host) != nil || isLocalhost(host) {
		return ""
	}
	return host
}

func isLocalhost(host string) bool {
	host = strings.TrimSuffix(host, ".")
	return host == "localhost" || strings.HasSuffix(host, ".localhost")
}

// answers reports whether a request's Host header names this dashboard.
func (h hosts) answers(hostHeader string) bool {
	host, port, err := net.SplitHostPort(hostHeader)
	if err != nil { // no port: the scheme's own
		host, port = hostHeader, "80"
	}
	host = strings.ToLower(strings.TrimSuffix(strings.TrimPrefix(host, "["), "]"))
	if port != h.port {
		return false
	}
	if h.names[host] {
		return true
	}
	ip := net.ParseIP(host)
	return h.anyIP && ip != nil && !ip.IsLoopback() && !ip.IsUnspecified()
}

// checkHost refuses a request whose Host is not one the dashboard answers to. The answer
// does not name the dashboard's host: a rebinding site could read it.
func (h hosts) checkHost(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if !h.answers(r.Host) {
			http.Error(w, "421 misdirected request: this host name is not the dashboard's; open the URL that 'git ralph serve' printed", http.StatusMisdirectedRequest)
			return
		}
		next.ServeHTTP(w, r)
	})
}
