package apiagent

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops/gittest"
)

func TestMaxTurnsFailsTheIteration(t *testing.T) {
	busy := step{in: 10, out: 5, calls: []call{{toolList, obj{}}}}
	m := newMock(t, Chat, busy, busy, busy)
	res, err, recs, _ := runMock(t, m, gittest.NewRepo(t), func(r *Request) { r.MaxTurns = 2 })
	var e *Error
	if !errors.As(err, &e) || e.Kind != TooManyTurns || !strings.Contains(e.Message, "after 2 turns") {
		t.Fatalf("Run: %v, want the turns used up", err)
	}
	if res.Turns != 2 || m.requests() != 2 || len(ofType(recs, RecToolResult)) != 2 {
		t.Errorf("%d turns, %d requests, %d tool results: want the last turn's tools run and no third request", res.Turns, m.requests(), len(ofType(recs, RecToolResult)))
	}
}

func TestContextCap(t *testing.T) {
	for _, tc := range []struct {
		name  string
		proto string
		steps []step
		turns int
	}{
		// the turn's own usage reaches the cap: no further request
		{"reached", Anthropic, []step{{in: 100, cacheRead: 900, out: 10, calls: []call{{toolList, obj{}}}}}, 1},
		// the tools' results would take the next request over it
		{"would reach", Responses, []step{{in: 100, out: 10, calls: []call{{toolBash, obj{"command": "seq 1 2000"}}}}}, 1},
		// the model said its window is full
		{"the model's window", Anthropic, []step{{text: "so far", in: 100, out: 10, stop: "model_context_window_exceeded"}}, 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMock(t, tc.proto, tc.steps...)
			res, err, _, _ := runMock(t, m, gittest.NewRepo(t), func(r *Request) { r.MaxContext = 1000 })
			var e *Error
			if !errors.As(err, &e) || e.Kind != ContextFull {
				t.Fatalf("Run: %v, want the context full", err)
			}
			if res.Turns != tc.turns || m.requests() != len(tc.steps) {
				t.Errorf("%d turns, %d requests", res.Turns, m.requests())
			}
		})
	}
}

// Request's mistakes are fatal at once, before any request.
func TestRunRefusesABadRequest(t *testing.T) {
	for _, req := range []Request{
		{Protocol: "gemini", Model: "m", WorkTree: t.TempDir()},
		{Protocol: Chat, WorkTree: t.TempDir()},
		{Protocol: Chat, Model: "m", WorkTree: "/no/such/dir", Prompt: "p"},
		{Protocol: Chat, Model: "m", Prompt: "p"},
		{Protocol: Chat, Model: "m", WorkTree: t.TempDir(), Prompt: " "},
		{Protocol: Chat, Model: "m", WorkTree: t.TempDir(), Prompt: "p", BaseURL: "localhost:11434"},
		{Protocol: Chat, Model: "m", WorkTree: t.TempDir(), Prompt: "p", BaseURL: "ftp://example.com"},
	} {
		res, err := Run(t.Context(), req)
		var e *Error
		if !errors.As(err, &e) || e.Kind != Fatal || res.Err != e {
			t.Errorf("%+v: %v, want a fatal error", req, err)
		}
	}
}

func TestInterruptedRequest(t *testing.T) {
	m := newMock(t, Anthropic, step{hang: true})
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(200*time.Millisecond, cancel)
	_, err := Run(ctx, Request{Protocol: Anthropic, Model: "m", BaseURL: m.base(), Key: testKey, WorkTree: gittest.NewRepo(t), Prompt: "p"})
	var e *Error
	if !errors.As(err, &e) || e.Kind != Interrupted {
		t.Fatalf("Run: %v, want interrupted", err)
	}
}

// A redirect is not followed: it would take the key's header to another server.
func TestRedirectIsNotFollowed(t *testing.T) {
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		t.Errorf("the redirect was followed with headers %v", r.Header)
	}))
	defer other.Close()
	m := newMock(t, Anthropic, step{status: http.StatusTemporaryRedirect, headers: map[string]string{"Location": other.URL + "/v1/messages"}, body: "{}"})
	_, err, _, _ := runMock(t, m, gittest.NewRepo(t), nil)
	var e *Error
	if !errors.As(err, &e) || e.Kind != Fatal || e.Status != http.StatusTemporaryRedirect {
		t.Fatalf("Run: %v, want a fatal error of the redirect", err)
	}
}

// A read-only run (a judge's) is offered no tool that writes, and one called anyway is refused.
func TestReadOnlyRun(t *testing.T) {
	dir := gittest.NewRepo(t)
	m := newMock(t, Anthropic,
		step{calls: []call{{toolWrite, obj{"path": "x.txt", "content": "x"}}, {toolBash, obj{"command": "touch y.txt"}}, {toolList, obj{}}}},
		step{text: "PASS"})
	res, err, recs, _ := runMock(t, m, dir, func(r *Request) { r.ReadOnly = true })
	if err != nil || res.Said != "PASS" {
		t.Fatalf("Run: %v, said %q", err, res.Said)
	}
	first := m.body(0)
	for _, name := range []string{toolWrite, toolEdit, toolBash} {
		if strings.Contains(first, `"name":"`+name+`"`) {
			t.Errorf("a read-only run offers %s", name)
		}
	}
	if !strings.Contains(first, `"name":"grep"`) || !strings.Contains(first, "You may only read it") {
		t.Errorf("the read-only run's request: %.300s", first)
	}
	results := ofType(recs, RecToolResult)
	if !results[0].IsError || !results[1].IsError || results[2].IsError || !strings.Contains(results[0].Output, "may only read") {
		t.Errorf("results: %+v", results)
	}
	for _, f := range []string{"x.txt", "y.txt"} {
		if _, err := os.Stat(filepath.Join(dir, f)); err == nil {
			t.Errorf("a read-only run made %s", f)
		}
	}
}
