package githooks

import (
	"context"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop"
)

// ScanPush scans the commits the updates send that the remote has not seen (neither its
// old value of each ref nor any ref of remote reaches them) for secrets: see loop.ScanPush.
func ScanPush(ctx context.Context, root string, updates []RefUpdate, remote string, allow map[string]bool) (string, error) {
	var tips, exclude []string
	for _, u := range updates {
		if u.deletes() || u.LocalSHA == u.RemoteSHA {
			continue
		}
		tips = append(tips, u.LocalSHA)
		if strings.Trim(u.RemoteSHA, "0") == "" {
			continue
		}
		// the remote's old commit may be unknown here (someone else pushed it)
		if old, ok, err := gitops.CommitOf(ctx, root, u.RemoteSHA); err == nil && ok {
			exclude = append(exclude, old)
		}
	}
	if len(tips) == 0 {
		return "", nil
	}
	return loop.ScanPush(ctx, root, tips, exclude, remote, allow)
}
