package loop

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// TestGeminiCommitsAsTheUser: gemini-cli runs its shell tool with GIT_CONFIG_GLOBAL and
// GIT_CONFIG_SYSTEM set to /dev/null, so the agent's `git commit` does not see the
// identity of the user's ~/.gitconfig ("Author identity unknown"). The loop hands the
// agent of such a preset the identity git resolves in the repository, in the
// environment; an agent of another preset gets none.
func TestGeminiCommitsAsTheUser(t *testing.T) {
	// what gemini's shell tool does to git's configuration
	commit := `export GIT_CONFIG_GLOBAL=/dev/null GIT_CONFIG_SYSTEM=/dev/null GIT_CONFIG_NOSYSTEM=1
		echo "$GIT_AUTHOR_NAME" > author; git add -A && git commit -q -m "agent: iteration $RALPH_ITERATION"`
	for _, preset := range []string{"gemini", "claude"} {
		t.Run(preset, func(t *testing.T) {
			dir := newRepo(t)
			for _, name := range []string{"GIT_AUTHOR_NAME", "GIT_AUTHOR_EMAIL", "GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL"} {
				t.Setenv(name, "") // restored at the test's end
				os.Unsetenv(name)  // the identity is the user's config's alone
			}
			if _, err := gitops.Git(context.Background(), dir, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-q", "--allow-empty", "-m", "start"); err != nil {
				t.Fatal(err)
			}
			global := filepath.Join(t.TempDir(), "gitconfig")
			if err := os.WriteFile(global, []byte("[user]\n\tname = Ada Lovelace\n\temail = ada@example.com\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			t.Setenv("GIT_CONFIG_GLOBAL", global)
			cfg := config(dir, commit, 1)
			p, ok := agentcli.Lookup(preset)
			if !ok {
				t.Fatalf("no %s preset", preset)
			}
			cfg.Agent = p
			if _, err := Run(context.Background(), cfg, Deps{}); err != nil {
				t.Fatal(err)
			}
			who, err := gitops.Git(context.Background(), dir, "log", "-1", "--format=%an <%ae> / %cn <%ce>", "--", "author")
			if err != nil {
				t.Fatal(err)
			}
			want := "Ada Lovelace <ada@example.com> / Ada Lovelace <ada@example.com>"
			if preset != "gemini" {
				want = "" // the commit failed: no identity, as without git-ralph
			}
			if who != want {
				t.Errorf("the agent's commit is by %q, want %q", who, want)
			}
			if got := strings.TrimSpace(readFile(t, dir, "author")); preset != "gemini" && got != "" {
				t.Errorf("the %s agent got GIT_AUTHOR_NAME=%q, want none", preset, got)
			}
		})
	}
}
