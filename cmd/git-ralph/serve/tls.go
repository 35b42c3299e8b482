package serve

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/sha256"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// Beyond loopback the dashboard serves HTTPS only: a phone on the same network pauses a
// loop without its token and cookie crossing the network in the clear. Its certificate is
// one the user gives (--tls-cert, --tls-key) or one it makes itself on first use and keeps
// in the user's state directory, so that a phone that accepted it once keeps trusting it:
// its SHA-256 fingerprint is printed with the URL, to compare with the one the phone shows.
// On loopback it stays plain HTTP: browsers treat http://*.localhost as a secure context,
// and nothing crosses a network.

// onLoopback reports whether a dashboard listening at ip is on loopback: plain HTTP, its
// .localhost name alone. A variable so that a test can serve "beyond loopback" on
// 127.0.0.2, an address no other machine reaches.
var onLoopback = net.IP.IsLoopback

// NeedsTLS reports whether a dashboard listening at addr must serve HTTPS: beyond loopback.
func NeedsTLS(addr net.Addr) bool {
	tcp, ok := addr.(*net.TCPAddr)
	return !ok || !onLoopback(tcp.IP)
}

// certFile is the self-signed certificate and its key, in one file (so they never part),
// in the directory SelfSigned is given.
const certFile = "serve-tls.pem"

// certLife is how long a certificate made here is valid: Apple's devices refuse a server
// certificate valid for more than 825 days; a year is renewed well within that.
const certLife = 397 * 24 * time.Hour

// certRenew is how close to its end a kept certificate is replaced by a new one.
const certRenew = 30 * 24 * time.Hour

// UseKeyPair serves HTTPS with the certificate and key in the files given.
func (s *Server) UseKeyPair(certPath, keyPath string) error {
	certPEM, err := os.ReadFile(certPath)
	if err != nil {
		return fmt.Errorf("--tls-cert: %w", err)
	}
	keyPEM, err := os.ReadFile(keyPath)
	if err != nil {
		return fmt.Errorf("--tls-key: %w", err)
	}
	cert, err := tls.X509KeyPair(certPEM, keyPEM)
	if err != nil { // its words say which: "in key input", "does not match"
		return fmt.Errorf("--tls-cert %s with --tls-key %s: %w", certPath, keyPath, err)
	}
	s.useCert(cert)
	return nil
}

// SelfSigned serves HTTPS with the certificate kept in dir, made there first when there is
// none, when it has expired (or nearly), or when it does not name every host the dashboard
// answers to at addr (a new one names those and the old one's). A certificate made here
// names the dashboard's .localhost name too, which the dashboard then keeps: the browser
// of this machine, once it accepted the certificate, goes on trusting it. It says whether
// the certificate was made now.
func (s *Server) SelfSigned(dir string, addr net.Addr) (made bool, err error) {
	path := filepath.Join(dir, certFile)
	kept, err := readKept(path)
	if err != nil {
		return false, err
	}
	names, ips := certHosts(addr, s.given)
	if kept != nil && covers(kept.Leaf, names, ips) && time.Until(kept.Leaf.NotAfter) > certRenew {
		if name := localhostName(kept.Leaf); name != "" {
			s.name = name
		}
		s.useCert(*kept)
		s.selfSigned = true
		return false, nil
	}
	if kept != nil { // keep what it named: another --addr of this user still works
		if name := localhostName(kept.Leaf); name != "" {
			s.name = name
		}
		names = append(names, kept.Leaf.DNSNames...)
		ips = append(ips, kept.Leaf.IPAddresses...)
	}
	cert, pemData, err := makeCert(append(names, s.name), ips)
	if err != nil {
		return false, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("keeping the dashboard's certificate: %w", err)
	}
	// atomically, by a rename: a symlink at path is replaced, never written through
	if err := history.WriteFileAtomic(path, pemData, 0o600); err != nil {
		return false, fmt.Errorf("keeping the dashboard's certificate: %w", err)
	}
	s.useCert(cert)
	s.selfSigned = true
	return true, nil
}

