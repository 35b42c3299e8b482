package main

import (
	"fmt"
	"io"

	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts"
)

// dryRun shows what `git ralph loop` would do and checks that it could: the settings
// with their origins, the prompt file, the agent's program, and the assembled prompt.
// It exits 0 when everything checks out, 1 otherwise, and runs nothing.
func dryRun(s Streams, cfg loop.Config, set *settings) error {
	w := s.Stdout
	fmt.Fprintf(w, "=== Dry run: %s ===\n\nSettings:\n", cfg.Mode)
	for _, v := range set.list {
		fmt.Fprintf(w, "  %-24s %-28s (%s)\n", v.Key, v.Value, v.Origin)
	}
	fmt.Fprintf(w, "\nChecks:\n")
	ok := true
	if err := cfg.Validate(); err != nil {
		ok = fail(w, explain(err).Error())
	}
	if cfg.AgentCmd != "" {
		ok = showAgentCheck(w, checkAgentProgram(cfg.Dir, cfg.AgentCmd)) && ok
	}
	prompt, err := prompts.Assemble(prompts.Spec{Dir: cfg.Dir, Mode: cfg.Mode, Context: cfg.Context})
	if err != nil {
		ok = fail(w, explain(err).Error())
		if h, isHinted := explain(err).(interface{ Hint() string }); isHinted {
			fmt.Fprintf(w, "    %s\n", h.Hint())
		}
	} else {
		fmt.Fprintf(w, "  ✓ prompt file exists: %s\n", prompt.Sections[0].Source)
	}
	if !ok {
		return &exitError{code: 1, err: fmt.Errorf("dry run failed: fix the checks marked ✗ above")}
	}
	text := prompt.Text()
	fmt.Fprintf(w, "\nAssembled prompt (%d bytes):\n%s", len(text), prompt.Marked())
	fmt.Fprintf(w, "────────────────\n\nDry run OK: nothing was run.\n")
	return nil
}

func showAgentCheck(w io.Writer, c programCheck) bool {
	switch {
	case !c.ok:
		fail(w, c.problem)
		fmt.Fprint(w, indent(c.hint, "    "))
	case c.note != "":
		fmt.Fprintf(w, "  ✓ agent command starts with %q: %s\n", c.program, c.note)
	default:
		fmt.Fprintf(w, "  ✓ agent program exists: %s\n", c.path)
	}
	return c.ok
}

func fail(w io.Writer, problem string) bool {
	fmt.Fprintf(w, "  ✗ %s\n", problem)
	return false
}
