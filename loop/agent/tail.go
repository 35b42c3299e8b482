package agent

// Tail keeps the last Max bytes written to it in a ring, so memory stays bounded however
// much the agent prints. It grows lazily: a quiet agent costs only what it printed.
type Tail struct {
	max   int
	buf   []byte // len(buf) < max until the ring is full
	head  int    // once full: index of the oldest byte
	full  bool
	total int64
}

// NewTail returns a Tail that keeps at most max bytes (at least 1).
func NewTail(max int) *Tail {
	if max < 1 {
		max = 1
	}
	return &Tail{max: max}
}

// Write never fails; it drops the oldest bytes when the ring is full.
func (t *Tail) Write(p []byte) (int, error) {
	n := len(p)
	t.total += int64(n)
	if n >= t.max {
		t.keepOnly(p[n-t.max:])
		return n, nil
	}
	if !t.full {
		room := t.max - len(t.buf)
		if n <= room {
			t.buf = append(t.buf, p...)
			t.full = len(t.buf) == t.max
			return n, nil
		}
		t.buf = append(t.buf, p[:room]...)
		t.full, t.head, p = true, 0, p[room:]
	}
	for len(p) > 0 {
		c := copy(t.buf[t.head:], p)
		t.head = (t.head + c) % t.max
		p = p[c:]
	}
	return n, nil
}

func (t *Tail) keepOnly(p []byte) {
	if cap(t.buf) < t.max {
		t.buf = make([]byte, t.max)
	}
	t.buf = t.buf[:t.max]
	copy(t.buf, p)
	t.head, t.full = 0, true
}

// Bytes returns the kept bytes, oldest first, as a new slice.
func (t *Tail) Bytes() []byte {
	if !t.full {
		return append([]byte(nil), t.buf...)
	}
	out := make([]byte, 0, t.max)
	out = append(out, t.buf[t.head:]...)
	return append(out, t.buf[:t.head]...)
}

// Total is how many bytes were written in all.
func (t *Tail) Total() int64 { return t.total }

// Truncated reports whether bytes were dropped.
func (t *Tail) Truncated() bool { return t.total > int64(t.max) }

// Max is the most bytes kept.
func (t *Tail) Max() int { return t.max }
