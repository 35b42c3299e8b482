package apiagent

import "github.com/git-ralph/git-ralph/loop/agentcli"

// Report is the result as loop/agentcli reports a CLI agent's run, so that the loop reads
// both kinds of agent alike: the model's words for the promise and the stagnation check,
// the usage (the cache apart from the input), and the failure as a limit, a transient or
// a fatal error. ContextFull, Timeout, TooManyTurns and Interrupted have no field of their
// own there: they are errors (IsError, Error) that neither wait nor retry.
func (r Result) Report() agentcli.Report {
	rep := agentcli.Report{
		Said: r.Said, Final: r.Final, Structured: true,
		Usage: agentcli.Usage{InputTokens: r.Usage.Input, OutputTokens: r.Usage.Output,
			CacheReadTokens: r.Usage.CacheRead, CacheWriteTokens: r.Usage.CacheWrite, Model: r.Model,
			CostUSD: r.CostUSD, HasCost: r.HasCost},
	}
	if r.Err == nil {
		return rep
	}
	rep.IsError, rep.Error = true, r.Err.Error()
	switch r.Err.Kind {
	case Limit:
		rep.Limit = &agentcli.Limit{Message: r.Err.Message, ResetAt: r.Err.ResetAt, Permanent: r.Err.Permanent}
	case Transient:
		rep.Transient = r.Err.Message
	case Fatal:
		rep.Fatal = r.Err.Message
	}
	return rep
}
