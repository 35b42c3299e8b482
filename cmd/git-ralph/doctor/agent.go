package doctor

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
)

// agentChecks: the agent's program on this PATH, and on the PATH of each of the
// repository's cron entries, which is not the shell's.
func agentChecks(ctx context.Context, in Input) []Result {
	if api := in.APIAgent; api != nil { // no program: the model, the key and the price
		if !api.OK {
			return []Result{fail("agent", api.Problem, api.Hint)}
		}
		first := ok("agent", agentFound(*api))
		if in.Cron == nil {
			return []Result{first}
		}
		return []Result{first, cronKey(ctx, in, *api)}
	}
	found, any := agentcheck.Agent(in.Root, in.AgentCmd, in.Program)
	if !any {
		return []Result{fail("agent", "no agent is set",
			"pick a preset with --agent claude (or agent = \"claude\" in .ralph/config.toml), or give your own command with --agent-cmd")}
	}
	if !found.OK {
		return []Result{fail("agent", found.Problem, found.Hint)}
	}
	first := ok("agent", agentFound(found))
	if in.Cron == nil {
		return []Result{first}
	}
	return []Result{first, cronPath(ctx, in, found)}
}

func agentFound(r agentcheck.Result) string {
	if r.Note != "" {
		return fmt.Sprintf("%s: %s", display.Printable(r.Program), r.Note)
	}
	return fmt.Sprintf("%s found at %s", display.Printable(r.Program), display.Printable(r.Path))
}

// cronPath looks for the agent's program on the PATH each of the repository's cron
// entries sets: a program installed since (nvm, a new npm prefix) may be where that
// PATH does not go, and the 2 a.m. run would fail to start it.
func cronPath(ctx context.Context, in Input, found agentcheck.Result) Result {
	const name = "agent-cron"
	entries, err := in.Cron(ctx)
	switch {
	case err != nil:
		return warn(name, "cannot read the crontab: "+display.Printable(err.Error()), "'git ralph schedule list' says more")
	case len(entries) == 0:
		return ok(name, "no cron entry runs this repository ('git ralph schedule add' gives its entry a PATH that finds the agent)")
	case found.Note != "" || strings.Contains(found.Program, "/"):
		return ok(name, "the agent command names no program to look up on cron's PATH")
	}
	var missing []string
	for _, e := range entries {
		if e.Path == "" || schedule.FindInPath(found.Program, e.Path) == "" {
			missing = append(missing, e.ID)
		}
	}
	if len(missing) > 0 {
		return fail(name, fmt.Sprintf("%s is not on the PATH of cron entry %s", display.Printable(found.Program), strings.Join(missing, ", ")),
			fmt.Sprintf("it is at %s now: remove the entry ('git ralph schedule remove ID') and add it again, which writes a PATH that finds it", display.Printable(found.Path)))
	}
	return ok(name, fmt.Sprintf("%s is on the PATH of %d cron entr%s", display.Printable(found.Program), len(entries), plural(len(entries), "y", "ies")))
}

// cronKey warns that an API agent's key variable, set in this shell, is not in the
// environment cron runs the repository's entries with unless the crontab sets it: the
// night's run would stop at its preflight.
func cronKey(ctx context.Context, in Input, api agentcheck.Result) Result {
	const name = "agent-cron"
	entries, err := in.Cron(ctx)
	switch {
	case err != nil:
		return warn(name, "cannot read the crontab: "+display.Printable(err.Error()), "'git ralph schedule list' says more")
	case len(entries) == 0:
		return ok(name, "no cron entry runs this repository")
	}
	return warn(name, fmt.Sprintf("cron runs %d entr%s of this repository without your shell's environment: %s reaches them only if the crontab sets it",
		len(entries), plural(len(entries), "y", "ies"), api.KeyEnv),
		fmt.Sprintf("set %s=… at the top of your crontab ('crontab -e'), readable by you alone, or the scheduled runs stop at their preflight", api.KeyEnv))
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
