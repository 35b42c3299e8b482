package apiagent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/loop/agent"
)

// The defaults of Request's zero values.
const (
	DefaultMaxTurns      = 100
	DefaultBashTimeout   = 10 * time.Minute
	DefaultIdleTimeout   = 5 * time.Minute
	DefaultMaxToolOutput = 32 << 10
	DefaultRetries       = 3
	DefaultBackoff       = 2 * time.Second
	// DefaultAnthropicMaxOutput is the reply's max_tokens, which the Messages API requires;
	// the OpenAI protocols leave it to the server unless Request.MaxOutput is set.
	DefaultAnthropicMaxOutput = 16384
	maxRetryWait              = time.Minute // the longest a retry-after is waited inside Run
	maxErrorBody              = 64 << 10
)

// timeNow is the clock of the answers' reset times.
var timeNow = time.Now

// Request is one iteration of an API agent.
type Request struct {
	Protocol string // Anthropic, Responses or Chat
	Model    string
	BaseURL  string // the API's base URL ("http://localhost:11434/v1"); the vendor's own when empty
	Key      string // the API key; "" sends none (a local server). Never written anywhere.
	WorkTree string // the directory the tools work in
	Prompt   string // the assembled prompt: the conversation's one user message
	// MaxTurns is how many model requests the iteration may make; a model still calling
	// tools after them fails the iteration (TooManyTurns). 0: DefaultMaxTurns.
	MaxTurns int
	// MaxContext caps the conversation's tokens: a turn that reaches it, or tool results
	// that would take the next request over it, fail the iteration (ContextFull). 0: no
	// cap of git-ralph's own (the model's window still applies, and fails the same way).
	MaxContext int64
	// MaxOutput is a reply's output tokens; 0: DefaultAnthropicMaxOutput for Anthropic,
	// the server's default for the others.
	MaxOutput int
	// BashTimeout is the longest one bash call runs; 0: DefaultBashTimeout.
	BashTimeout time.Duration
	// IdleTimeout fails a request whose answer sends nothing for that long (Timeout);
	// 0: DefaultIdleTimeout.
	IdleTimeout time.Duration
	// MaxToolOutput bounds each tool result the model is given, in bytes; 0:
	// DefaultMaxToolOutput.
	MaxToolOutput int
	// Retries is how many times a request that failed in a transient way is tried again;
	// 0: DefaultRetries, negative: none. Backoff is the first wait, doubled each time; 0:
	// DefaultBackoff.
	Retries int
	Backoff time.Duration
	// LimitWait is the longest wait for a rate limit to reset inside Run, so that a short
	// per-minute limit does not cost the conversation; a limit that resets later (or
	// that is permanent, or whose reset the server did not say) fails the iteration
	// (Limit), for the loop to wait. 0: none waited inside.
	LimitWait time.Duration
	// Marker is an environment entry (RALPH_RUN=…) that the bash tool's processes carry,
	// so that the run's watchdog finds them if git-ralph dies; one of Run's own when "".
	Marker string
	// Watchdogs is the run's shared watchdog (see agent.Spec.Watchdogs), which stops the
	// bash tool's processes if git-ralph dies during a call; none when nil.
	Watchdogs *agent.Watchdogs
	// ReadOnly offers the model only the tools that read (read_file, list_dir, glob,
	// grep) and a system prompt that says so: a judge's run, which must not change the
	// repository it judges.
	ReadOnly bool
	// Price turns the iteration's usage into a cost (Result.CostUSD, the end record's
	// cost_usd); nil: the model has none, and the cost is unknown.
	Price *Price
	// Env are entries added to the bash tool's environment (the loop's RALPH_ITERATION,
	// RALPH_MODE, …, as a CLI agent gets them); the marker and the emptied key
	// variables come after them, and win.
	Env []string
	// Out receives the exchange as JSON lines (see Record); nil: nowhere.
	Out io.Writer
	// Client is the HTTP client (its transport, its proxy); a plain one when nil. Run
	// follows no redirect either way.
	Client *http.Client
}

// Result is what one iteration of an API agent did.
type Result struct {
	// Said is the model's own text of every turn, joined by newlines: never its thinking
	// nor a tool's result. The promise (<promise>SUCCESS</promise>) is looked for here.
	Said string
	// Final is the text of the model's last turn that had any.
	Final string
	Turns int   // the model's turns read whole (a request that failed is not one)
	Usage Usage // the tokens of every turn
	Model string
	// CostUSD is the usage at Request.Price, when HasCost: the price was known.
	CostUSD float64
	HasCost bool
	Err     *Error // nil when the model ended its turn
}

