package serve

import (
	"bufio"
	"context"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/livelog"
)

// How often a live stream reads the log, asks which log is the latest, and tells the
// browser it is still there (a comment line: a closed tab fails the write and ends it).
var (
	liveTick      = 250 * time.Millisecond
	liveLocate    = time.Second
	liveKeepAlive = 15 * time.Second
	// liveWriteWait is how long one round of writes may wait on the browser: a tab that
	// stopped reading (or a program that never reads) would otherwise hold the stream in a
	// write forever, and the server's stop for its whole grace
	liveWriteWait = 3 * time.Second
)

// livePage streams the loop's latest iteration's output as server-sent events: an
// "iteration" event when a new log starts (data: its number), a "state" event when the
// loop's state changes, and one message per rendered line. It only reads files, and
// ends when the browser goes away or the server stops.
func (s *Server) livePage(w http.ResponseWriter, r *http.Request) {
	read, err := s.src.Live(r.Context(), r.PathValue("loop"))
	if err != nil {
		fail(w, err)
		return
	}
	flusher, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "500: this connection cannot stream", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream; charset=utf-8")
	w.WriteHeader(http.StatusOK)
	st := &liveStream{w: bufio.NewWriter(w), read: read}
	rc := http.NewResponseController(w)
	s.follow(r.Context(), st, func() {
		// each round's writes, the flush and those bufio makes on the way, get their time
		// (a connection that cannot have a deadline streams without one)
		_ = rc.SetWriteDeadline(time.Now().Add(liveWriteWait))
	}, func() error {
		if err := st.w.Flush(); err != nil {
			return err
		}
		flusher.Flush()
		return nil
	})
}

// follow runs the stream until ctx ends, the server stops or a write fails; each round
// begins with round (which sets the writes' deadline) and ends with flush.
func (s *Server) follow(ctx context.Context, st *liveStream, round func(), flush func() error) {
	tick := time.NewTicker(liveTick)
	defer tick.Stop()
	var located, alive time.Time
	for {
		round()
		now := time.Now()
		if now.Sub(located) >= liveLocate {
			st.locate()
			located = now
		}
		st.lines()
		if now.Sub(alive) >= liveKeepAlive {
			st.w.WriteString(": still here\n\n")
			alive = now
		}
		if flush() != nil {
			return
		}
		select {
		case <-ctx.Done():
			return
		case <-s.stopping:
			return
		case <-tick.C:
		}
	}
}

// liveStream is one browser's stream: the log it follows and what it told it last.
type liveStream struct {
	w     *bufio.Writer
	read  LiveReader
	tail  *livelog.Tail
	state string
}

// locate asks which log is the latest and what the loop's state is; a new log starts a
// new tail (and a new renderer, as each log is its own agent's stream).
func (st *liveStream) locate() {
	live, err := st.read()
	if err != nil {
		live.State = "unreadable: " + err.Error()
	}
	if live.State != st.state {
		st.state = live.State
		st.event("state", live.State)
	}
	if live.Path != st.tail.Path() {
		st.tail = livelog.New(live.Path, live.Format)
		if live.Path != "" {
			st.event("iteration", strconv.Itoa(live.Iteration))
		}
	}
}

// lines sends what the log rendered since the last read, one message a line.
func (st *liveStream) lines() {
	for _, l := range st.tail.Read() {
		st.event("", l)
	}
}

// event writes one event. The rendered lines are plain (agentcli.Plain), but a line
// break in data would end the event early, so none gets through.
func (st *liveStream) event(name, data string) {
	if name != "" {
		fmt.Fprintf(st.w, "event: %s\n", name)
	}
	data = strings.NewReplacer("\r", " ", "\n", " ").Replace(data)
	fmt.Fprintf(st.w, "data: %s\n\n", data)
}
