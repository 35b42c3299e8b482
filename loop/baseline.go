package loop

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/testreport"
)

// BaselineLog is where the baseline's output is saved, relative to the repository.
const BaselineLog = history.LogsDir + "/baseline.log"

// maxBaselineFailing bounds the failing tests the state keeps of a baseline; beyond it
// the rest are left out (State.BaselineCut), and blamed if they fail again.
const maxBaselineFailing = 256 << 10

// baseline is the validate command's result before the run's first iteration, so that
// a test already failing then is not blamed on the agent: with validate_format, an
// iteration's validation fails only for tests that did not fail at the baseline (and
// for the targets). It is taken once per run, kept in the state (a resumed run keeps
// it). Without a format none is taken and the exit code decides, as it always did: a
// baseline would cost every run one more run of the command (and a command with side
// effects, one that prepares what the next run checks, would behave otherwise).
type baseline struct {
	command string
	format  testreport.Format
	targets []string
	timeout time.Duration
	dir     string
	procs   procs
	state   *stateFile
	report  func(Event)
	failing map[testreport.Test]bool
	branch  string // the base branch of a worktree loop; "": none
}

// newBaseline is the run's validation, with its baseline; nil when no validate command
// is set.
func newBaseline(cfg Config, p procs, st *stateFile, report func(Event)) *baseline {
	if strings.TrimSpace(cfg.ValidateCmd) == "" {
		return nil
	}
	return &baseline{command: cfg.ValidateCmd, format: cfg.ValidateFormat, targets: cfg.ValidateTargets,
		timeout: cfg.validateTimeout(), dir: cfg.Dir, procs: p, state: st, report: report, branch: cfg.BaseBranch}
}

// take runs the validate command once before the run's first iteration, at head (the
// commit checked out), and keeps its result in the state; a resumed run whose state
// holds one taken with the same command and format keeps that. An interrupted run of
// it keeps nothing: the run stops before its iteration anyway.
func (b *baseline) take(ctx context.Context, head string) {
	if b == nil || b.format == testreport.None {
		return
	}
	st := b.state
	if st.BaselineCommand == b.command && st.BaselineFormat == string(b.format) && !b.committedState(ctx) {
		b.failing = parseFailing(st.BaselineFailing)
		b.report(BaselineTaken{Command: b.command, Format: b.format, Kept: true, Commit: st.BaselineCommit,
			ExitCode: st.BaselineExit, Tests: st.BaselineTests, Failing: sortedTests(b.failing)})
		return
	}
	log := filepath.Join(b.dir, BaselineLog)
	_ = os.MkdirAll(filepath.Dir(log), 0o755) // else validationLog warns that it cannot save
	v, rep := b.run(ctx, 0, log)
	if !v.Ran {
		return
	}
	st.BaselineBase = b.meeting(ctx)
	b.keep(v, rep, head)
	b.report(BaselineTaken{Command: b.command, Format: b.format, Read: rep.Format, Commit: head, ExitCode: v.ExitCode,
		TimedOut: v.TimedOut, Duration: v.Duration, Tests: rep.Cases(), Failing: rep.Failed(), Log: BaselineLog})
}

// keep makes v and its report, taken at commit, the baseline, in the state too.
func (b *baseline) keep(v Validation, rep testreport.Report, commit string) {
	st := b.state
	b.failing = map[testreport.Test]bool{}
	for _, t := range rep.Failed() {
		b.failing[t] = true
	}
	st.BaselineCommand, st.BaselineFormat, st.BaselineCommit = b.command, string(b.format), commit
	st.BaselineExit, st.BaselineTests = v.ExitCode, rep.Cases()
	st.BaselineFailing, st.BaselineCut = formatFailing(rep.Failed())
}

