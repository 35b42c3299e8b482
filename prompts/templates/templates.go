package templates

import (
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/lazyregexp"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

//go:embed builtin
var builtin embed.FS

// The files of a template directory.
const (
	PromptFile   = "PROMPT.md"     // the prompt, with prompts.TaskPlaceholder where the task goes
	SettingsFile = "template.toml" // description and suggested settings; optional
)

// RepoDir is where a repository keeps its templates, relative to its root.
const RepoDir = ".ralph/templates"

// Caps: a template's prompt goes to the agent every iteration, and a repository's
// templates are a cloned repository's files.
const (
	promptLimit   = repofile.TextLimit
	settingsLimit = repofile.ConfigLimit
	maxListed     = 1000 // entries of one templates directory looked at
)

// Kind is where a template comes from.
type Kind int

const (
	BuiltIn Kind = iota
	User         // the user's config directory
	Repo         // the repository's .ralph/templates
)

// Template is one loop template.
type Template struct {
	Name  string
	Kind  Kind
	Where string // "built-in", "~/.config/git-ralph/templates/tdd", ".ralph/templates/tdd"
	// Prompt is the template's PROMPT.md, with prompts.TaskPlaceholder where the task goes
	// (or none: the task then follows in a "## Task" section).
	Prompt string
	Settings
}

// Source names the template for prompts and settings: "template tdd (built-in)".
func (t Template) Source() string { return fmt.Sprintf("template %s (%s)", t.Name, t.Where) }

// Dirs say where the user's and the repository's templates are.
type Dirs struct {
	Repo      string // the repository root; "" for none
	User      string // the user's templates directory ($XDG_CONFIG_HOME/git-ralph/templates); "" for none
	UserShown string // User for messages, with ~ for the home directory
}

var nameRE = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// ErrBadName means a template name that cannot name a directory of templates.
var ErrBadName = errors.New("invalid template name")

// CheckName refuses a name that is not letters, digits, '-' and '_'.
func CheckName(name string) error {
	if !nameRE.MatchString(name) || len(name) > 64 {
		return fmt.Errorf("%w %q: use letters, digits, '-' and '_', at most 64", ErrBadName, name)
	}
	return nil
}

// NotFoundError is a template name that none of the places has.
type NotFoundError struct {
	Name  string
	Known []string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("no template %q", e.Name) }

// Hint lists the templates there are.
func (e *NotFoundError) Hint() string {
	return fmt.Sprintf("the templates are %s ('git ralph templates' lists them with where they come from)", strings.Join(e.Known, ", "))
}

// Find returns the template name: the repository's over the user's over the built-in one,
// the most specific winning as config files do.
func Find(d Dirs, name string) (Template, error) {
	if err := CheckName(name); err != nil {
		return Template{}, err
	}
	if d.Repo != "" {
		if t, err := loadRepo(d.Repo, name); !errors.Is(err, fs.ErrNotExist) {
			return t, err
		}
	}
	if d.User != "" {
		if t, err := loadUser(d, name); !errors.Is(err, fs.ErrNotExist) {
			return t, err
		}
	}
	if t, err := loadBuiltIn(name); !errors.Is(err, fs.ErrNotExist) {
		return t, err
	}
	all, _ := List(d)
	var known []string
	for _, t := range all {
		if !slices.Contains(known, t.Name) {
			known = append(known, t.Name)
		}
	}
	return Template{}, &NotFoundError{Name: name, Known: known}
}

// List returns every template: the built-in ones, then the user's, then the repository's,
// each group by name. A template that cannot be read is left out and its problem returned.
func List(d Dirs) ([]Template, []error) {
	var all []Template
	var problems []error
	names, _ := fs.ReadDir(builtin, "builtin")
	for _, e := range names {
		t, err := loadBuiltIn(e.Name())
		all, problems = collect(all, problems, t, err)
	}
	if d.User != "" {
		userNames, err := listDir(os.DirFS(d.User), ".", d.UserShown)
		problems = appendErr(problems, err)
		for _, name := range userNames {
			t, err := loadUser(d, name)
			all, problems = collect(all, problems, t, err)
		}
	}
	if d.Repo != "" {
		repoNames, err := listRepo(d.Repo)
		problems = appendErr(problems, err)
		for _, name := range repoNames {
			t, err := loadRepo(d.Repo, name)
			all, problems = collect(all, problems, t, err)
		}
	}
	return all, problems
}

func collect(all []Template, problems []error, t Template, err error) ([]Template, []error) {
	if err != nil {
		return all, append(problems, err)
	}
	return append(all, t), problems
}

func appendErr(problems []error, err error) []error {
	if err == nil || errors.Is(err, fs.ErrNotExist) {
		return problems
	}
	return append(problems, err)
}

// listRepo lists the repository's template directories through os.Root: a .ralph or
// .ralph/templates that is a symlink out of the repository is refused.
func listRepo(root string) ([]string, error) {
	r, err := os.OpenRoot(root)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return listDir(r.FS(), RepoDir, RepoDir)
}

// listDir lists the template names in dir of fsys: directories (or symlinks, which the
// reads then judge) with a valid name, at most maxListed entries looked at. A dir that is
// no directory is not opened: a FIFO would wait for a writer forever.
func listDir(fsys fs.FS, dir, shown string) ([]string, error) {
	if info, err := fs.Stat(fsys, dir); err == nil && !info.IsDir() {
		return nil, fmt.Errorf("listing the templates in %s: it is not a directory (%s)", shown, kindOf(info.Mode()))
	}
	f, err := fsys.Open(dir)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, err
		}
		return nil, fmt.Errorf("listing the templates in %s: %w", shown, err)
	}
	defer f.Close()
	rd, ok := f.(fs.ReadDirFile)
	if !ok {
		return nil, fmt.Errorf("listing the templates in %s: not a directory", shown)
	}
	entries, err := rd.ReadDir(maxListed)
	if err != nil && len(entries) == 0 {
		return nil, fmt.Errorf("listing the templates in %s: %w", shown, err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() || e.Type()&fs.ModeSymlink != 0 {
			names = append(names, e.Name())
		}
	}
	slices.Sort(names)
	if len(entries) == maxListed {
		return names, fmt.Errorf("%s has more than %d entries: only the first %d were looked at", shown, maxListed, maxListed)
	}
	return names, nil
}

