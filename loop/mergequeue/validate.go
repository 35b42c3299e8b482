package mergequeue

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop/agent"
)

// DefaultValidateTimeout bounds the validate command when the request does not.
const DefaultValidateTimeout = 10 * time.Minute

// outputKept, outputLines and outputBytes bound the validation output kept: the end,
// where test runners and compilers sum up, as the loop keeps it for the next prompt.
const (
	outputKept  = 64 << 10
	outputLines = 60
	outputBytes = 8 << 10
)

// validate runs the validate command on the merged result in the scratch worktree, in a
// process group of its own whose id goes into the merge record (a command killed meanwhile
// leaves the next one the group to stop). It reports whether it passed, and the end of
// its output, redacted.
func (r repo) validate(ctx context.Context, req Request, entry *history.Merge) (bool, string, error) {
	if strings.TrimSpace(req.Validate) == "" {
		say(req, "no validate command: the merge is not validated")
		return true, "", nil
	}
	say(req, fmt.Sprintf("validating the merged result: %s", req.Validate))
	timeout := req.ValidateTimeout
	if timeout <= 0 {
		timeout = DefaultValidateTimeout
	}
	res, err := agent.Run(ctx, agent.Spec{Command: req.Validate, Dir: entry.Scratch, Timeout: timeout, MaxOutput: outputKept,
		Env: []string{"RALPH_MERGE=" + req.Name, "RALPH_MERGE_BASE=" + branchName(entry.BaseBranch)},
		Started: func(pgid int) {
			entry.Validator = pgid
			r.save(*entry)
		}})
	if err != nil {
		return false, "", fmt.Errorf("running the validate command %q: %w", req.Validate, err)
	}
	if res.Interrupted {
		return false, "", fmt.Errorf("the validation of the merge was interrupted: %w", context.Cause(ctx))
	}
	passed := res.ExitCode == 0 && res.Signal == 0 && !res.TimedOut
	tail := tailLines(redact.String(string(res.Output)), outputLines, outputBytes)
	switch {
	case res.TimedOut:
		tail = strings.TrimRight(tail, "\n") + fmt.Sprintf("\n(stopped after %s, the validate timeout)", timeout)
	case !passed:
		tail = strings.TrimRight(tail, "\n") + fmt.Sprintf("\n(exit code %d)", res.ExitCode)
	}
	return passed, strings.TrimLeft(tail, "\n"), nil
}

// tailLines is the end of s: at most lines lines and max bytes, cut at a line start.
func tailLines(s string, lines, max int) string {
	s = strings.TrimRight(s, "\n")
	if len(s) > max {
		s = s[len(s)-max:]
		if i := strings.IndexByte(s, '\n'); i >= 0 {
			s = s[i+1:]
		}
	}
	parts := strings.Split(s, "\n")
	if len(parts) > lines {
		parts = parts[len(parts)-lines:]
	}
	return strings.Join(parts, "\n")
}
