package gitnotes

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// A note appended on every iteration that made commits cost seven git processes (27 ms)
// the way `git notes` builds it on a scratch ref. appendNoteQuick builds the same notes
// commit in process, with go-git, and lands it with one `git update-ref` that checks what
// the ref held (the same compare-and-swap): one process. Whatever it cannot do exactly as
// git would (another hash, a ref store or object go-git cannot read) falls back to git's
// way (ErrNotQuick).

// appendNoteQuick is Append in process; ErrNotQuick sends the caller to git's way.
func appendNoteQuick(ctx context.Context, dir, ref, commit, text string) error {
	if len(commit) != 40 || stripSpace(text) == "" {
		return gitstore.ErrNotQuick // (git removes a note appended nothing)
	}
	repo, err := gitstore.OpenForTrees(dir, commit)
	if err != nil {
		return err
	}
	if repo.Storer.HasEncodedObject(plumbing.NewHash(commit)) != nil {
		return gitstore.ErrNotQuick // git's way says the object is missing
	}
	who, err := notesSigner(ctx, dir)
	if err != nil {
		return err
	}
	objects, err := gitops.GitPath(ctx, dir, "objects")
	if err != nil || gitstore.ConfigMentions(filepath.Dir(objects), "sharedrepository") {
		return gitstore.ErrNotQuick // a shared repository's objects get group permissions from git
	}
	s := gitstore.NewShield(objects)
	for attempt := 1; ; attempt++ {
		old, tip, err := buildNote(repo, s, ref, commit, text, who)
		if err != nil {
			return err
		}
		err = gitops.SwapRef(ctx, dir, ref, tip, old, "notes: Notes added by 'git notes append'")
		if err == nil || attempt == noteAttempts || ctx.Err() != nil {
			return err
		}
		// moved by another writer, or locked by one right now: again, a moment later
		time.Sleep(noteRetryPause())
	}
}

// buildNote writes the notes commit that appends text to commit's note on ref's tip,
// and returns that tip ("" when ref does not exist yet) and the new commit.
func buildNote(repo *git.Repository, s gitstore.Shield, ref, commit, text string, who noteSigner) (old, tip string, err error) {
	var parents []plumbing.Hash
	var tree *object.Tree
	r, err := repo.Reference(plumbing.ReferenceName(ref), true)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
	case err != nil:
		return "", "", gitstore.ErrNotQuick
	default:
		c, err := repo.CommitObject(r.Hash())
		if err != nil {
			return "", "", gitstore.ErrNotQuick
		}
		if tree, err = c.Tree(); err != nil {
			return "", "", gitstore.ErrNotQuick
		}
		old, parents = c.Hash.String(), []plumbing.Hash{c.Hash}
	}
	w := noteWriter{repo: repo, shield: s}
	root, err := w.put(tree, commit, stripSpace(text))
	if err != nil {
		return "", "", err
	}
	author, committer := who.at(time.Now())
	c := &object.Commit{Author: author, Committer: committer, Message: "Notes added by 'git notes append'\n",
		TreeHash: root, ParentHashes: parents}
	hash, err := w.store(c)
	if err != nil {
		return "", "", err
	}
	return old, hash.String(), nil
}

// noteWriter writes a notes tree's objects, each dated ahead (see gitstore.Shield).
type noteWriter struct {
	repo   *git.Repository
	shield gitstore.Shield
}

// put returns the tree that is tree (nil: none) with text appended to the note named
// name, as git does: at the fan-out depth where the note is or where tree's subtrees
// lead (notes "ab/cdef…" under a directory "ab"); git reads a note at any depth and
// sets the fan-out again when it next writes the tree itself.
func (w noteWriter) put(tree *object.Tree, name, text string) (plumbing.Hash, error) {
	var entries []object.TreeEntry
	if tree != nil {
		entries = append(entries, tree.Entries...)
	}
	for i, e := range entries {
		switch {
		case e.Name == name && e.Mode.IsFile():
			old, err := w.blobText(e.Hash)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if old != "" {
				text = old + "\n" + text // git notes append: a blank line between
			}
			if entries[i].Hash, err = w.blob(text); err != nil {
				return plumbing.ZeroHash, err
			}
			return w.tree(entries)
		case len(name) > 2 && e.Name == name[:2] && e.Mode == filemode.Dir:
			sub, err := w.repo.TreeObject(e.Hash)
			if err != nil {
				return plumbing.ZeroHash, gitstore.ErrNotQuick
			}
			if entries[i].Hash, err = w.put(sub, name[2:], text); err != nil {
				return plumbing.ZeroHash, err
			}
			return w.tree(entries)
		}
	}
	hash, err := w.blob(text)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return w.tree(append(entries, object.TreeEntry{Name: name, Mode: filemode.Regular, Hash: hash}))
}

