package apiagent

import (
	"net/http"
	"strconv"
	"strings"
	"time"
)

// resetAt is when a rate limit resets, as the answer's headers say: retry-after (or
// OpenAI's retry-after-ms) first, since it is about this request; otherwise the latest
// reset among the limits the headers say are spent (remaining 0), or among all of them
// when none says so: Anthropic's anthropic-ratelimit-*-reset (RFC 3339, or epoch seconds
// for a subscriber's unified windows) and OpenAI's x-ratelimit-reset-* ("6m0s", "20ms").
// Zero when the headers say nothing.
func resetAt(h http.Header, now time.Time) time.Time {
	if at := retryAfter(h, now); !at.IsZero() {
		return at
	}
	var spent, any time.Time
	for name, values := range h {
		lower := strings.ToLower(name)
		at, ok := headerReset(lower, values[0], now)
		if !ok {
			continue
		}
		any = later(any, at)
		if remaining, known := remainingOf(h, lower); known && remaining == "0" {
			spent = later(spent, at)
		}
	}
	if !spent.IsZero() {
		return spent
	}
	return any
}

// retryAfter is the time retry-after-ms or retry-after names (seconds or an HTTP date).
func retryAfter(h http.Header, now time.Time) time.Time {
	if h == nil {
		return time.Time{}
	}
	if ms, err := strconv.ParseFloat(h.Get("retry-after-ms"), 64); err == nil && ms >= 0 && ms < 1e12 {
		return now.Add(time.Duration(ms * float64(time.Millisecond)))
	}
	v := strings.TrimSpace(h.Get("retry-after"))
	if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && secs < 1e9 {
		return now.Add(time.Duration(secs * float64(time.Second)))
	}
	if at, err := http.ParseTime(v); err == nil {
		return at
	}
	return time.Time{}
}

// headerReset reads one reset header: name is lower-case.
func headerReset(name, v string, now time.Time) (time.Time, bool) {
	v = strings.TrimSpace(v)
	switch {
	case strings.HasPrefix(name, "anthropic-ratelimit-") && strings.HasSuffix(name, "-reset"):
		if at, err := time.Parse(time.RFC3339, v); err == nil {
			return at, true
		}
		if secs, err := strconv.ParseInt(v, 10, 64); err == nil && secs > 0 && secs < 1e11 {
			return time.Unix(secs, 0), true
		}
	case strings.HasPrefix(name, "x-ratelimit-reset-"):
		if d, err := time.ParseDuration(v); err == nil && d >= 0 {
			return now.Add(d), true
		}
		if secs, err := strconv.ParseFloat(v, 64); err == nil && secs >= 0 && secs < 1e9 {
			return now.Add(time.Duration(secs * float64(time.Second))), true
		}
	}
	return time.Time{}, false
}

// remainingOf is the "remaining" header beside a reset header: Anthropic's
// anthropic-ratelimit-X-remaining beside -X-reset, OpenAI's x-ratelimit-remaining-X
// beside x-ratelimit-reset-X. known is false when there is none (the unified windows say
// "status" instead: "rejected" counts as spent).
func remainingOf(h http.Header, reset string) (string, bool) {
	if strings.HasPrefix(reset, "x-ratelimit-reset-") {
		v := h.Get("x-ratelimit-remaining-" + strings.TrimPrefix(reset, "x-ratelimit-reset-"))
		return strings.TrimSpace(v), v != ""
	}
	base := strings.TrimSuffix(reset, "-reset")
	if v := h.Get(base + "-remaining"); v != "" {
		return strings.TrimSpace(v), true
	}
	if v := h.Get(base + "-status"); v != "" {
		if v == "rejected" {
			return "0", true
		}
		return "1", true
	}
	return "", false
}

func later(a, b time.Time) time.Time {
	if b.After(a) {
		return b
	}
	return a
}
