//go:build linux

package servesource

import (
	"errors"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/serve"
)

// A port another program listens on is named with the way out.
func TestServeAddrInUse(t *testing.T) {
	taken, err := serve.Listen("")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	ln, err := Listen(taken.Addr().String())
	if err == nil {
		ln.Close()
		t.Fatalf("listened on %s, which is taken", taken.Addr())
	}
	var h *hints.Error
	if !errors.As(err, &h) || !strings.Contains(h.Hint(), "another program listens there") {
		t.Errorf("error %v, hint %v", err, h)
	}
}
