package redact

import (
	"bytes"
	"sync"
)

// literals are secrets known by their value rather than their shape: an API agent's key,
// which a local server's key ("ollama", a made-up token) has no pattern for.
var literals struct {
	sync.RWMutex
	list [][]byte
}

// minLiteral is the shortest secret Literal keeps: a shorter one would replace common
// words of every text.
const minLiteral = 8

// Literal adds secret to what every redaction in this process replaces (marked
// "api-key"), so that a key git-ralph holds never reaches a file, a log or a view,
// whatever its shape. A secret under 8 bytes is not added.
func Literal(secret string) {
	if len(secret) < minLiteral {
		return
	}
	literals.Lock()
	defer literals.Unlock()
	for _, l := range literals.list {
		if string(l) == secret {
			return
		}
	}
	literals.list = append(literals.list, []byte(secret))
}

// literalSpans finds the Literal secrets in text.
func literalSpans(text []byte) []span {
	literals.RLock()
	defer literals.RUnlock()
	var spans []span
	for _, l := range literals.list {
		for at := 0; ; {
			i := bytes.Index(text[at:], l)
			if i < 0 {
				break
			}
			spans = append(spans, span{start: at + i, end: at + i + len(l), kind: "api-key"})
			at += i + len(l)
		}
	}
	return spans
}
