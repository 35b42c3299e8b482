package doctor

import (
	"context"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
	"github.com/git-ralph/git-ralph/history"
)

// Input is what the checks look at: the settings a loop would run with in the work tree
// Root, as the command resolved them, and where the user's own files are.
type Input struct {
	Root     string // the work tree the loop runs in
	LockPath string // its lock file (in its git directory)

	Preset   string // the agent preset's name; "" with a custom command only
	Program  string // the preset's program
	AgentCmd string // the custom agent command, which gets only the PATH checks
	Validate string // the validate command; "" when none
	Until    string // the promise command of --until; "" when none

	RepoCommands map[string]string // the commands the repository's config would run
	// APIAgent is the check of an in-process agent (an API preset): its model, its key's
	// variable and its price, in place of a program to find; nil for any other agent.
	APIAgent  *agentcheck.Result
	Trust     *trust.Store // the user's approvals
	TrustedAt []string     // other work trees whose approvals count

	Retention    history.Retention
	DailyMaxCost float64 // 0: none

	Env  func(string) string // the environment (os.Getenv)
	Home string              // the user's home directory; "" when unknown
	GOOS string              // where credentials live depends on it (runtime.GOOS)
	Now  time.Time

	// Cron lists this repository's cron entries' PATHs; nil when scheduling is not
	// looked at (schedule add, which is about to write the entry).
	Cron func(ctx context.Context) ([]CronEntry, error)
}

// CronEntry is one of git-ralph's crontab lines for this repository: its ID and the
// PATH it runs the loop with.
type CronEntry struct {
	ID   string
	Path string
}

// Run runs every check, in the order they are printed.
func Run(ctx context.Context, in Input) []Result {
	var out []Result
	out = append(out, agentChecks(ctx, in)...)
	out = append(out, login(in))
	out = append(out, trusted(in))
	out = append(out, commandChecks(in)...)
	out = append(out, lockCheck(ctx, in))
	out = append(out, worktreeChecks(ctx, in)...)
	out = append(out, backgroundCheck(ctx, in))
	out = append(out, mergeCheck(ctx, in.Root))
	out = append(out, gitChecks(ctx, in.Root)...)
	out = append(out, disk(in))
	out = append(out, budgetChecks(in)...)
	return out
}
