package servesource

import (
	"os"
	"slices"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// LiveFormats remembers, for each loop, which agent format renders its latest iteration's
// live log, as status.LastRecorded found it in the few records before it, and when those records
// were last written: each page that shows a loop opens a live stream, and its first look
// would otherwise read and parse up to ten records again. A record is written by a rename
// into its iteration's directory, which changes the directory's modification time, so a
// look at those times (no file read) says whether the records are as they were.
type LiveFormats struct {
	mu    sync.Mutex
	known map[string]formatSeen // by the loop's work tree
}

// formatSeen is what a loop's records said, and when they had been written.
type formatSeen struct {
	iteration int
	written   []time.Time // the modification times of the iterations' directories, newest first
	format    agentcli.Format
}

// of is the format of iteration n's log of the loop at path, read from its records only
// when they changed since it was last asked. A nil LiveFormats reads them every time.
func (c *LiveFormats) of(path string, store *history.Store, n int) agentcli.Format {
	if c == nil {
		_, f := status.LastRecorded(store, n)
		return f
	}
	written := recordsWritten(store, n)
	c.mu.Lock()
	seen, ok := c.known[path]
	c.mu.Unlock()
	if ok && seen.iteration == n && slices.Equal(seen.written, written) {
		return seen.format
	}
	_, f := status.LastRecorded(store, n)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.known == nil {
		c.known = map[string]formatSeen{}
	}
	c.known[path] = formatSeen{iteration: n, written: written, format: f}
	return f
}

// recordsWritten are the modification times of the directories of the iterations
// status.LastRecorded reads (n and the nine before it), the zero time for one that is not there.
func recordsWritten(store *history.Store, n int) []time.Time {
	var out []time.Time
	for i := n; i >= 1 && n-i < 10; i-- {
		var t time.Time
		if info, err := os.Lstat(store.IterationDir(i)); err == nil {
			t = info.ModTime()
		}
		out = append(out, t)
	}
	return out
}
