package reporting

import (
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/git-ralph/git-ralph/internal/testio"
	"github.com/git-ralph/git-ralph/loop"
)

// The wait's countdown ends with the wait: the same iteration then runs again with no
// event to stop it, and it must not go on drawing over the agent's run. The countdown
// runs on synctest's clock, so that a busy machine cannot make it late.
func TestLimitCountdownEndsWithTheWait(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var out testio.Buffer
		p := &Progress{w: &out, fancy: true, now: time.Now}
		p.Report(loop.Waiting{Iteration: 1, Kind: "limit", Message: "limit", Until: time.Now().Add(200 * time.Millisecond)})
		defer p.ticking.stop()
		time.Sleep(400 * time.Millisecond)
		synctest.Wait()
		drawn := out.String()
		if !strings.HasSuffix(drawn, "\r\x1b[K") {
			t.Fatalf("countdown not cleared at the end of the wait: %q", drawn)
		}
		time.Sleep(1200 * time.Millisecond)
		synctest.Wait()
		if after := out.String(); after != drawn {
			t.Errorf("countdown drawn after the wait ended: %q", strings.TrimPrefix(after, drawn))
		}
	})
}

// A warning written from another goroutine (a hook, a signal) while the status line is
// drawn starts on a line of its own, and the status line is not drawn twice over.
func TestOtherWritesClearTheStatusLine(t *testing.T) {
	var out testio.Buffer
	lw := &LockedWriter{w: &out}
	drawStatus(lw, "iteration 1: 3s")
	lw.Write([]byte("warning: hook failed\n"))
	lw.Write([]byte("next\n"))
	drawStatus(lw, "")
	want := "\r  iteration 1: 3s \x1b[K\r\x1b[Kwarning: hook failed\nnext\n"
	if got := out.String(); got != want {
		t.Errorf("got %q, want %q", got, want)
	}
}
