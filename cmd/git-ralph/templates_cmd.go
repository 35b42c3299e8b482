package main

import (
	"context"
	"fmt"
	"text/tabwriter"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/prompts/templates"
)

// TemplatesCmd is `git ralph templates`.
type TemplatesCmd struct{}

// Run lists the templates, one line each: name, where it comes from, description; then
// the ones that could not be read, with why.
func (c *TemplatesCmd) Run(ctx context.Context, s Streams) error {
	root, err := launch.RepoRoot(ctx)
	if err != nil {
		root = "" // outside a repository: the built-in and the user's templates
	}
	all, problems := templates.List(launch.TemplateDirs(root))
	tw := tabwriter.NewWriter(s.Stdout, 0, 0, 2, ' ', 0)
	for _, t := range all {
		desc := t.Description
		if desc == "" {
			desc = "-"
		}
		if by := shadowedBy(all, t); by != "" {
			desc += " (not used: " + by + " has the same name)"
		}
		// a repository's names and descriptions are its own words: no terminal escapes
		fmt.Fprintf(tw, "%s\t%s\t%s\n", display.Printable(t.Name), display.Printable(t.Where), display.Printable(desc))
	}
	if err := tw.Flush(); err != nil {
		return err
	}
	for _, p := range problems {
		fmt.Fprintf(s.Stderr, "warning: %s\n", display.PrintableText(p.Error()))
	}
	fmt.Fprintf(s.Stdout, "\nuse one: git ralph loop --template NAME \"TASK\"; scaffold from one: git ralph init --template NAME\n")
	return nil
}

// shadowedBy names the template that Find picks instead of t, when another of the same
// name wins over it (the repository's over the user's over the built-in).
func shadowedBy(all []templates.Template, t templates.Template) string {
	winner := t
	for _, o := range all {
		if o.Name == t.Name && o.Kind > winner.Kind {
			winner = o
		}
	}
	if winner.Kind == t.Kind {
		return ""
	}
	return winner.Where
}
