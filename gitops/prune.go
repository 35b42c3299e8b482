package gitops

import (
	"context"
	"fmt"
	"strings"
)

// DeleteRefs deletes the named refs under refs/ralph/ in one git process; refs that do
// not exist are fine. It is how the history's retention lets git collect the checkpoints
// of pruned iterations.
func DeleteRefs(ctx context.Context, dir string, names []string) error {
	var script strings.Builder
	for _, name := range names {
		if !strings.HasPrefix(name, "refs/ralph/") {
			return fmt.Errorf("deleting ref %q: only refs under refs/ralph/ are git-ralph's", name)
		}
		fmt.Fprintf(&script, "delete %s\n", name)
	}
	if script.Len() == 0 {
		return nil
	}
	var out strings.Builder
	if err := GitTo(ctx, dir, nil, strings.NewReader(script.String()), &out, "update-ref", "--no-deref", "--stdin"); err != nil {
		return fmt.Errorf("deleting checkpoint refs: %w", err)
	}
	return nil
}
