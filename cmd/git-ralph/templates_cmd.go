package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts"
	"github.com/git-ralph/git-ralph/prompts/templates"
)

// TemplatesCmd is `git ralph templates`.
type TemplatesCmd struct{}

// Run lists the templates, one line each: name, where it comes from, description; then
// the ones that could not be read, with why.
func (c *TemplatesCmd) Run(ctx context.Context, s Streams) error {
	root, err := repoRoot(ctx)
	if err != nil {
		root = "" // outside a repository: the built-in and the user's templates
	}
	all, problems := templates.List(templateDirs(root))
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

// templateDirs are where the templates are: the repository's .ralph/templates (root ""
// for none) and the user's $XDG_CONFIG_HOME/git-ralph/templates.
func templateDirs(root string) templates.Dirs {
	d := templates.Dirs{Repo: root}
	if file := config.UserConfigPath(os.Environ()); file != "" {
		d.User = filepath.Join(filepath.Dir(file), "templates")
		d.UserShown = d.User
		if home, err := os.UserHomeDir(); err == nil && strings.HasPrefix(d.User, home+string(os.PathSeparator)) {
			d.UserShown = "~" + strings.TrimPrefix(d.User, home)
		}
	}
	return d
}

// chooseTemplate applies `template`: its prompt in place of the mode's, and its iteration
// limit when none is configured.
func (s *settings) chooseTemplate() error {
	if name := s.resolved.Template; name.V != "" {
		return s.useTemplate(name.V, name.Origin.String())
	}
	return nil
}

// useTemplate makes the template name the loop's; origin says where the name came from.
func (s *settings) useTemplate(name, origin string) error {
	t, err := templates.Find(templateDirs(s.loop.Dir), name)
	if err != nil {
		return hints.Wrap(fmt.Errorf("%w (%s)", err, origin), "%s", templateHint(err))
	}
	s.loop.Template = loop.Template{Name: t.Name, Prompt: prompts.Section{Source: t.Source(), Body: t.Prompt}}
	s.extra = append(s.extra, config.Entry{Key: "prompts", Value: templates.PromptFile + " of " + t.Source(),
		Origin: config.Origin{Kind: config.FromDefault, Name: "template " + t.Name}})
	if t.MaxIterations > 0 && s.resolved.MaxIterations.Origin.Kind == config.FromDefault {
		s.loop.MaxIterations = t.MaxIterations
		s.extra = append(s.extra, config.Entry{Key: "max_iterations", Value: fmt.Sprint(t.MaxIterations),
			Origin: config.Origin{Kind: config.FromDefault, Name: "template " + t.Name}})
	}
	return nil
}

// templateHint is the hint of a template that cannot be used.
func templateHint(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return h.Hint()
	}
	return "'git ralph templates' lists the templates and where they come from"
}
