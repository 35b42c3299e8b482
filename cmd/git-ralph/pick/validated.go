package pick

import (
	"context"
	"errors"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitwt"
)

// validated refuses a pick whose merge could land the candidate unvalidated or could not
// start. The merge runs as `git ralph merge` in the background, with no terminal to warn
// on or to ask for an approval: so the main work tree's settings (those the merge reads)
// must give it a validate command, and the repository's commands must be approved already.
func (p *Picker) validated(ctx context.Context, candidate string) error {
	common, err := gitops.CommonDir(ctx, p.here)
	if err != nil {
		return err
	}
	main, err := gitwt.MainPath(common)
	if err != nil {
		return err
	}
	cfg, err := launch.LoadConfig(main, nil)
	if err != nil {
		return err
	}
	if strings.TrimSpace(cfg.Validate.V) == "" {
		return hints.Wrap(errors.New("no validate command is set: the merge would land the candidate unvalidated"),
			"set validate in .ralph/config.toml (or your own config), or run 'git ralph merge %s' in a terminal, which says so before it lands", candidate)
	}
	// the rule of the merge itself: its validate command or notifications come from the
	// repository's file, which must be approved
	if cfg.Validate.Origin.Kind != config.FromRepo && !config.SendsFromRepo(cfg.Notify) {
		return nil
	}
	ok, err := trust.Terminal{}.Trusted(cfg.RepoCommands(), main)
	if err != nil {
		return err
	}
	if !ok {
		return hints.Wrap(errors.New("the repository's commands (its validate command among them) are not approved yet"),
			"run 'git ralph trust' in a terminal in %s, then pick again", main)
	}
	return nil
}
