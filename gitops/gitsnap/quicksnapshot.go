package gitsnap

import (
	"context"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// fileChange is one path of the work tree that differs from HEAD: its new mode and blob,
// or deleted.
type fileChange struct {
	path    string
	mode    filemode.FileMode
	hash    plumbing.Hash
	deleted bool
}

// quickSnapshot builds the tree of the work tree from HEAD's tree and the files `git status`
// reported, without an index: it hashes the changed files (`git hash-object -w`, which
// applies the same filters as `git add`) and writes new trees only for the directories above
// them. On a large repository that costs a fraction of staging into a copy of the index and
// writing a tree from it, which read and write the whole index twice.
//
// It takes only the common case, and says ErrNotQuick otherwise: nothing staged (so the
// index is HEAD), tracked files modified or deleted as regular files, untracked regular files
// that are not executable, no submodule, no conflict, and dir the top of a SHA-1 repository
// that go-git reads, with no object directory set in the environment.
func quickSnapshot(ctx context.Context, dir, head, status string) (string, error) {
	repo, err := gitstore.OpenForTrees(dir, head)
	if err != nil {
		return "", err
	}
	changes, err := quickChanges(ctx, dir, status)
	if err != nil {
		return "", err
	}
	objects, err := gitops.GitPath(ctx, dir, "objects")
	if err != nil {
		return "", err
	}
	shield := gitstore.NewShield(objects)
	if err := hashChanges(ctx, dir, changes); err != nil {
		return "", err
	}
	for _, c := range changes {
		shield.Cover(c.hash)
	}
	trees, err := readTrees(ctx, dir, head, changes)
	if err != nil {
		return "", err
	}
	write := func(entries []object.TreeEntry) (plumbing.Hash, bool, error) {
		hash, empty, err := gitstore.WriteTree(repo, entries)
		shield.Cover(hash)
		return hash, empty, err
	}
	hash, _, err := rebuildTree(write, trees, "", changes)
	if err != nil {
		return "", err
	}
	return hash.String(), nil
}

// quickChanges reads `git status --porcelain=v2 -z` (see parseStatus) into the changes
// quickSnapshot can take, or ErrNotQuick. Untracked directories, which status names as
// "dir/", are listed file by file (see untrackedFiles).
func quickChanges(ctx context.Context, dir, status string) ([]*fileChange, error) {
	entries, err := untrackedFiles(ctx, dir, strings.Split(status, "\x00"))
	if err != nil {
		return nil, err
	}
	var changes []*fileChange
	for _, entry := range entries {
		if entry == "" {
			continue
		}
		c, err := quickChange(dir, entry)
		if err != nil {
			return nil, err
		}
		if strings.ContainsAny(c.path, "\n\"\\") {
			return nil, gitstore.ErrNotQuick // hash-object and cat-file read lines, and unquote C-style quoting
		}
		changes = append(changes, c)
	}
	return changes, nil
}

// untrackedFiles replaces the untracked directories among status entries ("? dir/") by
// their untracked files that are not ignored, "? dir/file" each, as `git ls-files --others
// --exclude-standard` lists them: with the ignore rules `git status` applies.
func untrackedFiles(ctx context.Context, dir string, entries []string) ([]string, error) {
	var out, dirs []string
	for _, e := range entries {
		if strings.HasPrefix(e, "? ") && strings.HasSuffix(e, "/") {
			dirs = append(dirs, e[2:])
		} else {
			out = append(out, e)
		}
	}
	if len(dirs) == 0 {
		return out, nil
	}
	files, err := gitops.Git(ctx, dir, append([]string{"--literal-pathspecs", "ls-files", "-z", "--others", "--exclude-standard", "--"}, dirs...)...)
	if err != nil {
		return nil, err
	}
	for _, f := range strings.Split(files, "\x00") {
		if f != "" {
			out = append(out, "? "+f)
		}
	}
	return out, nil
}

func quickChange(dir, entry string) (*fileChange, error) {
	switch {
	case strings.HasPrefix(entry, "? "):
		path := entry[2:]
		info, err := os.Lstat(filepath.Join(dir, path))
		if err != nil || !info.Mode().IsRegular() || info.Mode()&0o111 != 0 || strings.HasSuffix(path, "/") {
			return nil, gitstore.ErrNotQuick // a directory, a link, an executable, or gone meanwhile
		}
		return &fileChange{path: path, mode: filemode.Regular}, nil
	case strings.HasPrefix(entry, "1 "):
		parts := strings.SplitN(entry, " ", 9)
		if len(parts) < 9 || parts[1][0] != '.' || parts[2] != "N..." {
			return nil, gitstore.ErrNotQuick // staged, or a submodule
		}
		if parts[1][1] == 'D' {
			return &fileChange{path: parts[8], deleted: true}, nil
		}
		mode := map[string]filemode.FileMode{"100644": filemode.Regular, "100755": filemode.Executable}[parts[5]]
		if mode == filemode.Empty || (parts[1][1] != 'M' && parts[1][1] != 'T') {
			return nil, gitstore.ErrNotQuick
		}
		return &fileChange{path: parts[8], mode: mode}, nil
	}
	return nil, gitstore.ErrNotQuick // renamed, unmerged
}

// hashChanges writes the blobs of the changed files (`git hash-object -w --stdin-paths`).
func hashChanges(ctx context.Context, dir string, changes []*fileChange) error {
	var paths strings.Builder
	var written []*fileChange
	for _, c := range changes {
		if !c.deleted {
			paths.WriteString(c.path + "\n")
			written = append(written, c)
		}
	}
	if len(written) == 0 {
		return nil
	}
	var out strings.Builder
	if err := gitops.GitTo(ctx, dir, nil, strings.NewReader(paths.String()), &out, "hash-object", "-w", "--stdin-paths"); err != nil {
		return err
	}
	hashes := strings.Fields(out.String())
	if len(hashes) != len(written) {
		return gitstore.ErrNotQuick
	}
	for i, c := range written {
		c.hash = plumbing.NewHash(hashes[i])
	}
	return nil
}

// rebuildTree returns the hash of HEAD's tree at dir (in trees) with changes applied
// (paths relative to it), writing the trees that differ, and whether the result is empty
// (git keeps no empty directory).
func rebuildTree(write treeWriter, trees map[string][]object.TreeEntry, dir string, changes []*fileChange) (plumbing.Hash, bool, error) {
	here, below := map[string]*fileChange{}, map[string][]*fileChange{}
	for _, c := range changes {
		if name, rest, nested := strings.Cut(c.path, "/"); nested {
			below[name] = append(below[name], &fileChange{path: rest, mode: c.mode, hash: c.hash, deleted: c.deleted})
		} else {
			here[c.path] = c
		}
	}
	var entries []object.TreeEntry
	for _, e := range trees[dir] {
		switch c, sub := here[e.Name], below[e.Name]; {
		case c != nil:
			delete(here, e.Name)
			if !c.deleted {
				entries = append(entries, object.TreeEntry{Name: e.Name, Mode: c.mode, Hash: c.hash})
			}
		case sub != nil:
			delete(below, e.Name)
			path := strings.TrimPrefix(dir+"/"+e.Name, "/")
			if _, ok := trees[path]; !ok || e.Mode != filemode.Dir {
				return plumbing.ZeroHash, false, gitstore.ErrNotQuick
			}
			hash, empty, err := rebuildTree(write, trees, path, sub)
			if err != nil {
				return plumbing.ZeroHash, false, err
			}
			if !empty {
				entries = append(entries, object.TreeEntry{Name: e.Name, Mode: filemode.Dir, Hash: hash})
			}
		default:
			entries = append(entries, e)
		}
	}
	for name, sub := range below { // directories HEAD does not have, made of untracked files
		if _, ok := here[name]; ok {
			return plumbing.ZeroHash, false, gitstore.ErrNotQuick
		}
		hash, empty, err := rebuildTree(write, trees, strings.TrimPrefix(dir+"/"+name, "/"), sub)
		if err != nil {
			return plumbing.ZeroHash, false, err
		}
		if !empty {
			entries = append(entries, object.TreeEntry{Name: name, Mode: filemode.Dir, Hash: hash})
		}
	}
	for name, c := range here {
		if !c.deleted {
			entries = append(entries, object.TreeEntry{Name: name, Mode: c.mode, Hash: c.hash})
		}
	}
	return write(entries)
}

// treeWriter stores a tree of entries and reports whether it is empty.
type treeWriter func(entries []object.TreeEntry) (plumbing.Hash, bool, error)
