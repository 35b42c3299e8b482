package gitpush

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestDiffIsWhatTheRemoteLacks(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	base := run(t, dir, "rev-parse", "HEAD")
	write(t, dir, "secret.env", "KEY=AKIAIOSFODNN7EXAMPLQ\n")
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "key")
	head := run(t, dir, "rev-parse", "HEAD")
	diff, truncated, err := Diff(ctx, dir, []string{head}, []string{base}, "")
	if err != nil || truncated {
		t.Fatalf("Diff: %v (truncated %v)", err, truncated)
	}
	s := string(diff)
	if !strings.Contains(s, "commit "+head) || !strings.Contains(s, "+++ b/secret.env") || !strings.Contains(s, "+KEY=AKIA") {
		t.Errorf("diff lacks the new commit's added line:\n%s", s)
	}
	if strings.Contains(s, "commit "+base) {
		t.Errorf("diff holds the excluded commit:\n%s", s)
	}
}

func TestDiffIsBounded(t *testing.T) {
	ctx := context.Background()
	dir := committedRepo(t)
	big := bytes.Repeat([]byte("0123456789abcdef\n"), (MaxDiff/17)+1000)
	write(t, dir, "big.txt", string(big))
	run(t, dir, "add", "-A")
	run(t, dir, "commit", "-q", "-m", "big")
	diff, truncated, err := Diff(ctx, dir, []string{"HEAD"}, nil, "")
	if err != nil || !truncated || len(diff) != MaxDiff {
		t.Errorf("Diff of a %d-byte file: %d bytes, truncated %v, err %v", len(big), len(diff), truncated, err)
	}
}