// Run runs one iteration: a fresh conversation of the built-in system prompt and
// req.Prompt, the model's tool calls run in req.WorkTree, until the model ends its turn
// or a limit is reached. The returned error is Result.Err.
func Run(ctx context.Context, req Request) (Result, error) {
	r, err := newRun(req)
	if err != nil {
		return Result{Model: req.Model, Err: err}, err
	}
	defer r.tools.close()
	r.rec.write(Record{Type: RecStart, Protocol: req.Protocol, Model: req.Model, BaseURL: redactedURL(r.base)})
	res := r.converse(ctx)
	if res.Err != nil {
		r.rec.write(errorRecord(RecError, res.Turns, 0, res.Err))
	}
	end := Record{Type: RecEnd, Turns: res.Turns, Usage: &res.Usage}
	if req.Price != nil {
		res.CostUSD, res.HasCost = req.Price.Cost(res.Usage), true
		end.CostUSD = &res.CostUSD
	}
	r.rec.write(end)
	if res.Err != nil {
		return res, res.Err
	}
	return res, nil
}

// run is one iteration under way.
type run struct {
	req    Request
	base   string
	proto  protocol
	tools  *toolbox
	rec    *recorder
	client *http.Client
	scrub  func([]byte) []byte
}

func newRun(req Request) (*run, *Error) {
	proto, ok := newProtocol(req.Protocol)
	if !ok {
		return nil, &Error{Kind: Fatal, Message: fmt.Sprintf("no API protocol %q: it is %q, %q or %q", req.Protocol, Anthropic, Responses, Chat)}
	}
	if req.Model == "" {
		return nil, &Error{Kind: Fatal, Message: "no model named: an API agent needs one"}
	}
	if req.WorkTree == "" || strings.TrimSpace(req.Prompt) == "" {
		return nil, &Error{Kind: Fatal, Message: "an API agent needs a work tree and a prompt"}
	}
	if err := checkBase(req.BaseURL); err != nil {
		return nil, err
	}
	req = withDefaults(req)
	scrub := scrubber(req.Key)
	tools, err := openToolbox(req.WorkTree, req.MaxToolOutput, bashSettings{
		timeout: req.BashTimeout, env: bashEnv(req.Marker, req.Key, req.Env), marker: req.Marker, watchdogs: req.Watchdogs,
	}, scrub)
	if err != nil {
		return nil, &Error{Kind: Fatal, Message: err.Error()}
	}
	tools.readOnly = req.ReadOnly
	base := req.BaseURL
	if base == "" {
		base = defaultBase(req.Protocol)
	}
	client := &http.Client{}
	if req.Client != nil {
		*client = *req.Client
	}
	// A redirect would carry the key's header (x-api-key) to wherever it points: the
	// answer is taken as it is, and a 3xx fails the iteration as any unexpected answer.
	client.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	return &run{req: req, base: base, proto: proto, tools: tools, client: client, scrub: scrub,
		rec: &recorder{w: req.Out, start: time.Now(), scrub: scrub}}, nil
}

func withDefaults(req Request) Request {
	def := func(v *time.Duration, d time.Duration) {
		if *v <= 0 {
			*v = d
		}
	}
	def(&req.BashTimeout, DefaultBashTimeout)
	def(&req.IdleTimeout, DefaultIdleTimeout)
	def(&req.Backoff, DefaultBackoff)
	if req.MaxTurns <= 0 {
		req.MaxTurns = DefaultMaxTurns
	}
	if req.MaxToolOutput <= 0 {
		req.MaxToolOutput = DefaultMaxToolOutput
	}
	if req.Retries == 0 {
		req.Retries = DefaultRetries
	}
	if req.MaxOutput <= 0 && req.Protocol == Anthropic {
		req.MaxOutput = DefaultAnthropicMaxOutput
	}
	if req.Marker == "" {
		req.Marker = "RALPH_RUN=api-" + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano(), 36)
	}
	return req
}

