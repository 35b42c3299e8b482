package gitwt

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// RemoveScratch removes a linked worktree that git-ralph added for its own use
// (a merge's scratch worktree), whatever state its files are in, as `git worktree remove
// --force --force` does and in the same order — its files first, then its administrative
// directory under common/worktrees — but without starting git: a git process costs more
// than the removal of a few files, and it ran beside the processes that land a merge.
//
// Only a worktree laid out as `git worktree add` leaves it is removed so: path/.git a
// file naming a directory directly under common/worktrees, whose gitdir file names
// path/.git back. Anything else (a command run in the worktree may have rewritten its
// .git file to name any directory) is left to git, through ForceRemove.
func RemoveScratch(ctx context.Context, dir, common, path string) error {
	admin, ok := scratchAdminDir(common, path)
	if !ok {
		forgetHalfAdded(common, path)
		return ForceRemove(ctx, dir, path)
	}
	if err := os.RemoveAll(path); err != nil {
		return ForceRemove(ctx, dir, path)
	}
	if err := os.RemoveAll(admin); err != nil {
		_, err = gitops.Git(ctx, dir, "worktree", "prune") // forgets a worktree whose directory is gone
		return err
	}
	_ = os.Remove(filepath.Dir(admin)) // common/worktrees, when it was the last one, as git does
	return nil
}

// forgetHalfAdded removes the administrative directories under common/worktrees that
// name the scratch worktree at path while path has no .git file: what an add killed
// between its two files leaves, still locked ("initializing"), which neither `git worktree
// remove` (no .git) nor a prune (locked) would clear, and which would refuse every later
// add at that place. path is git-ralph's own scratch place: a directory naming it is
// git-ralph's.
func forgetHalfAdded(common, path string) {
	dotGit := filepath.Join(path, ".git")
	if _, err := os.Lstat(dotGit); err == nil || !filepath.IsAbs(common) {
		return
	}
	worktrees := filepath.Join(common, "worktrees")
	entries, _ := os.ReadDir(worktrees)
	for _, e := range entries {
		admin := filepath.Join(worktrees, e.Name())
		if back, ok := pathLine(filepath.Join(admin, "gitdir"), ""); ok && back == dotGit {
			os.RemoveAll(admin)
		}
	}
}

// scratchAdminDir is the administrative directory of the linked worktree at path when
// its files say so both ways, as `git worktree add` writes them (absolute paths).
func scratchAdminDir(common, path string) (string, bool) {
	if !filepath.IsAbs(path) || !filepath.IsAbs(common) {
		return "", false
	}
	dotGit := filepath.Join(path, ".git")
	if info, err := os.Lstat(dotGit); err != nil || !info.Mode().IsRegular() {
		return "", false
	}
	admin, ok := pathLine(dotGit, "gitdir: ")
	if !ok || filepath.Dir(admin) != filepath.Join(filepath.Clean(common), "worktrees") {
		return "", false
	}
	if info, err := os.Lstat(admin); err != nil || !info.IsDir() {
		return "", false
	}
	back, ok := pathLine(filepath.Join(admin, "gitdir"), "")
	if !ok || back != dotGit {
		return "", false
	}
	return admin, true
}

// pathLine reads the absolute path a one-line git file holds after prefix, cleaned.
func pathLine(file, prefix string) (string, bool) {
	data, err := gitstore.ReadSmall(file, gitstore.MaxLineFile)
	line, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), prefix)
	if err != nil || !ok || !filepath.IsAbs(line) || strings.ContainsAny(line, "\n\x00") {
		return "", false
	}
	return filepath.Clean(line), true
}

