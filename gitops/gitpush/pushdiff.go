package gitpush

import (
	"bytes"
	"context"
	"errors"

	"github.com/git-ralph/git-ralph/gitops"
)

// MaxDiff bounds the diff of a push that the secret scan reads: a push of a whole
// history with vendored trees must not hold gigabytes in memory. What lies beyond is not
// scanned, and Diff says so.
const MaxDiff = 32 << 20

// errDiffFull stops git once MaxDiff bytes were read.
var errDiffFull = errors.New("diff larger than the scan's bound")

// Diff is the patch of the commits reachable from tips and not from exclude nor from
// any ref of remote (what the remote has not seen yet), with no context lines, as
// `git log -p --unified=0 --format='commit %H'` prints it: the secret scan reads the lines
// it adds. truncated reports that MaxDiff cut it. Merges show no diff; renames and
// binary files show no added lines. Like every git command it is bounded in time.
func Diff(ctx context.Context, dir string, tips, exclude []string, remote string) (diff []byte, truncated bool, err error) {
	args := []string{"-c", "core.quotePath=false", "log", "-p", "--unified=0", "--no-color", "--no-ext-diff",
		"--no-textconv", "--find-renames", "--format=commit %H"}
	args = append(args, tips...)
	args = append(args, "--not")
	args = append(args, exclude...)
	if remote != "" {
		args = append(args, "--remotes="+remote)
	}
	args = append(args, "--")
	w := &cappedBuffer{max: MaxDiff}
	err = gitops.GitTo(ctx, dir, nil, nil, w, args...)
	if w.full && err != nil {
		return w.buf.Bytes(), true, nil
	}
	return w.buf.Bytes(), false, err
}

// cappedBuffer keeps up to max bytes, then refuses more, which stops git.
type cappedBuffer struct {
	buf  bytes.Buffer
	max  int
	full bool
}

func (c *cappedBuffer) Write(p []byte) (int, error) {
	room := c.max - c.buf.Len()
	if len(p) > room {
		c.buf.Write(p[:room])
		c.full = true
		return room, errDiffFull
	}
	return c.buf.Write(p)
}