// bashEnv is what the bash tool adds to git-ralph's environment: the loop's entries
// (extra), the marker, and every variable that holds the key emptied.
func bashEnv(marker, key string, extra []string) []string {
	env := append(slices.Clone(extra), marker)
	if key == "" {
		return env
	}
	for _, kv := range os.Environ() {
		name, value, ok := strings.Cut(kv, "=")
		if ok && (value == key || len(key) >= 8 && strings.Contains(value, key)) {
			env = append(env, name+"=")
		}
	}
	return env
}

// converse is the iteration's turns.
func (r *run) converse(ctx context.Context) (res Result) {
	res.Model = r.req.Model
	system, tools := systemPrompt, toolSpecs
	if r.req.ReadOnly {
		system, tools = readOnlyPrompt, readOnlySpecs()
	}
	r.rec.write(Record{Type: RecSystem, Text: system})
	r.rec.write(Record{Type: RecPrompt, Text: r.req.Prompt})
	r.proto.begin(system, r.req.Prompt, tools)
	var said []string
	defer func() { res.Said = strings.Join(said, "\n") }()
	for turn := 1; ; turn++ {
		if turn > r.req.MaxTurns {
			res.Err = &Error{Kind: TooManyTurns, Message: fmt.Sprintf("the model was still calling tools after %d turns, the most an iteration may take", r.req.MaxTurns)}
			return res
		}
		rep, size, err := r.ask(ctx, turn)
		if rep != nil {
			res.Turns = turn
			res.Usage.add(rep.Usage)
			if rep.Text != "" {
				text := string(r.scrub([]byte(rep.Text))) // the key, were a server to echo it
				said = append(said, text)
				res.Final = text
			}
		}
		if err == nil && len(rep.Calls) > 0 {
			err = r.act(ctx, turn, rep.Calls, size)
		}
		if err != nil || len(rep.Calls) == 0 {
			res.Err = err
			return res
		}
	}
}

// ask sends the conversation and reads the model's turn, which it records with the
// conversation's size after it. The reply is nil when none came.
func (r *run) ask(ctx context.Context, turn int) (*reply, int64, *Error) {
	body, rep, apiErr := r.send(ctx, turn)
	if d, ok := r.proto.(downgrader); ok && apiErr != nil && d.downgrade(apiErr) {
		retry := errorRecord(RecRetry, turn, 0, apiErr)
		r.rec.write(retry)
		body, rep, apiErr = r.send(ctx, turn)
	}
	if apiErr != nil {
		return nil, 0, apiErr
	}
	size := rep.Usage.context()
	if size == 0 { // the server reported no usage: the request's size says roughly
		size = int64(len(body)+len(rep.Text)) / 4
	}
	r.recordReply(turn, rep, size)
	if rep.ContextFull {
		return &rep, size, &Error{Kind: ContextFull, Message: fmt.Sprintf("the model stopped with its context window full (%d tokens)", size)}
	}
	return &rep, size, nil
}

// send builds the turn's request and exchanges it.
func (r *run) send(ctx context.Context, turn int) ([]byte, reply, *Error) {
	body, err := r.proto.body(r.req.Model, r.req.MaxOutput)
	if err != nil {
		return nil, reply{}, &Error{Kind: Fatal, Message: "building the request: " + err.Error()}
	}
	rep, apiErr := r.exchange(ctx, turn, body)
	return body, rep, apiErr
}

// act runs the turn's tool calls and checks that the conversation may go on.
func (r *run) act(ctx context.Context, turn int, calls []toolCall, size int64) *Error {
	added := r.runTools(ctx, turn, calls)
	if err := r.checkContext(size, added); err != nil {
		return err
	}
	if ctx.Err() != nil {
		return &Error{Kind: Interrupted, Message: "interrupted"}
	}
	return nil
}

// checkContext fails the iteration when the conversation, size tokens after the last
// turn plus the results of its tools (added bytes, about four to a token), would go
// over the cap: the model is never sent a conversation cut short.
func (r *run) checkContext(size int64, added int) *Error {
	capTokens := r.req.MaxContext
	if capTokens <= 0 {
		return nil
	}
	next := size + int64(added)/4
	if next <= capTokens {
		return nil
	}
	return &Error{Kind: ContextFull, Message: fmt.Sprintf("the conversation would reach about %d tokens, over the cap of %d (max_context)", next, capTokens)}
}

