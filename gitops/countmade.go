package gitops

import (
	"context"

	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
	"github.com/go-git/go-git/v5/plumbing"
)

// linearWalk bounds the commits CountMade reads itself.
const linearWalk = 64

// CountMade is CountAhead(base, tip) for the loop's question after each iteration: how
// many commits it made. It follows tip's parents with go-git, without a process, while
// each commit has one parent, until base; anything else (a merge, a reset to an older
// commit, a long way, a repository go-git does not read as git does) asks git.
func CountMade(ctx context.Context, dir, base, tip string) (int, error) {
	if n, ok := countLinear(dir, base, tip); ok {
		return n, nil
	}
	return CountAhead(ctx, dir, base, tip)
}

func countLinear(dir, base, tip string) (int, bool) {
	if len(base) != 40 {
		return 0, false
	}
	repo, err := gitstore.OpenForTrees(dir, tip)
	if err != nil {
		return 0, false
	}
	at := plumbing.NewHash(tip)
	for n := 0; n < linearWalk; n++ {
		if at.String() == base {
			return n, true
		}
		c, err := repo.CommitObject(at)
		if err != nil || len(c.ParentHashes) != 1 {
			return 0, false
		}
		at = c.ParentHashes[0]
	}
	return 0, false
}
