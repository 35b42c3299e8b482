package apiagent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"strings"
	"time"
)

// attempt sends the request once and reads its streamed answer. The answer is watched
// for silence: nothing for IdleTimeout, from the request's sending to the stream's end,
// cancels it.
func (r *run) attempt(ctx context.Context, body []byte) (reply, *Error) {
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	idle := time.AfterFunc(r.req.IdleTimeout, func() { cancel(errIdle) })
	defer idle.Stop()
	httpReq, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint(r.base, r.proto.path()), bytes.NewReader(body))
	if err != nil {
		return reply{}, &Error{Kind: Fatal, Message: "the API's URL: " + err.Error()}
	}
	httpReq.Header.Set("Content-Type", "application/json")
	httpReq.Header.Set("Accept", "text/event-stream")
	r.proto.header(httpReq.Header, r.req.Key)
	resp, err := r.client.Do(httpReq)
	if err != nil {
		return reply{}, r.transportError(ctx, err)
	}
	defer resp.Body.Close()
	idle.Reset(r.req.IdleTimeout)
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBody))
		if ctx.Err() != nil {
			return reply{}, r.transportError(ctx, ctx.Err())
		}
		return reply{}, classify(resp.StatusCode, resp.Header, parseAPIError(data), timeNow())
	}
	if mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type")); mt == "application/json" {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, 300))
		return reply{}, &Error{Kind: Fatal, Status: resp.StatusCode, Message: fmt.Sprintf("the server answered with JSON, not a stream of events (does it stream this API?): %s", strings.TrimSpace(string(data)))}
	}
	rep, err := r.proto.read(newSSEReader(idleReader{resp.Body, idle, r.req.IdleTimeout}))
	if err != nil {
		var apiErr *Error
		if errors.As(err, &apiErr) {
			return rep, apiErr
		}
		return rep, r.transportError(ctx, err)
	}
	return rep, nil
}

// transportError classifies a failure to send or to read: a silence (Timeout), an
// interruption, or a dropped connection or cut stream (Transient).
func (r *run) transportError(ctx context.Context, err error) *Error {
	switch cause := context.Cause(ctx); {
	case errors.Is(cause, errIdle):
		return &Error{Kind: Timeout, Message: fmt.Sprintf("the server sent nothing for %s", r.req.IdleTimeout)}
	case cause != nil:
		return &Error{Kind: Interrupted, Message: "interrupted"}
	}
	return &Error{Kind: Transient, Message: "the connection failed: " + err.Error()}
}

// idleReader puts off the silence timer at every read that brings bytes.
type idleReader struct {
	r     io.Reader
	timer *time.Timer
	d     time.Duration
}

func (i idleReader) Read(p []byte) (int, error) {
	n, err := i.r.Read(p)
	if n > 0 {
		i.timer.Reset(i.d)
	}
	return n, err
}
