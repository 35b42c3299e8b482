package gitstore

import (
	"errors"
	"os"
	"path/filepath"
	"sort"
	"time"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNotQuick says the in-process way (go-git) cannot do exactly what git would here (another
// hash, an environment or a change of a kind it does not handle): the caller takes git's way.
var ErrNotQuick = errors.New("not a quick snapshot")

// OpenForTrees opens the repository with go-git, to write tree objects, when go-git
// writes them where and as git would (a SHA-1 repository, dir its top).
func OpenForTrees(dir, head string) (*git.Repository, error) {
	for _, name := range []string{"GIT_DIR", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY", "GIT_ALTERNATE_OBJECT_DIRECTORIES", "GIT_WORK_TREE"} {
		if os.Getenv(name) != "" {
			return nil, ErrNotQuick
		}
	}
	if len(head) != 40 {
		return nil, ErrNotQuick
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{EnableDotGitCommonDir: true})
	if err != nil {
		return nil, ErrNotQuick // not the top of the work tree, or go-git cannot read it
	}
	return repo, nil
}

// WriteTree stores a tree of entries, in git's order, and reports whether it is empty.
func WriteTree(repo *git.Repository, entries []object.TreeEntry) (plumbing.Hash, bool, error) {
	sort.Sort(object.TreeEntrySorter(entries))
	tree := &object.Tree{Entries: entries}
	obj := repo.Storer.NewEncodedObject()
	if err := tree.Encode(obj); err != nil {
		return plumbing.ZeroHash, false, ErrNotQuick
	}
	hash, err := repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, false, ErrNotQuick // git itself, the index way, will say why
	}
	return hash, len(entries) == 0, nil
}

// Shield keeps the loose objects a snapshot writes from a `git gc --prune=now` that is
// already running: such a gc looked for what refs keep before the snapshot's refs exist,
// and prunes, of what it did not find, the objects not newer than its start. So the new
// objects are dated a few seconds ahead as soon as they are written, which leaves only the
// instant between writing and dating them to chance. Objects git already had packed have
// no loose file to date, and need none.
type Shield struct {
	objects string
	until   time.Time
}

// NewShield dates ahead the objects written from now on into objects (the repository's
// object directory, `git rev-parse --git-path objects`).
func NewShield(objects string) Shield {
	return Shield{objects: objects, until: time.Now().Add(5 * time.Second)}
}

// Cover dates the loose object of hash ahead.
func (s Shield) Cover(hash plumbing.Hash) {
	if hash.IsZero() {
		return
	}
	hex := hash.String()
	_ = os.Chtimes(filepath.Join(s.objects, hex[:2], hex[2:]), s.until, s.until)
}
