package launch

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/prompts"
	"github.com/git-ralph/git-ralph/prompts/templates"
)

// TemplateDirs are where the templates are: the repository's .ralph/templates (root ""
// for none) and the user's $XDG_CONFIG_HOME/git-ralph/templates.
func TemplateDirs(root string) templates.Dirs {
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
func (s *Settings) chooseTemplate() error {
	if name := s.Resolved.Template; name.V != "" {
		return s.useTemplate(name.V, name.Origin.String())
	}
	return nil
}

// useTemplate makes the template name the loop's; origin says where the name came from.
func (s *Settings) useTemplate(name, origin string) error {
	t, err := templates.Find(TemplateDirs(s.Loop.Dir), name)
	if err != nil {
		return hints.Wrap(fmt.Errorf("%w (%s)", err, origin), "%s", TemplateHint(err))
	}
	s.Loop.Template = loop.Template{Name: t.Name, Prompt: prompts.Section{Source: t.Source(), Body: t.Prompt}}
	s.extra = append(s.extra, config.Entry{Key: "prompts", Value: templates.PromptFile + " of " + t.Source(),
		Origin: config.Origin{Kind: config.FromDefault, Name: "template " + t.Name}})
	if t.MaxIterations > 0 && s.Resolved.MaxIterations.Origin.Kind == config.FromDefault {
		s.Loop.MaxIterations = t.MaxIterations
		s.extra = append(s.extra, config.Entry{Key: "max_iterations", Value: fmt.Sprint(t.MaxIterations),
			Origin: config.Origin{Kind: config.FromDefault, Name: "template " + t.Name}})
	}
	return nil
}

// TemplateHint is the hint of a template that cannot be used.
func TemplateHint(err error) string {
	var h interface{ Hint() string }
	if errors.As(err, &h) && h.Hint() != "" {
		return h.Hint()
	}
	return "'git ralph templates' lists the templates and where they come from"
}
