package history

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// promptFile keeps what the agent was told in an iteration: its assembled prompt.
const promptFile = "prompt.md"

// PromptLimit bounds a kept prompt: a prompt file may be megabytes (repofile.PromptLimit),
// and every iteration keeps one. Its beginning (the prompt file, the task) and its end (the
// injected texts, the previous iteration's feedback) are what a reader looks for; the
// middle of a larger one is left out, with a line saying how much.
const PromptLimit = 256 << 10

// promptTail is how much of a larger prompt's end is kept; the rest of PromptLimit keeps
// its beginning.
const promptTail = 64 << 10

// promptReadLimit is what ReadPrompt accepts: PromptLimit and the note of what was cut.
const promptReadLimit = PromptLimit + 1<<10

// PromptPath is where iteration n's assembled prompt is kept (see DiffPath).
func (s *Store) PromptPath(n int) string { return filepath.Join(s.IterationDir(n), promptFile) }

// SavePrompt keeps iteration n's prompt, redacted and bounded by PromptLimit; it returns
// how many bytes of the (redacted) prompt were left out. The file is replaced as a whole
// (never written through a symlink a repository committed in its place), without a disk
// flush: a prompt lost to a power cut costs nothing the loop needs to resume.
func (s *Store) SavePrompt(n int, prompt string) (cut int, err error) {
	if err := s.ownDir(n); err != nil {
		return 0, fmt.Errorf("keeping the prompt of iteration %d: %w", n, err)
	}
	kept, cut := boundPrompt(redact.String(prompt))
	if err := ReplaceFile(s.PromptPath(n), []byte(kept), 0o644); err != nil {
		return 0, fmt.Errorf("keeping the prompt of iteration %d: %w", n, err)
	}
	return cut, nil
}

// boundPrompt keeps the first PromptLimit-promptTail and the last promptTail bytes of a
// longer text, cut at line breaks where there is one near, with a line in between saying
// how many bytes were left out.
func boundPrompt(text string) (string, int) {
	if len(text) <= PromptLimit {
		return text, 0
	}
	head := text[:lineCut(text, PromptLimit-promptTail)]
	tailFrom := len(text) - promptTail
	if i := strings.IndexByte(text[tailFrom:], '\n'); i >= 0 && i < promptTail/4 {
		tailFrom += i + 1
	}
	for tailFrom < len(text) && !utf8.RuneStart(text[tailFrom]) {
		tailFrom++
	}
	cut := tailFrom - len(head)
	note := fmt.Sprintf("\n[git-ralph: %d bytes of the prompt left out here; the agent was given all of it]\n", cut)
	return head + note + text[tailFrom:], cut
}

// lineCut is where to end a head of at most n bytes of text: after the last line break in
// its last quarter, else at n moved back to the start of a character.
func lineCut(text string, n int) int {
	if i := strings.LastIndexByte(text[:n], '\n'); i >= n-n/4 {
		return i + 1
	}
	for n > 0 && !utf8.RuneStart(text[n]) {
		n--
	}
	return n
}

// ReadPrompt reads iteration n's kept prompt as git-ralph's own file: never through a
// symlink or from a FIFO, at most what SavePrompt writes. A missing file is an error
// wrapping fs.ErrNotExist (iterations of older versions kept none, pruning removes it).
func (s *Store) ReadPrompt(n int) ([]byte, error) {
	if err := s.ownDir(n); err != nil {
		return nil, err
	}
	return repofile.ReadOwn(s.PromptPath(n), s.PromptPath(n), promptReadLimit)
}