// AddScratch adds a linked worktree at path (which must not exist) detached at
// commit without checking out its files, as `git worktree add --no-checkout --detach`
// does: cheap enough to make while something else runs, then filled with Reset
// (or Fill, then DetachScratchHead).
//
// When the repository is laid out plainly (see PlainConfig) and commit is a full hash, it
// writes the worktree's files itself, in git's order, sparing a git process and the
// `update-ref` child it starts (5 ms of a merge's critical path on a quiet machine);
// anything else is git's. common is the repository's common git directory.
func AddScratch(ctx context.Context, dir, common, path, commit string) error {
	if done, err := addScratchFiles(common, path, commit); done {
		return err
	}
	if _, err := gitops.Git(ctx, dir, "worktree", "add", "--quiet", "--no-checkout", "--detach", path, commit); err != nil {
		return fmt.Errorf("adding the scratch worktree %s: %w", path, err)
	}
	return nil
}

// scratchName is what git names a worktree's administrative directory for the base
// name of its path, for the names git-ralph gives its scratch worktrees (".merge-NAME":
// git turns the leading dot, which a ref name component may not start with, into "-");
// false for any other name, which is git's to sanitize.
func scratchName(base string) (string, bool) {
	rest := strings.TrimPrefix(base, ".")
	if rest == "" {
		return "", false
	}
	for _, c := range rest {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return "", false
		}
	}
	if rest != base {
		return "-" + rest, true
	}
	return base, true
}

// addScratchFiles writes the files of a new detached worktree at path without git, when
// it can be sure to write what git would: false (nothing written) when it cannot — an
// environment that names a git directory, a configuration git must read (extensions,
// includes, a worktree setting) or that makes git write more (a sparse checkout, a shared
// repository: see ConfigMentions), paths that are not absolute and real (git records
// real paths; RemoveScratch compares them), a name it does not sanitize as git,
// or another administrative directory that names the same place (git refuses it).
func addScratchFiles(common, path, commit string) (bool, error) {
	name, ok := scratchName(filepath.Base(path))
	if !ok || !gitstore.IsHash(commit) || !realAbs(common) || !realAbs(filepath.Dir(path)) ||
		os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" || os.Getenv("GIT_WORK_TREE") != "" ||
		!gitstore.PlainConfig(common) || gitstore.ConfigMentions(common, "sparsecheckout", "sharedrepository") ||
		exists(filepath.Join(common, "info", "sparse-checkout")) || registered(common, path) {
		return false, nil
	}
	if _, err := os.Lstat(path); err == nil {
		return false, nil // git's to refuse, in its words
	}
	worktrees := filepath.Join(common, "worktrees")
	if err := os.MkdirAll(worktrees, 0o777); err != nil {
		return false, nil
	}
	admin, err := makeAdminDir(worktrees, name)
	if err != nil {
		return false, nil
	}
	if made, err := writeScratchFiles(admin, path, commit); err != nil {
		if made {
			os.RemoveAll(path)
		}
		os.RemoveAll(admin)
		return true, fmt.Errorf("adding the scratch worktree %s: %w", path, err)
	}
	return true, nil
}

func exists(path string) bool {
	_, err := os.Lstat(path)
	return err == nil
}

// makeAdminDir creates the worktree's administrative directory under worktrees: name,
// or name with the first number that makes it new, as git does.
func makeAdminDir(worktrees, name string) (string, error) {
	for n := 0; n < 1000; n++ {
		admin := filepath.Join(worktrees, name)
		if n > 0 {
			admin += strconv.Itoa(n)
		}
		err := os.Mkdir(admin, 0o777)
		if err == nil || !errors.Is(err, fs.ErrExist) {
			return admin, err
		}
	}
	return "", fmt.Errorf("no free name for %s in %s", name, worktrees)
}

