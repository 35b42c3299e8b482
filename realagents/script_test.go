package realagents

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"
	"time"
)

// A turn is one answer of the model, written once for every vendor: each mock renders it
// in its own wire protocol. A turn that fails answers with an HTTP error instead.
type turn struct {
	Thinking string // a thinking (reasoning) block before the rest
	Text     string // the model's own words
	Shell    string // a tool call that runs this shell command in the repository
	Fail     *apiError
	// Lasts keeps a failing turn the answer to every request until this long after the
	// first request it answered (a limit lasts until its reset); 0: it answers once.
	Lasts time.Duration
	Hang  bool  // start the stream, send a first event, then never end it
	Usage usage // the tokens this answer reports; zero: defaultUsage
}

// apiError is what a failing turn answers, in the vendor's own words (status, body,
// rate-limit headers).
type apiError struct {
	Kind    errorKind
	ResetIn time.Duration // for limitError: when the limit resets, stated by the API
}

type errorKind string

const (
	limitError    errorKind = "limit"      // 429: a usage or rate limit that resets
	quotaError    errorKind = "quota"      // a permanent quota: no credits, plan exhausted
	authError     errorKind = "auth"       // 401: bad credentials
	serverError   errorKind = "server"     // 500
	overloadedErr errorKind = "overloaded" // 529 (Anthropic) or 503 (the others)
)

type usage struct{ Input, Output int64 }

// defaultUsage is reported by a turn that sets none: distinct numbers per answer, so a
// reader that drops or doubles one answer's usage is caught.
func defaultUsage(n int) usage { return usage{Input: 1000 + int64(n)*100, Output: 40 + int64(n)} }

// mock is a scripted model API: each model request is answered with the next turn of
// its script; the last turn answers every request after the script ran out. A vendor's
// handler decides which requests are model requests (titles, token counts and routing
// questions are answered on their own) and renders the turn.
type mock struct {
	t      *testing.T
	srv    *httptest.Server
	mu     sync.Mutex
	script []turn
	next   int       // index of the turn that answers the next model request
	since  time.Time // when the current lasting turn first answered
	served []served  // what each model request got, for the test's checks and its failure message
	bodies [][]byte  // the body of each served request, for checks of what reached the model
	// judge is the script of the judge's model requests (those whose prompt holds
	// judgePrompt), kept apart from the agent's: a --judge of the same CLI is a second
	// process talking to the same mock. nil: every request takes the agent's script.
	judge     []turn
	nextJudge int
	hangs     sync.WaitGroup
	closed    chan struct{}
}

// served is one model request and the turn that answered it.
type served struct {
	At    time.Time
	Path  string
	Turn  int  // index in the script (the judge's script when Judge)
	Judge bool // a request of the judge, answered from its own script
	Sum   usage
}

// judgePrompt is in every request of a judge's conversation: the first words of
// git-ralph's built-in judge prompt (prompts/judge/PROMPT_judge.md), never in an agent's.
var judgePrompt = []byte("You are the judge of one iteration")

// startMock serves handler on 127.0.0.1 on a free port until the test ends. newHandler
// gets the mock so the handler can take turns from it.
func startMock(t *testing.T, script []turn, newHandler func(*mock) http.Handler) *mock {
	t.Helper()
	m := &mock{t: t, script: script, closed: make(chan struct{})}
	m.srv = httptest.NewServer(newHandler(m)) // httptest binds 127.0.0.1:0
	t.Cleanup(func() {
		close(m.closed) // ends hung streams
		m.srv.Close()
	})
	return m
}

// URL is the mock's base URL, http://127.0.0.1:PORT, without a trailing slash.
func (m *mock) URL() string { return m.srv.URL }

// take returns the turn that answers a model request on path with body, and its index:
// the judge's next turn when the request is the judge's, else the agent's.
func (m *mock) take(path string, body []byte) (turn, int) {
	m.mu.Lock()
	defer m.mu.Unlock()
	now := time.Now()
	if m.isJudge(body) {
		i := min(m.nextJudge, len(m.judge)-1)
		m.nextJudge++
		tr := m.judge[i]
		if tr.Usage == (usage{}) {
			tr.Usage = defaultUsage(i)
		}
		m.served = append(m.served, served{At: now, Path: path, Turn: i, Judge: true, Sum: tr.Usage})
		m.bodies = append(m.bodies, body)
		return tr, i
	}
	last := len(m.script) - 1
	for {
		i := min(m.next, last)
		tr := m.script[i]
		if tr.Lasts > 0 && !m.since.IsZero() && now.Sub(m.since) >= tr.Lasts && i < last {
			// the limit is over: this request gets the turn after it
			m.since = time.Time{}
			m.next++
			continue
		}
		if tr.Lasts > 0 && m.since.IsZero() {
			m.since = now
		}
		if tr.Lasts == 0 && m.next <= last {
			m.next++
		}
		if tr.Usage == (usage{}) {
			tr.Usage = defaultUsage(i)
		}
		m.served = append(m.served, served{At: now, Path: path, Turn: i, Sum: tr.Usage})
		m.bodies = append(m.bodies, body)
		return tr, i
	}
}

// judged reports whether a model request is the judge's, answered from its own script.
// A judge in its CLI's read-only mode may be offered no shell tool (gemini's plan mode,
// opencode's plan agent with bash denied), so the mocks check the shell tool they call
// in the agent's requests only.
func (m *mock) judged(body []byte) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.isJudge(body)
}

// isJudge is judged with m.mu held.
func (m *mock) isJudge(body []byte) bool {
	return m.judge != nil && bytes.Contains(body, judgePrompt)
}

// setJudge gives the judge's requests a script of their own.
func (m *mock) setJudge(script []turn) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.judge = script
}

// request is one served model request with its body.
type request struct {
	served
	Body []byte
}

// bodiesServed returns the model requests so far with their bodies, in the order they came.
func (m *mock) bodiesServed() []request {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]request, len(m.served))
	for i, s := range m.served {
		out[i] = request{s, m.bodies[i]}
	}
	return out
}

// requests returns what the model requests got so far.
func (m *mock) requests() []served {
	m.mu.Lock()
	defer m.mu.Unlock()
	return append([]served(nil), m.served...)
}

// hang holds a stream open until the client goes away or the test ends, and counts it
// so the test can check that the timeout really closed the CLI's connection.
func (m *mock) hang(ctx context.Context) {
	m.hangs.Add(1)
	defer m.hangs.Done()
	select {
	case <-ctx.Done():
	case <-m.closed:
	}
}

// hangsEnded reports whether every hung stream's client went away within d.
func (m *mock) hangsEnded(d time.Duration) bool {
	done := make(chan struct{})
	go func() { m.hangs.Wait(); close(done) }()
	select {
	case <-done:
		return true
	case <-time.After(d):
		return false
	}
}

// flush sends what was written so far: a stream's events must reach the CLI as they
// are written, not when the handler returns.
func flush(w http.ResponseWriter) {
	if f, ok := w.(http.Flusher); ok {
		f.Flush()
	}
}

// halves cuts s in two, as a stream delivers text in pieces (never inside a character):
// every vendor's mock sends each answer in more than one delta.
func halves(s string) []string {
	n := len(s) / 2
	for n > 0 && n < len(s) && !utf8Start(s[n]) {
		n++
	}
	if n == 0 || n >= len(s) {
		return []string{s}
	}
	return []string{s[:n], s[n:]}
}

func utf8Start(b byte) bool { return b&0xC0 != 0x80 }
