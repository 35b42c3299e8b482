package status

import (
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// LastRecorded finds, in the few records up to n, the last validation result and the agent
// preset whose output format renders the live log (the running iteration has no record
// yet: its loop's earlier ones say which agent it runs). Text when no record names one.
func LastRecorded(store *history.Store, n int) (validation string, format agentcli.Format) {
	found := false
	for i := n; i >= 1 && n-i < 10; i-- {
		rec, err := store.Get(i)
		if err != nil {
			continue
		}
		if validation == "" {
			validation = rec.Validation
		}
		if !found && rec.Agent != "" {
			if p, ok := agentcli.Lookup(rec.Agent); ok {
				format, found = p.Format, true
			}
		}
		if validation != "" && found {
			break
		}
	}
	return validation, format
}
