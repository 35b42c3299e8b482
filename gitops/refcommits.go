package gitops

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// RefCommit is a ref under a prefix and the commit it names: what `git ralph checkpoints`
// lists of the refs that keep named checkpoints.
type RefCommit struct {
	Name    string    // the ref's full name
	Commit  string    // the commit it names
	Tree    string    // that commit's tree
	Time    time.Time // the commit's committer date
	Message string    // the commit's whole message
}

// RefCommits lists the refs under prefix (a full ref path ending in "/") that name
// commits, with their commit's date and message, in one `git for-each-ref`. Refs naming
// anything else (a hostile repository may put a tree or a blob there) are left out.
func RefCommits(ctx context.Context, dir, prefix string) ([]RefCommit, error) {
	if !strings.HasPrefix(prefix, "refs/") || !strings.HasSuffix(prefix, "/") {
		return nil, fmt.Errorf("listing refs under %q: want a prefix under refs/ ending in /", prefix)
	}
	// Each ref is one record ended by NUL and the newline for-each-ref adds; messages
	// hold no NUL (commit-tree cuts them), so the fields split on NUL.
	out, err := Git(ctx, dir, "for-each-ref",
		"--format=%(objecttype)%00%(refname)%00%(objectname)%00%(tree)%00%(committerdate:unix)%00%(contents)%00", "--", prefix)
	if err != nil {
		return nil, AsNotRepo(dir, fmt.Errorf("listing the refs under %s: %w", prefix, err))
	}
	var refs []RefCommit
	for _, record := range strings.Split(out, "\x00\n") {
		fields := strings.SplitN(strings.TrimPrefix(record, "\n"), "\x00", 6)
		if len(fields) != 6 || fields[0] != "commit" {
			continue
		}
		unix, err := strconv.ParseInt(fields[4], 10, 64)
		if err != nil {
			continue
		}
		refs = append(refs, RefCommit{Name: fields[1], Commit: fields[2], Tree: fields[3], Time: time.Unix(unix, 0).UTC(),
			Message: strings.TrimSuffix(fields[5], "\x00")})
	}
	return refs, nil
}
