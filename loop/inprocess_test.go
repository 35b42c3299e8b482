package loop

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gittest"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// The limits an API agent's loops share are keyed by a fingerprint of the key: the same
// key, the same account; another key, another; the key itself never.
func TestAPIAccountIsAFingerprint(t *testing.T) {
	const key = "sk-proj-abcdefghijklmnopqrstuvwxyz0123456789"
	a := (&APIAgent{Key: key, BaseURL: "https://one.example"}).Account()
	b := (&APIAgent{Key: key, BaseURL: "https://two.example"}).Account()
	c := (&APIAgent{Key: key + "x"}).Account()
	if a != b || a == c || !strings.HasPrefix(a, "key ") || len(a) != len("key ")+12 {
		t.Errorf("accounts %q %q %q", a, b, c)
	}
	for _, part := range []string{key, key[:12], key[len(key)-12:]} {
		if strings.Contains(a, part) {
			t.Errorf("the account %q shows the key", a)
		}
	}
	if got := (&APIAgent{BaseURL: "http://127.0.0.1:11434/v1"}).Account(); got != "no key, http://127.0.0.1:11434/v1" {
		t.Errorf("no key: account %q", got)
	}
}

// hangingAPI answers every request with the start of a stream and then nothing.
func hangingAPI(t *testing.T) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/v1"
}

// An in-process agent stopped by the iteration's timeout is a timed-out iteration, and
// one stopped by the run's interrupt an interrupted one, as a process would be: the loop
// tells them apart by these flags, not by the agent's words.
func TestInProcessTimeoutAndInterrupt(t *testing.T) {
	preset, _ := agentcli.Lookup("openai-chat")
	in := inProcess{api: &APIAgent{Model: "m", BaseURL: hangingAPI(t)}, preset: preset,
		procs: procs{dir: gittest.NewRepo(t), run: "test"}, i: 1, prompt: "do it", keep: 1 << 20}
	in.timeout = 300 * time.Millisecond
	res, read := runInProcess(context.Background(), in)
	if !res.TimedOut || res.Interrupted || res.ExitCode == 0 || !read.IsError {
		t.Errorf("timed out: %+v, report %+v", res, read)
	}
	if !strings.Contains(string(res.Output), `"type":"end"`) {
		t.Errorf("the exchange is not the output: %q", res.Output)
	}
	in.timeout = 0
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(300*time.Millisecond, cancel)
	res, _ = runInProcess(ctx, in)
	if !res.Interrupted || res.TimedOut {
		t.Errorf("interrupted: %+v", res)
	}
}