func (r *run) recordReply(turn int, rep reply, size int64) {
	if rep.Thinking != "" {
		r.rec.write(Record{Type: RecThinking, Turn: turn, Text: rep.Thinking})
	}
	if rep.Text != "" {
		r.rec.write(Record{Type: RecText, Turn: turn, Text: rep.Text})
	}
	u := rep.Usage
	r.rec.write(Record{Type: RecUsage, Turn: turn, Usage: &u, Context: size, Stop: rep.Stop})
}

// runTools runs the turn's calls in order, records them, and gives the results to the
// conversation; it returns the results' size in bytes.
func (r *run) runTools(ctx context.Context, turn int, calls []toolCall) int {
	results := make([]toolResult, len(calls))
	added := 0
	for i, c := range calls {
		r.rec.write(Record{Type: RecToolCall, Turn: turn, ID: c.ID, Name: c.Name, Input: rawInput(c.Input)})
		if ctx.Err() != nil {
			results[i] = toolResult{Call: c, Output: "not run: the iteration was interrupted", IsError: true}
		} else {
			results[i] = r.tools.run(ctx, c)
		}
		res := results[i]
		r.rec.write(Record{Type: RecToolResult, Turn: turn, ID: c.ID, Name: c.Name, Output: res.Output, IsError: res.IsError})
		added += len(res.Output)
	}
	r.proto.answer(results)
	return added
}

// exchange sends one turn's request, trying again after a transient failure, or after
// a limit that resets within LimitWait.
func (r *run) exchange(ctx context.Context, turn int, body []byte) (reply, *Error) {
	tries := retries{backoff: r.req.Backoff}
	for attempt := 1; ; attempt++ {
		r.rec.write(Record{Type: RecRequest, Turn: turn, Attempt: attempt, Bytes: len(body)})
		rep, err := r.attempt(ctx, body)
		if err == nil {
			return rep, nil
		}
		err.Message = string(r.scrub([]byte(err.Message)))
		pause, again := tries.after(err, r.req)
		if !again {
			return rep, err
		}
		rec := errorRecord(RecRetry, turn, attempt, err)
		rec.WaitMS = pause.Milliseconds()
		r.rec.write(rec)
		select {
		case <-ctx.Done():
			return reply{}, &Error{Kind: Interrupted, Message: "interrupted while waiting to try again after: " + err.Message}
		case <-time.After(pause):
		}
	}
}

// maxLimitWaits is how many limits one turn waits out inside Run before it fails.
const maxLimitWaits = 3

// retries counts one turn's tries again.
type retries struct {
	transient, limits int
	backoff           time.Duration // the next transient failure's wait
}

// after says whether a request that failed with err is sent again, and after how long: a
// transient failure while Retries last (the backoff, doubling, or the server's
// retry-after up to a minute); a limit that is not permanent and resets within
// LimitWait, at its reset.
func (t *retries) after(err *Error, req Request) (time.Duration, bool) {
	switch {
	case err.retryable() && req.Retries >= 0 && t.transient < req.Retries:
		t.transient++
		pause := max(t.backoff, min(err.RetryAfter, maxRetryWait))
		t.backoff *= 2
		return pause, true
	case err.Kind == Limit && !err.Permanent && !err.ResetAt.IsZero() && t.limits < maxLimitWaits:
		until := err.ResetAt.Sub(timeNow())
		if until > req.LimitWait {
			return 0, false
		}
		t.limits++
		return max(until, 0), true
	}
	return 0, false
}

func errorRecord(typ string, turn, attempt int, e *Error) Record {
	rec := Record{Type: typ, Turn: turn, Attempt: attempt, Kind: e.Kind.String(), Status: e.Status, Message: e.Message,
		Permanent: e.Permanent}
	if !e.ResetAt.IsZero() {
		at := e.ResetAt.UTC()
		rec.ResetAt = &at
	}
	return rec
}

// errIdle is the cause of a request cancelled because its answer went silent.
var errIdle = errors.New("idle")

// redactedURL is a URL as the exchange shows it: without the password a user may have put
// in it.
func redactedURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(a URL that does not parse)"
	}
	return u.Redacted()
}

// checkBase refuses a base URL that no request could reach ("" is the vendor's own).
func checkBase(base string) *Error {
	if base == "" {
		return nil
	}
	u, err := url.Parse(base)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return &Error{Kind: Fatal, Message: fmt.Sprintf("the API's base URL %q is not an http:// or https:// URL with a host (such as http://localhost:11434/v1)", redactedURL(base))}
	}
	return nil
}
