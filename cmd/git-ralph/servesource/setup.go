package servesource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/serve"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
)

// SelfSigned gives the dashboard the self-signed certificate kept in the user's state
// directory ($XDG_STATE_HOME/git-ralph/serve), made there on first use.
func SelfSigned(srv *serve.Server, addr net.Addr, stderr io.Writer) error {
	dir, err := history.UserStateDir("serve")
	if err != nil {
		return hints.Wrap(fmt.Errorf("finding the user's state directory for the dashboard's certificate: %w", err), "set XDG_STATE_HOME or HOME, or give --tls-cert and --tls-key")
	}
	made, err := srv.SelfSigned(dir, addr)
	if err != nil {
		return hints.Wrap(err, "or give a certificate of your own: --tls-cert FILE --tls-key FILE")
	}
	if made {
		fmt.Fprintf(stderr, "note: made a self-signed certificate for the dashboard in %s (a browser that accepted an earlier one asks again)\n", dir)
	}
	return nil
}

// addrHint is how --addr is written.
const addrHint = "--addr HOST:PORT, e.g. --addr 127.0.0.1:8080 (port 0: a free one); without --addr the dashboard takes a free port on 127.0.0.1"

// Listen checks --addr before it listens, so that a mistake is named with its cause
// and its fix rather than in the socket's words.
func Listen(addr string) (net.Listener, error) {
	if addr != "" {
		_, port, err := net.SplitHostPort(addr)
		var bad *net.AddrError
		if errors.As(err, &bad) {
			return nil, hints.Wrap(fmt.Errorf("--addr %q is not HOST:PORT: %s", addr, bad.Err), addrHint)
		}
		if err != nil {
			return nil, hints.Wrap(fmt.Errorf("--addr %q is not HOST:PORT: %w", addr, err), addrHint)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return nil, hints.Wrap(fmt.Errorf("--addr %q: the port %q is not a number from 0 to 65535", addr, port), addrHint)
		}
	}
	ln, err := serve.Listen(addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, hints.Wrap(err, "another program listens there: pick another port, or leave --addr out for a free one")
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, hints.Wrap(err, "HOST must be an address of this machine (127.0.0.1 for it alone, 0.0.0.0 for every network it is on)")
	case errors.Is(err, syscall.EACCES):
		return nil, hints.Wrap(err, "ports below 1024 need privileges: pick a port from 1024 up")
	case err != nil:
		return nil, hints.Wrap(err, addrHint)
	}
	return ln, nil
}

// Name is the repository's name as a person knows it: its main work tree's
// directory (a worktree loop's directory is the loop's name, not the repository's).
func Name(ctx context.Context, here string) string {
	if common, err := gitops.CommonDir(ctx, here); err == nil && filepath.Base(common) == ".git" {
		return filepath.Base(filepath.Dir(common))
	}
	return filepath.Base(here)
}
