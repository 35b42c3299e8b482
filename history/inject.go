package history

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// injectDir holds the texts `git ralph inject` queued for the next iteration's prompt,
// one file each, named so that they sort in the order they were queued.
const injectDir = "inject"

// Injection is one queued text.
type Injection struct {
	Path string // the file that holds it; removing it consumes the text
	Text string
	At   time.Time
}

// Inject queues text for the next iteration of the running or next loop of the
// repository at root. The file appears whole or not at all, so a loop reading the queue
// never sees half of it.
func Inject(root, text string, now time.Time) (Injection, error) {
	dir := filepath.Join(root, Dir, injectDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return Injection{}, fmt.Errorf("creating %s: %w", dir, err)
	}
	if err := EnsureGitignore(root); err != nil {
		return Injection{}, fmt.Errorf("writing .ralph/.gitignore: %w", err)
	}
	name := fmt.Sprintf("%020d-%d.md", now.UnixNano(), os.Getpid())
	in := Injection{Path: filepath.Join(dir, name), Text: text, At: now}
	return in, WriteFileAtomic(in.Path, []byte(text), 0o644)
}

// Injections lists the queued texts, oldest first.
func Injections(root string) ([]Injection, error) {
	dir := filepath.Join(root, Dir, injectDir)
	entries, err := os.ReadDir(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the injected texts: %w", err)
	}
	var list []Injection
	total := 0
	for _, e := range entries {
		stamp, ok := strings.CutSuffix(e.Name(), ".md")
		if !ok || strings.HasPrefix(e.Name(), ".") {
			continue // a temp file still being written
		}
		// A repository can commit anything under .ralph/, a FIFO or a symlink too.
		data, err := repofile.ReadIn(root, filepath.Join(Dir, injectDir, e.Name()), Dir+"/"+injectDir+"/"+e.Name(), repofile.TextLimit)
		if errors.Is(err, fs.ErrNotExist) {
			continue // consumed meanwhile
		}
		if err != nil {
			return nil, fmt.Errorf("reading the injected text %s: %w", e.Name(), err)
		}
		if total += len(data); total > repofile.TextLimit && len(list) > 0 {
			break // the texts after it wait for the next iteration: one prompt carries 1 MiB at most
		}
		nanos, _ := strconv.ParseInt(strings.SplitN(stamp, "-", 2)[0], 10, 64)
		list = append(list, Injection{Path: filepath.Join(dir, e.Name()), Text: string(data), At: time.Unix(0, nanos)})
	}
	slices.SortFunc(list, func(a, b Injection) int { return strings.Compare(a.Path, b.Path) })
	return list, nil
}

// Consume removes the texts once an iteration's prompt carried them. Texts queued after
// they were read stay for the next iteration.
func Consume(list []Injection) error {
	var errs []error
	for _, in := range list {
		if err := os.Remove(in.Path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}