func (w noteWriter) blobText(hash plumbing.Hash) (string, error) {
	b, err := w.repo.BlobObject(hash)
	if err != nil {
		return "", gitstore.ErrNotQuick
	}
	r, err := b.Reader()
	if err != nil {
		return "", gitstore.ErrNotQuick
	}
	defer r.Close()
	data, err := io.ReadAll(r)
	if err != nil {
		return "", gitstore.ErrNotQuick
	}
	return string(data), nil
}

func (w noteWriter) blob(text string) (plumbing.Hash, error) {
	obj := w.repo.Storer.NewEncodedObject()
	obj.SetType(plumbing.BlobObject)
	wr, err := obj.Writer()
	if err != nil {
		return plumbing.ZeroHash, gitstore.ErrNotQuick
	}
	if _, err := io.WriteString(wr, text); err != nil {
		return plumbing.ZeroHash, gitstore.ErrNotQuick
	}
	if err := wr.Close(); err != nil {
		return plumbing.ZeroHash, gitstore.ErrNotQuick
	}
	return w.save(obj)
}

func (w noteWriter) tree(entries []object.TreeEntry) (plumbing.Hash, error) {
	hash, _, err := gitstore.WriteTree(w.repo, entries)
	w.shield.Cover(hash)
	return hash, err
}

func (w noteWriter) store(c *object.Commit) (plumbing.Hash, error) {
	obj := w.repo.Storer.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, gitstore.ErrNotQuick
	}
	return w.save(obj)
}

func (w noteWriter) save(obj plumbing.EncodedObject) (plumbing.Hash, error) {
	hash, err := w.repo.Storer.SetEncodedObject(obj)
	if err != nil {
		return plumbing.ZeroHash, gitstore.ErrNotQuick // git's way will say why
	}
	w.shield.Cover(hash)
	return hash, nil
}

// noteSigner is who writes the notes commits in dir: git's author and committer, else
// git-ralph's own (as notesGit). It is asked of git once per repository and process; the
// date is now unless the environment fixes it, as git's is.
type noteSigner struct {
	author, committer object.Signature
	fixedAuthor       bool // GIT_AUTHOR_DATE: the date git var gave
	fixedCommitter    bool
}

func (s noteSigner) at(now time.Time) (author, committer object.Signature) {
	author, committer = s.author, s.committer
	if !s.fixedAuthor {
		author.When = now
	}
	if !s.fixedCommitter {
		committer.When = now
	}
	return author, committer
}

func notesSigner(ctx context.Context, dir string) (noteSigner, error) {
	if s, ok := signers.Load(dir); ok {
		return s.(noteSigner), nil
	}
	backup := object.Signature{Name: "git-ralph", Email: "git-ralph@localhost"}
	s := noteSigner{author: backup, committer: backup}
	if c, ok := identSignature(ctx, dir, "GIT_COMMITTER_IDENT"); ok {
		s.committer, s.author = c, backup
		if a, ok := identSignature(ctx, dir, "GIT_AUTHOR_IDENT"); ok {
			s.author = a
		}
	}
	if ctx.Err() != nil {
		return s, gitstore.ErrNotQuick
	}
	s.fixedAuthor, s.fixedCommitter = os.Getenv("GIT_AUTHOR_DATE") != "", os.Getenv("GIT_COMMITTER_DATE") != ""
	signers.Store(dir, s)
	return s, nil
}

var signers sync.Map // dir -> noteSigner

// identSignature is `git var who` ("Name <email> 1767225600 +0100") as a signature.
func identSignature(ctx context.Context, dir, who string) (object.Signature, bool) {
	out, err := gitops.Git(ctx, dir, "var", who)
	if err != nil || !gitstore.IdentRule.MatchString(out) {
		return object.Signature{}, false
	}
	var sig object.Signature
	sig.Decode([]byte(out))
	return sig, sig.Name != "" || sig.Email != ""
}

// stripSpace cleans a message as `git notes -F` does (git stripspace): no trailing
// whitespace on a line, no blank lines at the start or the end, one blank line at most
// between paragraphs, and a final newline.
func stripSpace(text string) string {
	var b strings.Builder
	blank := false
	for line := range strings.SplitSeq(text, "\n") {
		line = strings.TrimRight(line, " \t\r\v\f")
		if line == "" {
			blank = b.Len() > 0
			continue
		}
		if blank {
			b.WriteByte('\n')
			blank = false
		}
		b.WriteString(line + "\n")
	}
	return b.String()
}
