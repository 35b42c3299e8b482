package launch

import (
	"context"
	"fmt"
	"io"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/exitcode"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
	trustfile "github.com/git-ralph/git-ralph/cmd/git-ralph/trust"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/prompts"
)

// dryRun shows what `git ralph loop` would do and checks that it could: the settings
// with their origins, the prompt files, the agent's program, the push target, whether
// the repository's commands are trusted, and the assembled prompt. It exits 0 when
// everything checks out, 1 otherwise, and runs nothing.
func dryRun(ctx context.Context, w io.Writer, trust Trust, set *Settings) error {
	cfg := set.Loop
	fmt.Fprintf(w, "=== Dry run: %s ===\n\nSettings:\n", cfg.Mode)
	PrintEntries(w, set.Entries())
	fmt.Fprintf(w, "\nChecks:\n")
	ok := true
	if err := cfg.Validate(); err != nil {
		ok = fail(w, Explain(err).Error())
	}
	if check, any := set.CheckAgent(); any {
		ok = showAgentCheck(w, check) && ok
	}
	ok = showJudgeCheck(w, set) && ok
	if cfg.Push {
		ok = showPushCheck(ctx, w, set) && ok
	}
	ok = showTrustCheck(w, trust, set) && ok
	prompt, err := prompts.Assemble(nextPrompt(cfg))
	if err != nil {
		ok = fail(w, Explain(err).Error())
		if h, isHinted := Explain(err).(interface{ Hint() string }); isHinted {
			fmt.Fprintf(w, "    %s\n", display.PrintableText(h.Hint()))
		}
	} else {
		for _, section := range prompt.Sections {
			switch {
			case section.Title == "" && cfg.Template.Prompt.Body != "":
				fmt.Fprintf(w, "  ✓ the prompt is the template's: %s\n", display.Printable(section.Source))
			case section.Title == "":
				fmt.Fprintf(w, "  ✓ prompt file exists: %s\n", display.Printable(section.Source))
			}
		}
	}
	if !ok {
		return &exitcode.Error{Code: exitcode.Failure, Err: fmt.Errorf("dry run failed: fix the checks marked ✗ above")}
	}
	text := prompt.Text()
	fmt.Fprintf(w, "\nAssembled prompt (%d bytes):\n%s", len(text), display.PrintableText(prompt.Marked()))
	fmt.Fprintf(w, "────────────────\n\nDry run OK: nothing was run.\n")
	where := "the prompt above on its standard input"
	if strings.TrimSpace(cfg.AgentCmd) == "" && cfg.Agent.Prompt == agentcli.File {
		where = "the prompt above in a temporary file, " + agentcli.PromptFile + " here"
	}
	fmt.Fprintf(w, "Each iteration runs the agent in %s, with %s.\n", display.Printable(cfg.Dir), where)
	fmt.Fprintf(w, "Ready to execute: %s\n", display.Printable(readyCommand(cfg)))
	return nil
}

// readyCommand is the agent's command as each iteration starts it (sh -c for a custom
// command, the preset's program and arguments otherwise, with the preset's environment),
// each word quoted for sh and secrets redacted: what the user can paste to try it by hand.
func readyCommand(cfg loop.Config) string {
	words := cfg.Agent.Argv(agentcli.PromptFile)
	if strings.TrimSpace(cfg.AgentCmd) != "" {
		words = []string{"sh", "-c", cfg.AgentCmd}
	}
	if len(cfg.Agent.Env) > 0 {
		words = append(append([]string{"env"}, cfg.Agent.Env...), words...)
	}
	for i, word := range words {
		words[i] = schedule.ShellWord(redact.String(word))
	}
	return strings.Join(words, " ")
}

// nextPrompt is what the next iteration's prompt is made of, with the feedback of a
// validation that failed in the run the loop would resume.
func nextPrompt(cfg loop.Config) prompts.Spec {
	feedback := ""
	if saved, err := history.LoadState(cfg.Dir); err == nil {
		if resume, _ := loop.Resumes(cfg, saved); resume {
			feedback = loop.PromptFeedback(cfg.Feedback, saved)
		}
	}
	spec, _, _ := loop.NextPrompt(cfg, feedback) // an unreadable queue shows as none
	return spec
}

func showAgentCheck(w io.Writer, c agentcheck.Result) bool {
	switch {
	case !c.OK:
		fail(w, c.Problem)
		fmt.Fprint(w, display.Indent(c.Hint, "    "))
	case c.InProcess:
		fmt.Fprintf(w, "  ✓ agent %s runs in git-ralph: %s\n", c.Program, display.Printable(c.Note))
	case c.Note != "":
		fmt.Fprintf(w, "  ✓ agent command starts with %q: %s\n", c.Program, c.Note)
	default:
		fmt.Fprintf(w, "  ✓ agent program exists: %s\n", display.Printable(c.Path))
	}
	return c.OK
}

func showPushCheck(ctx context.Context, w io.Writer, set *Settings) bool {
	if err := PreflightPush(ctx, set); err != nil {
		return fail(w, err.Error())
	}
	fmt.Fprintf(w, "  ✓ push target: %s\n", set.PushTarget)
	return true
}

func showTrustCheck(w io.Writer, trust Trust, set *Settings) bool {
	cmds := set.Resolved.RepoCommands()
	if len(cmds) == 0 {
		return true
	}
	trusted, err := trust.Trusted(cmds, set.Loop.Dir, set.TrustedAt...)
	switch {
	case err != nil:
		return fail(w, err.Error())
	case !trusted:
		fail(w, "the commands of .ralph/config.toml are not trusted yet")
		fmt.Fprintf(w, "    run 'git ralph trust' after reading them (a terminal run asks first)\n")
		return false
	}
	fmt.Fprintf(w, "  ✓ the commands of .ralph/config.toml are trusted (%s)\n", trustfile.FileName)
	return true
}

func fail(w io.Writer, problem string) bool {
	fmt.Fprintf(w, "  ✗ %s\n", display.PrintableText(problem))
	return false
}