// writeScratchFiles writes what `git worktree add --detach` writes, in its order: the
// "locked" file first (a `git worktree prune` meanwhile leaves the half-made worktree
// alone), the worktree's directory, the two files that name each other, HEAD (git's
// `update-ref` child writes it; the scratch worktree needs no reflog), commondir, and the
// lock removed last.
func writeScratchFiles(admin, path, commit string) (madePath bool, err error) {
	locked := filepath.Join(admin, "locked")
	dotGit := filepath.Join(path, ".git")
	for _, step := range []func() error{
		func() error { return os.WriteFile(locked, []byte("initializing"), 0o666) },
		func() error {
			err := os.Mkdir(path, 0o777)
			madePath = err == nil
			return err
		},
		func() error { return os.WriteFile(filepath.Join(admin, "gitdir"), []byte(dotGit+"\n"), 0o666) },
		func() error { return os.WriteFile(dotGit, []byte("gitdir: "+admin+"\n"), 0o666) },
		func() error { return os.WriteFile(filepath.Join(admin, "HEAD"), []byte(commit+"\n"), 0o666) },
		func() error { return os.WriteFile(filepath.Join(admin, "commondir"), []byte("../..\n"), 0o666) },
		func() error { return os.Remove(locked) },
	} {
		if err := step(); err != nil {
			return madePath, err
		}
	}
	return madePath, nil
}

// registered reports whether an administrative directory under common/worktrees already
// names path (a worktree whose directory someone deleted: git refuses its place until
// pruned), or cannot be read to tell.
func registered(common, path string) bool {
	entries, err := os.ReadDir(filepath.Join(common, "worktrees"))
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	if err != nil {
		return true
	}
	dotGit := filepath.Join(path, ".git")
	for _, e := range entries {
		gitdir := filepath.Join(common, "worktrees", e.Name(), "gitdir")
		if _, err := os.Lstat(gitdir); errors.Is(err, fs.ErrNotExist) {
			continue // half made (an add killed before it), as git reads it: names no place
		}
		if back, ok := pathLine(gitdir, ""); !ok || back == dotGit {
			return true
		}
	}
	return false
}

// realAbs reports whether path is absolute, clean and free of symbolic links.
func realAbs(path string) bool {
	real, err := filepath.EvalSymlinks(path)
	return err == nil && filepath.IsAbs(path) && real == path
}

// DetachScratchHead points the HEAD of the scratch worktree at path at commit, detached.
// The HEAD file is written as git writes it (HEAD.lock created exclusively, then renamed
// over HEAD) when the worktree is laid out as `git worktree add` leaves it; the scratch
// worktree needs no reflog. Anything else goes to `git update-ref`.
func DetachScratchHead(ctx context.Context, common, path, commit string) error {
	if admin, ok := scratchAdminDir(common, path); ok && gitstore.IsHash(commit) {
		if err := writeLocked(filepath.Join(admin, "HEAD"), commit+"\n"); err == nil {
			return nil
		}
	}
	if _, err := gitops.Git(ctx, path, "update-ref", "--no-deref", "HEAD", commit); err != nil {
		return fmt.Errorf("pointing the HEAD of %s at %s: %w", path, commit, err)
	}
	return nil
}

// writeLocked replaces file with content through git's lock file, file.lock, which
// must not exist (someone else holds it): the content is whole or absent, never torn.
func writeLocked(file, content string) error {
	lock := file + ".lock"
	f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o666)
	if err != nil {
		return err
	}
	_, err = f.WriteString(content)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err == nil {
		err = os.Rename(lock, file)
	}
	if err != nil {
		os.Remove(lock)
	}
	return err
}

// Reset makes the detached work tree dir hold commit: HEAD, index and every
// tracked file (`git reset --hard`).
func Reset(ctx context.Context, dir, commit string) error {
	if _, err := gitops.Git(ctx, dir, "reset", "--quiet", "--hard", commit); err != nil {
		return fmt.Errorf("checking out %s in %s: %w", commit, dir, err)
	}
	return nil
}

// Fill makes the index and files of the work tree dir hold tree (`git read-tree
// --reset -u`), HEAD left as it is: with DetachScratchHead after it, what `git reset
// --hard` to a commit of that tree does, for a caller that has the tree before the
// commit.
func Fill(ctx context.Context, dir, tree string) error {
	if _, err := gitops.Git(ctx, dir, "read-tree", "--reset", "-u", tree); err != nil {
		return fmt.Errorf("checking out the tree %s in %s: %w", tree, dir, err)
	}
	return nil
}