func loadBuiltIn(name string) (Template, error) {
	dir := "builtin/" + name
	return load(Template{Name: name, Kind: BuiltIn, Where: "built-in"}, func(file string, limit int64) ([]byte, error) {
		return fs.ReadFile(builtin, dir+"/"+file)
	})
}

func loadUser(d Dirs, name string) (Template, error) {
	where := filepath.Join(d.UserShown, name)
	return load(Template{Name: name, Kind: User, Where: where}, func(file string, limit int64) ([]byte, error) {
		return repofile.Read(filepath.Join(d.User, name, file), filepath.Join(where, file), limit)
	})
}

// loadRepo reads a template of the repository as its other files are read: regular files
// inside the repository, within a size cap.
func loadRepo(root, name string) (Template, error) {
	where := RepoDir + "/" + name
	return load(Template{Name: name, Kind: Repo, Where: where}, func(file string, limit int64) ([]byte, error) {
		return repofile.ReadIn(root, where+"/"+file, where+"/"+file, limit)
	})
}

// load reads a template's files with read: PROMPT.md (required: without it there is no
// template, fs.ErrNotExist) and template.toml (optional).
func load(t Template, read func(file string, limit int64) ([]byte, error)) (Template, error) {
	if err := CheckName(t.Name); err != nil {
		return Template{}, fmt.Errorf("%s: %w", t.Where, err)
	}
	prompt, err := read(PromptFile, promptLimit)
	if err != nil {
		return Template{}, readError(t, PromptFile, err)
	}
	if strings.TrimSpace(string(prompt)) == "" {
		return Template{}, &FileError{File: t.Where + "/" + PromptFile, Msg: "the prompt is empty", HintText: "write the prompt, with {task} where the task goes"}
	}
	t.Prompt = string(prompt)
	data, err := read(SettingsFile, settingsLimit)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return t, nil
	case err != nil:
		return Template{}, readError(t, SettingsFile, err)
	}
	t.Settings, err = parseSettings(data, t.Where+"/"+SettingsFile)
	if err != nil {
		return Template{}, err
	}
	return t, nil
}

// readError keeps a missing PROMPT.md recognisable (no such template here) and a refusal
// as it is; anything else says which file.
func readError(t Template, file string, err error) error {
	var refused *repofile.RefusedError
	switch {
	case errors.As(err, &refused):
		return err
	case errors.Is(err, fs.ErrNotExist) && file == PromptFile:
		return fmt.Errorf("template %s has no %s: %w", t.Where, PromptFile, err)
	}
	return fmt.Errorf("reading %s/%s: %w", t.Where, file, err)
}

// kindOf names what a file that should be a directory is.
func kindOf(m fs.FileMode) string {
	switch {
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&(fs.ModeDevice|fs.ModeCharDevice) != 0:
		return "a device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "a file"
}