// validate runs the validate command after iteration i, its output saved at logPath,
// and decides it: by its tests against the baseline's with a format, else by its exit code.
func (b *baseline) validate(ctx context.Context, i int, logPath string) Validation {
	if b == nil {
		return Validation{}
	}
	if b.format != testreport.None {
		b.follow(ctx) // before deciding: an iteration that took in its base is measured against the base's
	}
	v, rep := b.run(ctx, i, logPath)
	if b.format == testreport.None {
		return v
	}
	return decideTests(v, rep, b.failing, b.targets)
}

// run runs the validate command for iteration i (0: the baseline) and reads its tests.
func (b *baseline) run(ctx context.Context, i int, logPath string) (Validation, testreport.Report) {
	if b.format == testreport.None {
		return b.procs.validate(ctx, i, b.command, logPath, b.timeout), testreport.Report{}
	}
	var out capture
	v := b.procs.validateTo(ctx, i, b.command, logPath, b.timeout, &out)
	rep, _ := testreport.Parse(b.format, bytes.NewReader(out.buf)) // a malformed report keeps what it read
	if rep.Format == testreport.GoTestJSON && v.Ran {
		// the prompt gets what go test would have printed, not its JSON's framing
		v.Tail = tailLines(testreport.GoTestText(bytes.NewReader(out.buf)), feedbackLines, feedbackBytes)
	}
	return v, rep
}

// formatFailing writes failing tests for the state, one "SUITE<TAB>NAME" a line, within
// maxBaselineFailing; it reports whether some were left out.
func formatFailing(tests []testreport.Test) (string, bool) {
	var b strings.Builder
	clean := strings.NewReplacer("\t", " ", "\n", " ", "\r", " ")
	for _, t := range tests {
		line := clean.Replace(t.Suite) + "\t" + clean.Replace(t.Name) + "\n"
		if b.Len()+len(line) > maxBaselineFailing {
			return b.String(), true
		}
		b.WriteString(line)
	}
	return b.String(), false
}

// parseFailing reads the state's list of failing tests (formatFailing's).
func parseFailing(s string) map[testreport.Test]bool {
	out := map[testreport.Test]bool{}
	for _, line := range strings.Split(s, "\n") {
		if suite, name, ok := strings.Cut(line, "\t"); ok {
			out[testreport.Test{Suite: suite, Name: name}] = true
		}
	}
	return out
}

func sortedTests(set map[testreport.Test]bool) []testreport.Test {
	rep := testreport.Report{Tests: map[testreport.Test]testreport.Status{}}
	for t := range set {
		rep.Tests[t] = testreport.Fail
	}
	return rep.Failed()
}

// Summary is the baseline in one line for people: what it found and what it cost (one
// more run of the validate command per run), e.g. "baseline: 12 tests, 1 failing before
// this run (TestX (example.com/m)), took 3.2s; …".
func (b BaselineTaken) Summary() string {
	var found string
	switch {
	case b.Tests > 0 && len(b.Failing) == 0:
		found = plural(b.Tests, "test") + ", none failing before this run"
	case b.Tests > 0:
		found = fmt.Sprintf("%s, %d failing before this run (%s): the iterations are not blamed for them", plural(b.Tests, "test"), len(b.Failing), listTests(b.Failing))
	case b.TimedOut:
		found = fmt.Sprintf("`%s` timed out before this run", b.Command)
	default:
		found = fmt.Sprintf("`%s` named no tests in its output (validate_format = %s): each iteration is decided by its exit code (%s before this run)", b.Command, b.Format, exitWord(b.ExitCode))
	}
	if b.Kept {
		return "baseline (kept from the start of this run): " + found
	}
	if b.Moved {
		return fmt.Sprintf("baseline taken again, of the base at %.7s (the branch took in new commits of its base): %s; it took %s", b.Commit, found, b.Duration.Round(100*time.Millisecond))
	}
	return fmt.Sprintf("baseline: %s; it took %s, one more run of the validate command (output in %s)", found, b.Duration.Round(100*time.Millisecond), b.Log)
}

func exitWord(code int) string {
	if code == 0 {
		return "it passed"
	}
	return "it failed with " + exitReason(code)
}
