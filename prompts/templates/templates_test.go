package templates

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/prompts"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

var builtInNames = []string{"bugfix", "feature", "performance", "refactor", "security", "tdd"}

// Every built-in template renders with a task, carries it where the placeholder was, tells
// a fresh-context agent how to finish, and suggests its settings.
func TestEveryBuiltInRendersWithTheTask(t *testing.T) {
	for _, name := range builtInNames {
		t.Run(name, func(t *testing.T) {
			tpl, err := Find(Dirs{}, name)
			if err != nil {
				t.Fatal(err)
			}
			task := "make the parser accept tabs (task " + name + ")"
			p, err := prompts.Assemble(prompts.Spec{Dir: t.TempDir(), Mode: "build", Task: task,
				Frame: prompts.Section{Source: tpl.Source(), Body: tpl.Prompt}})
			if err != nil {
				t.Fatal(err)
			}
			text := p.Text()
			for _, want := range []string{task, "fresh\ncontext", "<promise>SUCCESS</promise>", "<promise>FAILURE</promise>", "## Previous iteration"} {
				if !strings.Contains(text, want) {
					t.Errorf("the prompt lacks %q", want)
				}
			}
			if strings.Contains(text, prompts.TaskPlaceholder) || strings.Contains(text, "## Task\n") {
				t.Errorf("the task is not where the placeholder was:\n%s", text)
			}
			if tpl.Description == "" || tpl.MaxIterations < 1 || tpl.ValidateHint == "" || tpl.Completion == "" || tpl.Where != "built-in" {
				t.Errorf("settings = %+v, where %q", tpl.Settings, tpl.Where)
			}
		})
	}
}

func TestListBuiltInsThenUserThenRepo(t *testing.T) {
	repo, user := t.TempDir(), t.TempDir()
	write(t, filepath.Join(user, "mine", PromptFile), "Mine: {task}\n")
	write(t, filepath.Join(user, "mine", SettingsFile), "description = \"my own\"\n")
	write(t, filepath.Join(repo, ".ralph", "templates", "tdd", PromptFile), "The project's TDD: {task}\n")
	write(t, filepath.Join(repo, ".ralph", "templates", "proj", PromptFile), "Project: {task}\n")
	d := Dirs{Repo: repo, User: user, UserShown: "~/.config/git-ralph/templates"}
	all, problems := List(d)
	if len(problems) != 0 {
		t.Fatal(problems)
	}
	var got []string
	for _, tpl := range all {
		got = append(got, tpl.Name+"@"+tpl.Where)
	}
	want := []string{"bugfix@built-in", "feature@built-in", "performance@built-in", "refactor@built-in", "security@built-in",
		"tdd@built-in", "mine@~/.config/git-ralph/templates/mine", "proj@.ralph/templates/proj", "tdd@.ralph/templates/tdd"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("List =\n%q\nwant\n%q", got, want)
	}
	// the repository's wins over the built-in of the same name, the user's over the built-in
	if tpl, err := Find(d, "tdd"); err != nil || tpl.Kind != Repo || !strings.HasPrefix(tpl.Prompt, "The project's") {
		t.Errorf("Find(tdd) = %+v, %v", tpl, err)
	}
	if tpl, err := Find(d, "mine"); err != nil || tpl.Kind != User || tpl.Description != "my own" {
		t.Errorf("Find(mine) = %+v, %v", tpl, err)
	}
	var notFound *NotFoundError
	if _, err := Find(d, "nope"); !errors.As(err, &notFound) || !strings.Contains(notFound.Hint(), "mine, proj") {
		t.Errorf("Find(nope) = %v", err)
	}
	if _, err := Find(d, "../etc"); !errors.Is(err, ErrBadName) {
		t.Errorf("Find(../etc) = %v", err)
	}
}

