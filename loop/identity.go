package loop

import (
	"context"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// identityEnv hands an agent whose CLI hides the user's git configuration from its tools
// (agentcli.Preset.GitIdentity: gemini runs its shell tool with GIT_CONFIG_GLOBAL and
// GIT_CONFIG_SYSTEM set to /dev/null) the identity git would commit with in the
// repository, so that the agent's own commits are the user's, as they are with any
// other agent. Nothing when git knows no identity: the agent's commit fails as it would.
func identityEnv(ctx context.Context, dir string, p agentcli.Preset) []string {
	if !p.GitIdentity {
		return nil
	}
	var env []string
	for _, who := range []struct{ ident, name, email string }{
		{"GIT_AUTHOR_IDENT", "GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL"},
		{"GIT_COMMITTER_IDENT", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"},
	} {
		if name, email, ok := gitops.Ident(ctx, dir, who.ident); ok {
			env = append(env, who.name+"="+name, who.email+"="+email)
		}
	}
	return env
}