// useCert makes the dashboard serve HTTPS with cert.
func (s *Server) useCert(cert tls.Certificate) {
	s.tls = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	s.fingerprint = Fingerprint(cert.Certificate[0])
}

// Fingerprint is a certificate's SHA-256 fingerprint as browsers show it: hex pairs
// between colons.
func Fingerprint(der []byte) string {
	sum := sha256.Sum256(der)
	pairs := make([]string, len(sum))
	for i, b := range sum {
		pairs[i] = fmt.Sprintf("%02X", b)
	}
	return strings.Join(pairs, ":")
}

// readKept reads the certificate kept at path: nil when there is none, or when it cannot
// be used (a new one replaces it); an error when path is a symlink, which is never
// followed, or cannot be read.
func readKept(path string) (*tls.Certificate, error) {
	info, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the dashboard's certificate: %w", err)
	}
	if !info.Mode().IsRegular() {
		return nil, fmt.Errorf("the dashboard's certificate %s is not a regular file (a symlink?); remove it and a new one is made", path)
	}
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("reading the dashboard's certificate: %w", err)
	}
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		return nil, nil
	}
	if cert.Leaf == nil {
		if cert.Leaf, err = x509.ParseCertificate(cert.Certificate[0]); err != nil {
			return nil, nil
		}
	}
	return &cert, nil
}

// certHosts are the names and addresses a certificate must name for a dashboard at addr:
// the address it listens at (every address of this machine's but loopback's, listening on
// every interface), and the host name --addr gave.
func certHosts(addr net.Addr, given string) (names []string, ips []net.IP) {
	tcp, ok := addr.(*net.TCPAddr)
	if !ok {
		return nil, nil
	}
	switch {
	case tcp.IP.IsUnspecified():
		all, _ := net.InterfaceAddrs()
		for _, a := range all {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
				ips = append(ips, n.IP)
			}
		}
	case !onLoopback(tcp.IP):
		ips = append(ips, tcp.IP)
		if g := givenHost(given); g != "" {
			names = append(names, g)
		}
	}
	return names, ips
}

// covers reports whether cert names every one of names and ips.
func covers(cert *x509.Certificate, names []string, ips []net.IP) bool {
	for _, n := range names {
		if !slices.Contains(cert.DNSNames, n) {
			return false
		}
	}
	for _, ip := range ips {
		if !slices.ContainsFunc(cert.IPAddresses, ip.Equal) {
			return false
		}
	}
	return true
}

// localhostName is the dashboard's .localhost name a certificate made here names; "".
func localhostName(cert *x509.Certificate) string {
	for _, n := range cert.DNSNames {
		if strings.HasPrefix(n, "git-ralph-") && strings.HasSuffix(n, ".localhost") {
			return n
		}
	}
	return ""
}

// makeCert makes a self-signed certificate (ECDSA P-256) for names and ips, and its PEM:
// the certificate, then its key.
func makeCert(names []string, ips []net.IP) (tls.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("making the dashboard's certificate: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 127))
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("making the dashboard's certificate: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial,
		Subject:      pkix.Name{CommonName: "git ralph serve", Organization: []string{"git-ralph"}},
		NotBefore:    now.Add(-time.Hour), // a phone's clock a little behind
		NotAfter:     now.Add(certLife),
		KeyUsage:     x509.KeyUsageDigitalSignature,
		ExtKeyUsage:  []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		DNSNames:     uniqueNames(names),
		IPAddresses:  uniqueIPs(ips),
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("making the dashboard's certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("making the dashboard's certificate: %w", err)
	}
	data := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	data = append(data, pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})...)
	cert, err := tls.X509KeyPair(data, data)
	if err != nil {
		return tls.Certificate{}, nil, fmt.Errorf("making the dashboard's certificate: %w", err)
	}
	return cert, data, nil
}

func uniqueNames(names []string) []string {
	slices.Sort(names)
	return slices.Compact(names)
}

func uniqueIPs(ips []net.IP) []net.IP {
	var out []net.IP
	for _, ip := range ips {
		if !slices.ContainsFunc(out, ip.Equal) {
			out = append(out, ip)
		}
	}
	return out
}