func TestBadSettingsNameFileLineField(t *testing.T) {
	tests := []struct{ name, toml, want string }{
		{"unknown key", "description = \"x\"\nmax_iterationz = 3\n", ".ralph/templates/t/template.toml:2: max_iterationz: unknown key"},
		{"wrong type", "\n\nmax_iterations = \"ten\"\n", `.ralph/templates/t/template.toml:3: max_iterations: want a whole number of at least 1, got a string ("ten")`},
		{"zero", "max_iterations = 0\n", ".ralph/templates/t/template.toml:1: max_iterations: want a whole number of at least 1, got 0"},
		{"not one line", "description = \"\"\"a\nb\"\"\"\n", ".ralph/templates/t/template.toml:1: description: want one line of at most 300 bytes"},
		{"bad TOML", "description = \n", ".ralph/templates/t/template.toml:1: invalid TOML: "},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			repo := t.TempDir()
			write(t, filepath.Join(repo, ".ralph", "templates", "t", PromptFile), "T: {task}\n")
			write(t, filepath.Join(repo, ".ralph", "templates", "t", SettingsFile), tt.toml)
			_, err := Find(Dirs{Repo: repo}, "t")
			var fe *FileError
			if !errors.As(err, &fe) || !strings.HasPrefix(err.Error(), tt.want) || fe.Hint() == "" {
				t.Errorf("err = %v, want %q with a hint", err, tt.want)
			}
		})
	}
}

// A cloned repository's templates are untrusted files: a symlink out of the repository,
// a huge prompt and a FIFO are refused, and a .ralph/templates that leads out is not listed.
func TestHostileRepositoryTemplates(t *testing.T) {
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret", PromptFile), "the user's secret\n")
	repo := t.TempDir()
	dir := filepath.Join(repo, ".ralph", "templates")
	os.MkdirAll(dir, 0o755)
	os.Symlink(filepath.Join(outside, "secret"), filepath.Join(dir, "leak"))
	write(t, filepath.Join(dir, "huge", PromptFile), "")
	os.Truncate(filepath.Join(dir, "huge", PromptFile), 2<<20) // sparse: cheap to make
	os.MkdirAll(filepath.Join(dir, "fifo"), 0o755)
	if err := mkfifo(filepath.Join(dir, "fifo", PromptFile)); err != nil {
		t.Skip(err)
	}
	var refused *repofile.RefusedError
	for _, name := range []string{"leak", "huge", "fifo"} {
		if _, err := Find(Dirs{Repo: repo}, name); !errors.As(err, &refused) {
			t.Errorf("Find(%s) = %v, want a refusal", name, err)
		}
	}
	_, problems := List(Dirs{Repo: repo})
	if len(problems) != 3 {
		t.Errorf("List problems = %v, want the three refusals", problems)
	}
	// .ralph/templates itself a symlink out of the repository
	repo2 := t.TempDir()
	os.MkdirAll(filepath.Join(repo2, ".ralph"), 0o755)
	os.Symlink(outside, filepath.Join(repo2, ".ralph", "templates"))
	all, problems := List(Dirs{Repo: repo2})
	for _, tpl := range all {
		if tpl.Kind == Repo {
			t.Errorf("listed %s through a symlink out of the repository", tpl.Where)
		}
	}
	if len(problems) != 1 {
		t.Errorf("problems = %v, want one", problems)
	}
	if _, err := Find(Dirs{Repo: repo2}, "secret"); !errors.As(err, &refused) {
		t.Errorf("Find(secret) through the symlinked directory = %v, want a refusal", err)
	}
}

func write(t *testing.T, path, text string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// A .ralph/templates (or a user's templates directory) that is a FIFO, or a symlink to
// one inside the repository, is no directory to list: opening it would wait for a writer
// forever (`git ralph templates` hung, and so did `loop --template` with a misspelt name).
func TestATemplatesFIFOIsNotWaitedOn(t *testing.T) {
	repo := t.TempDir()
	os.MkdirAll(filepath.Join(repo, ".ralph"), 0o755)
	if err := mkfifo(filepath.Join(repo, ".ralph", "templates")); err != nil {
		t.Skip(err)
	}
	user := t.TempDir()
	if err := mkfifo(filepath.Join(user, "templates")); err != nil {
		t.Skip(err)
	}
	done := make(chan []error, 1)
	go func() {
		_, problems := List(Dirs{Repo: repo, User: filepath.Join(user, "templates"), UserShown: "~/templates"})
		_, err := Find(Dirs{Repo: repo}, "nope")
		done <- append(problems, err)
	}()
	select {
	case problems := <-done:
		if len(problems) != 3 || !strings.Contains(problems[0].Error(), "not a directory") {
			t.Errorf("problems = %v, want the user's and the repository's 'not a directory', then no template", problems)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("listing the templates waits on a FIFO")
	}
}
