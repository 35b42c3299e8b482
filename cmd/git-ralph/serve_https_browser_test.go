//go:build linux

package main

import (
	"crypto/sha256"
	"crypto/x509"
	"encoding/base64"
	"encoding/pem"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var servingHTTPS = regexp.MustCompile(`^git ralph serve: open (https://[0-9.]+:[0-9]+)/\?token=([0-9a-f]+)$`)

// TestTheDashboardOverHTTPSInChromium serves the dashboard on an address of this machine
// beyond loopback, as `--addr` does for a phone on the same network: over HTTPS only,
// with the certificate it made itself, which Chromium trusts by its key's fingerprint (as
// a person accepts it after comparing the fingerprint serve prints). With the token the
// overview and the loop's page load; Pause pauses the loop, and the page says so, shows
// the loop paused and turns Pause off and Resume on, all without a reload. Plain HTTP on
// that address is refused. Nothing leaves the machine: the address is one of its own.
func TestTheDashboardOverHTTPSInChromium(t *testing.T) {
	ip := outsideAddress(t)
	scratchRepo(t)
	state := t.TempDir() // the certificate is kept there, out of the user's
	t.Setenv("XDG_STATE_HOME", state)
	loop := startFakeLoopWith(t, "3", `echo "hello from iteration $RALPH_ITERATION"; while [ ! -e go ]; do sleep 0.1; done`)
	waitFor(t, "the agent to run", func() bool {
		out, _ := os.ReadFile(".ralph/history/1/output.log")
		return strings.Contains(string(out), "hello from iteration 1")
	})
	base, token := startServeWith(t, servingHTTPS, "--addr", net.JoinHostPort(ip, "0"))
	b := startChromium(t, "--ignore-certificate-errors-spki-list="+keyFingerprint(t, filepath.Join(state, "git-ralph", "serve", "serve-tls.pem")))

	b.open(strings.Replace(base, "https://", "http://", 1) + "/?token=" + token)
	if body := b.text("body"); strings.Contains(body, "Loops") || strings.Contains(body, "main") {
		t.Errorf("plain HTTP beyond loopback served a page: %q", body)
	}
	b.open(base + "/?token=" + token)
	if got := b.location(); got != base+"/" {
		t.Errorf("after the token, the address bar says %s, want %s/", got, base)
	}
	b.waitFor("the running loop in the list", `document.querySelector('.card[data-loop="main"] .badge.state').innerText.startsWith("running")`)
	if secure := b.eval("window.isSecureContext && location.protocol"); secure != "https:" {
		t.Errorf("the page is not a secure context over HTTPS: %v", secure)
	}
	b.click(`a[href="/loops/main"]`)
	b.waitFor("the output so far", `document.getElementById("live").innerText.includes("hello from iteration 1")`)
	b.waitFor("the running loop's controls", `document.getElementById("resume").disabled && !document.getElementById("pause").disabled`)

	b.eval("window.__same = true") // gone if the page reloads
	b.eval(`document.getElementById("pause").click()`)
	b.waitFor("Pause's answer, without a reload", `window.__same && `+
		`((document.getElementById("said") || {}).innerText || "").includes("pauses once its current iteration is recorded")`)
	if st := ralph(t, "status"); !strings.Contains(st, "pausing once its current iteration is recorded") {
		t.Errorf("after Pause over HTTPS, status does not say pausing:\n%s", st)
	}
	touch(t, "go")
	b.waitFor("the page to show the loop paused, without a reload", `window.__same && document.getElementById("state-badge").innerText === "paused" && `+
		`document.getElementById("pause").disabled && !document.getElementById("resume").disabled`)
	b.screenshot("https-paused")
	ralph(t, "cancel")
	if code := loop.wait(t); code != 130 {
		t.Errorf("the loop exited %d after cancel, want 130", code)
	}
}

// outsideAddress is an IPv4 address of this machine other than loopback; the test is
// skipped on a machine that has none.
func outsideAddress(t *testing.T) string {
	t.Helper()
	addrs, err := net.InterfaceAddrs()
	if err != nil {
		t.Skipf("skipped: this machine's addresses cannot be listed (%v); the test serves on one beyond loopback", err)
	}
	for _, a := range addrs {
		if n, ok := a.(*net.IPNet); ok && n.IP.To4() != nil && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
			return n.IP.String()
		}
	}
	t.Skip("skipped: this machine has no IPv4 address beyond loopback to serve the dashboard on over HTTPS")
	return ""
}

// keyFingerprint is the base64 SHA-256 of the public key of the certificate in the PEM
// file, as Chromium's --ignore-certificate-errors-spki-list takes it.
func keyFingerprint(t *testing.T, file string) string {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("serve's certificate: %v", err)
	}
	block, _ := pem.Decode(data)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("%s does not begin with a certificate", file)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	sum := sha256.Sum256(cert.RawSubjectPublicKeyInfo)
	return base64.StdEncoding.EncodeToString(sum[:])
}
