package launch

import (
	"bytes"
	"strings"
	"sync"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/eventhooks"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// A hook's last line of output with control characters is quoted on stderr.
func TestHookFailureWarningHasNoControlCharacters(t *testing.T) {
	var out strings.Builder
	o := &loopOutputs{}
	o.hookFailed(&out, eventhooks.Result{Call: eventhooks.Call{Name: "on_iteration", Command: "x\ny", Event: "iteration_finished"},
		Err: errString("exit status 1"), Output: "first\n\x1b[31mred\r"})
	if strings.ContainsAny(out.String(), "\r\x1b") || strings.Count(out.String(), "\n") != 1 {
		t.Errorf("control characters in %q", out.String())
	}
}

type errString string

func (e errString) Error() string { return string(e) }

// Two iterations' live copies may write at once (the first one's, left behind by a slow
// terminal, and the next one's): the rendering gets their lines one write at a time.
func TestOutputCounterTakesOneWriteAtATime(t *testing.T) {
	var out bytes.Buffer
	c := &outputCounter{w: agentcli.NewRenderWriter(&out, agentcli.ClaudeStream)}
	line := []byte(`{"type":"assistant","message":{"content":[{"type":"text","text":"hello"}]}}` + "\n")
	var wg sync.WaitGroup
	for range 2 {
		wg.Go(func() {
			for range 200 {
				c.Write(line)
			}
			c.Flush()
		})
	}
	wg.Wait()
	if got := strings.Count(out.String(), "hello\n"); got != 400 || c.bytes() != int64(400*len(line)) {
		t.Errorf("%d lines rendered, %d bytes counted", got, c.bytes())
	}
}
