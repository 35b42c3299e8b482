package gitops

import (
	"context"

	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// Ident is the identity git would write into a commit made in dir now, as `git var`
// resolves it from the environment and the configuration (GIT_AUTHOR_NAME, author.name,
// user.name, …): who is "GIT_AUTHOR_IDENT" or "GIT_COMMITTER_IDENT". ok is false when git
// finds none it would commit with.
func Ident(ctx context.Context, dir, who string) (name, email string, ok bool) {
	out, err := Git(ctx, dir, "var", who)
	if err != nil {
		return "", "", false
	}
	m := gitstore.IdentRule.FindStringSubmatch(out)
	if m == nil {
		return "", "", false
	}
	return m[1], m[2], true
}
