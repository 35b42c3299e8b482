package prompts

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/lazyregexp"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Section is one titled part of an assembled prompt.
type Section struct {
	Title  string // "" for the mode's prompt file, which goes in as written
	Source string // where the text came from: a path, "--context", …
	Body   string
}

// Prompt is the text an agent receives, kept in sections so a dry run can show them.
type Prompt struct {
	Sections []Section
}

// Text is what goes on the agent's stdin: the prompt file as written, then each further
// section under a level-2 heading that the default prompts tell the agent to look for.
func (p Prompt) Text() string {
	var b strings.Builder
	for i, s := range p.Sections {
		if i > 0 {
			b.WriteString("\n\n")
		}
		if s.Title != "" {
			fmt.Fprintf(&b, "## %s\n\n", s.Title)
		}
		b.WriteString(strings.TrimRight(s.Body, "\n"))
	}
	b.WriteString("\n")
	return b.String()
}

// Marked is the prompt with a marker line before each section, for `--dry-run`.
func (p Prompt) Marked() string {
	var b strings.Builder
	for _, s := range p.Sections {
		title := s.Title
		if title == "" {
			title = "Prompt"
		}
		fmt.Fprintf(&b, "──── %s (%s) ────\n%s\n", title, s.Source, strings.TrimRight(s.Body, "\n"))
	}
	return b.String()
}

// modeName keeps modes usable as part of a file name and nothing more.
var modeName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

// ErrBadMode means a mode name that cannot name a prompt file.
var ErrBadMode = errors.New("invalid mode name")

// FileName is the prompt file of mode: PROMPT_<mode>.md.
func FileName(mode string) string { return "PROMPT_" + mode + ".md" }

// MissingError is a mode whose prompt file does not exist.
type MissingError struct {
	Mode       string
	Path       string
	Configured bool // the file was named in the configuration, not PROMPT_<mode>.md
}

func (e *MissingError) Error() string {
	if e.Configured {
		return fmt.Sprintf("prompt file of mode %q does not exist: %s", e.Mode, e.Path)
	}
	return fmt.Sprintf("no prompt for mode %q: %s does not exist", e.Mode, e.Path)
}

// Hint says how to get a prompt file.
func (e *MissingError) Hint() string {
	if e.Configured {
		return "create it, or fix prompt/prompts of this mode in .ralph/config.toml ('git ralph config' shows where it is set)"
	}
	if _, ok := Default(e.Mode); ok {
		return "run 'git ralph init' to write the default PROMPT_plan.md and PROMPT_build.md"
	}
	return fmt.Sprintf("create %s, or pick a mode whose PROMPT_<mode>.md exists", FileName(e.Mode))
}

// Load reads the prompt file of mode in the repository at dir.
func Load(dir, mode string) (Section, error) {
	if !modeName.MatchString(mode) {
		return Section{}, fmt.Errorf("%w %q: use letters, digits, '-' and '_'", ErrBadMode, mode)
	}
	path := filepath.Join(dir, FileName(mode))
	data, err := repofile.ReadIn(dir, FileName(mode), FileName(mode), repofile.PromptLimit)
	if errors.Is(err, fs.ErrNotExist) {
		if body, ok := builtinOnly(mode); ok { // a repository's own PROMPT_merge.md wins
			return Section{Source: "built-in " + FileName(mode), Body: body}, nil
		}
		return Section{}, &MissingError{Mode: mode, Path: path}
	}
	if err != nil {
		return Section{}, readError(err, fmt.Sprintf("the prompt of mode %q", mode))
	}
	if strings.TrimSpace(string(data)) == "" {
		return Section{}, fmt.Errorf("the prompt of mode %q is empty: %s", mode, path)
	}
	return Section{Source: FileName(mode), Body: string(data)}, nil
}

