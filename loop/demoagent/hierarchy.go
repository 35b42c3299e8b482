package demoagent

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// The stages of the hierarchy workflow (git ralph init --workflow hierarchy), told apart by
// the heading their prompt starts with.
var hierarchyStages = []struct {
	heading string
	run     iteration
}{
	{"# Plan stage", hierarchyPlan},
	{"# Spec stage", hierarchySpec},
	{"# Phase stage", hierarchyPhase},
	{"# Code stage", hierarchyCode},
}

// hierarchyStage is the stage whose heading opens a line of prompt, or nil.
func hierarchyStage(prompt string) iteration {
	for _, s := range hierarchyStages {
		if strings.HasPrefix(prompt, s.heading+"\n") || strings.Contains(prompt, "\n"+s.heading+"\n") {
			return s.run
		}
	}
	return nil
}

// The files the scripted hierarchy writes: one plan, one spec, two phases, and the code.
const (
	demoPlan  = "plans/001-greet.plan.md"
	demoSpec  = "specs/001-001-greet.spec.md"
	phaseGlob = "phases/*.phase.md"
)

var demoPhases = []struct{ file, task, script, body string }{
	{"phases/001-001-001-greet.phase.md", "Add bin/greet, which prints a greeting.", "bin/greet",
		"#!/bin/sh\necho \"hello, ${1:-world}\"\n"},
	{"phases/001-001-002-shout.phase.md", "Add bin/shout, which greets in capitals.", "bin/shout",
		"#!/bin/sh\n\"$(dirname \"$0\")/greet\" \"$@\" | tr '[:lower:]' '[:upper:]'\n"},
}

func hierarchyPlan(ctx context.Context, dir string, out io.Writer) (outcome, error) {
	say(out, "reading .ralph/workflows/hierarchy/request.md; writing %s", demoPlan)
	text := "# Plan: greetings\n\n## Overview\nTwo small commands that greet.\n\n## Phases\n1. greet\n2. shout\n\n" +
		"## Success Criteria\n- bin/greet prints hello, world\n- bin/shout prints it in capitals\n\n" +
		"## Specs to Create\n- spec-greet: the greet and shout commands\n"
	return writeAndCommit(ctx, dir, out, "plan: greetings", demoPlan, text)
}

func hierarchySpec(ctx context.Context, dir string, out io.Writer) (outcome, error) {
	say(out, "reading %s; writing %s", demoPlan, demoSpec)
	text := "# Spec: greet\n\n## Parent Plan\n001-greet.plan.md\n\n## Overview\nbin/greet and bin/shout.\n\n" +
		"## Phases\n1. **greet**\n   Print a greeting.\n   - Files: bin/greet\n2. **shout**\n   Greet in capitals.\n   - Files: bin/shout\n\n" +
		"## Files to Modify\n- bin/\n"
	return writeAndCommit(ctx, dir, out, "spec: greet", demoSpec, text)
}

func hierarchyPhase(ctx context.Context, dir string, out io.Writer) (outcome, error) {
	say(out, "reading %s; writing %d phases", demoSpec, len(demoPhases))
	for _, p := range demoPhases {
		text := fmt.Sprintf("# Phase\n\n## Parent Spec\n001-001-greet.spec.md\n\n## Task\n%s\n\n"+
			"## Specific Work\n1. Write %s.\n\n## Success Criteria\n- %s runs\n\n## Status\ntodo\n", p.task, p.script, p.script)
		if err := writeDemoFile(dir, p.file, text, 0o644); err != nil {
			return failed, err
		}
	}
	return succeeded, commit(ctx, dir, "phases: greet", out)
}

// hierarchyCode builds the first phase still to do, one an iteration, and succeeds with
// the last.
func hierarchyCode(ctx context.Context, dir string, out io.Writer) (outcome, error) {
	files, err := filepath.Glob(filepath.Join(dir, filepath.FromSlash(phaseGlob)))
	if err != nil {
		return failed, err
	}
	sort.Strings(files)
	todo := 0
	for _, f := range files {
		if data, err := os.ReadFile(f); err == nil && strings.Contains(string(data), "## Status\ntodo") {
			todo++
		}
	}
	for _, p := range demoPhases {
		path := filepath.Join(dir, filepath.FromSlash(p.file))
		data, err := os.ReadFile(path)
		if err != nil || !strings.Contains(string(data), "## Status\ntodo") {
			continue
		}
		say(out, "phase %s: writing %s", filepath.Base(p.file), p.script)
		if err := writeDemoFile(dir, p.script, p.body, 0o755); err != nil {
			return failed, err
		}
		if err := os.WriteFile(path, []byte(strings.Replace(string(data), "## Status\ntodo", "## Status\ndone", 1)), 0o644); err != nil {
			return failed, err
		}
		if err := commit(ctx, dir, "code: "+p.script, out); err != nil {
			return failed, err
		}
		if todo == 1 {
			return succeeded, nil
		}
		return working, nil
	}
	say(out, "no phase is todo")
	return succeeded, nil
}

func writeAndCommit(ctx context.Context, dir string, out io.Writer, message, name, text string) (outcome, error) {
	if err := writeDemoFile(dir, name, text, 0o644); err != nil {
		return failed, err
	}
	return succeeded, commit(ctx, dir, message, out)
}

func writeDemoFile(dir, name, text string, perm os.FileMode) error {
	path := filepath.Join(dir, filepath.FromSlash(name))
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(text), perm)
}
