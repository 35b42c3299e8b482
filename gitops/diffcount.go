package gitops

import (
	"bytes"
	"context"
	"fmt"
	"io"
)

// DiffCounted streams the unified diff between two trees to w, as Diff does, and returns
// its counts, as DiffStat does, from one git process (`git diff --numstat -z -p`): a loop
// needs both after every iteration that changed something.
func DiffCounted(ctx context.Context, dir, from, to string, w io.Writer) (Changes, error) {
	args := append(append([]string{"diff", "--numstat", "-z", "-p"}, diffArgs...), from, to, "--")
	split := &numstatSplitter{patch: w}
	if err := gitTo(ctx, dir, nil, nil, split, args...); err != nil {
		return Changes{}, fmt.Errorf("diffing %s to %s: %w", from, to, err)
	}
	return parseNumstat(split.numstat.String())
}

// numstatSplitter takes the output of `git diff --numstat -z -p`: the numstat records, each
// ending in NUL, then one more NUL, then the patch. It keeps the records and streams the
// patch to its writer.
type numstatSplitter struct {
	numstat bytes.Buffer
	patch   io.Writer
	inPatch bool
}

func (s *numstatSplitter) Write(p []byte) (int, error) {
	if s.inPatch {
		return s.patch.Write(p)
	}
	n := len(p)
	s.numstat.Write(p)
	all := s.numstat.Bytes()
	end := bytes.Index(all, []byte{0, 0})
	if end < 0 {
		return n, nil
	}
	rest := bytes.Clone(all[end+2:])
	s.numstat.Truncate(end + 1)
	s.inPatch = true
	if _, err := s.patch.Write(rest); err != nil {
		return 0, err
	}
	return n, nil
}