// Spec says what goes into one iteration's prompt.
type Spec struct {
	Dir   string   // the repository root
	Mode  string   // names the default prompt file, PROMPT_<mode>.md
	Files []string // prompt fragments to concatenate instead (config prompt/prompts), relative to Dir
	// Context is the --context text, in every iteration of the run.
	Context string
	// Injected is what `git ralph inject` queued for the next iteration, in order.
	Injected []Section
	// Feedback is what went wrong after the previous iteration (its validation failure,
	// a rejected push), already written out.
	Feedback string
	// Task is the inline task (`git ralph loop "TASK"`, --task-file): it goes where the
	// prompt has TaskPlaceholder, else in a "## Task" section after the prompt. With a task
	// and no prompt file for the mode, the built-in TaskFrame frames it.
	Task string
	// Frame, when its Body is set, is the prompt in place of the mode's file and fragments
	// (a template's PROMPT.md).
	Frame Section
}

// Assemble builds an iteration's prompt: the mode's prompt file (or the configured
// fragments, each as written, or the Frame given), the task where it has its placeholder
// (else a section for it), then a section for the context, each injected text and the
// previous iteration's validation feedback, when there are any.
func Assemble(s Spec) (Prompt, error) {
	p, err := frame(s)
	if err != nil {
		return Prompt{}, err
	}
	if p.Sections, err = placeTask(p.Sections, s.Task); err != nil {
		return Prompt{}, err
	}
	if strings.TrimSpace(s.Context) != "" {
		p.Sections = append(p.Sections, Section{Title: "Context", Source: "--context", Body: s.Context})
	}
	for _, in := range s.Injected {
		if strings.TrimSpace(in.Body) != "" {
			in.Title = "Context"
			p.Sections = append(p.Sections, in)
		}
	}
	if strings.TrimSpace(s.Feedback) != "" {
		p.Sections = append(p.Sections, Section{Title: "Previous iteration", Source: "git ralph", Body: s.Feedback})
	}
	return p, nil
}

// frame is the prompt the sections are added to: the Frame given (a template's), the
// configured fragments, or the mode's prompt file; with a task and no prompt file of the
// mode, the built-in task frame.
func frame(s Spec) (Prompt, error) {
	var p Prompt
	if s.Frame.Body != "" {
		p.Sections = append(p.Sections, s.Frame)
		return p, nil
	}
	if len(s.Files) == 0 {
		file, err := Load(s.Dir, s.Mode)
		var missing *MissingError
		if errors.As(err, &missing) && strings.TrimSpace(s.Task) != "" {
			file, err = Section{Source: "built-in " + taskFrameName, Body: TaskFrame()}, nil
		}
		if err != nil {
			return Prompt{}, err
		}
		p.Sections = append(p.Sections, file)
	}
	total := 0
	for _, name := range s.Files {
		fragment, err := LoadFile(s.Dir, s.Mode, name)
		if err != nil {
			return Prompt{}, err
		}
		// the cap holds for all the fragments together too: a config can list one
		// large file thousands of times
		if total += len(fragment.Body); total > repofile.PromptLimit {
			return Prompt{}, &repofile.RefusedError{Path: fragment.Source, Limit: repofile.PromptLimit,
				Reason: "with the prompt files before it, the prompt is larger than " + repofile.FormatSize(repofile.PromptLimit)}
		}
		p.Sections = append(p.Sections, fragment)
	}
	return p, nil
}

// LoadFile reads one configured prompt fragment of mode: a path relative to the
// repository root that must stay inside it.
func LoadFile(dir, mode, name string) (Section, error) {
	if filepath.IsAbs(name) || !filepath.IsLocal(filepath.Clean(name)) {
		return Section{}, fmt.Errorf("prompt file %q of mode %q must be a path inside the repository", name, mode)
	}
	data, err := repofile.ReadIn(dir, name, filepath.ToSlash(name), repofile.PromptLimit)
	if errors.Is(err, fs.ErrNotExist) {
		return Section{}, &MissingError{Mode: mode, Path: filepath.Join(dir, name), Configured: true}
	}
	if err != nil {
		return Section{}, readError(err, fmt.Sprintf("prompt file %s of mode %q", name, mode))
	}
	return Section{Source: filepath.ToSlash(name), Body: string(data)}, nil
}

// readError keeps a refusal as it is (it names the file and the reason, and has a hint)
// and says what was being read otherwise.
func readError(err error, what string) error {
	var refused *repofile.RefusedError
	if errors.As(err, &refused) {
		return err
	}
	return fmt.Errorf("reading %s: %w", what, err)
}
