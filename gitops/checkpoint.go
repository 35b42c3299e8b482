package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Checkpoint is the state of a repository at one moment: the commit HEAD points to ("" on an
// unborn branch) and a tree object holding the whole working tree, uncommitted and untracked
// (but not ignored) files included. Equal trees mean equal working-tree contents.
type Checkpoint struct {
	Head string
	Tree string
}

// TakeCheckpoint reads HEAD and snapshots the working tree of the repository containing dir.
func TakeCheckpoint(ctx context.Context, dir string) (Checkpoint, error) {
	head, err := Head(ctx, dir)
	if err != nil {
		return Checkpoint{}, err
	}
	tree, err := snapshotAt(ctx, dir, head)
	if err != nil {
		return Checkpoint{}, err
	}
	return Checkpoint{Head: head, Tree: tree}, nil
}

// Head returns the hash of the commit HEAD points to, or "" on an unborn branch.
// It reads with go-git and asks the git CLI when go-git cannot (SHA-256 or reftable
// repositories, unsupported extensions, a GIT_DIR in the environment, any read error).
func Head(ctx context.Context, dir string) (string, error) {
	if hash, ok := headGoGit(dir); ok {
		return hash, nil
	}
	out, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", "HEAD")
	var gitErr *Error
	if errors.As(err, &gitErr) && gitErr.ExitCode == 1 {
		return "", nil // --verify --quiet exits 1 when HEAD names no commit yet
	}
	if err != nil {
		return "", asNotRepo(dir, fmt.Errorf("reading HEAD: %w", err))
	}
	return out, nil
}

// headGoGit reads HEAD without starting a process. It reports false whenever the answer might
// differ from git's, so that the caller asks git instead.
func headGoGit(dir string) (string, bool) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" {
		return "", false // go-git ignores these; git honours them
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return "", false
	}
	ref, err := repo.Head()
	if err != nil {
		return "", false // unborn branches land here too; git tells them from broken refs
	}
	return ref.Hash().String(), true
}

// Snapshot returns the hash of a tree object holding the working tree of the repository
// containing dir, leaving the index and refs alone.
//
// A clean working tree (`git status` lists nothing) is HEAD's tree, read without writing
// anything: that is the common case between iterations, since agents commit their work,
// and it costs one `git status`. Otherwise the tree is built as snapshotDirty describes.
func Snapshot(ctx context.Context, dir string) (string, error) {
	head, err := Head(ctx, dir)
	if err != nil {
		return "", err
	}
	return snapshotAt(ctx, dir, head)
}

// snapshotAt is Snapshot when HEAD is already known to be head.
func snapshotAt(ctx context.Context, dir, head string) (string, error) {
	if head != "" {
		clean, err := cleanWorkTree(ctx, dir)
		if err != nil {
			return "", err
		}
		if clean {
			return headTree(ctx, dir, head)
		}
	}
	return snapshotDirty(ctx, dir)
}

// cleanWorkTree reports whether `git status` finds nothing to say: no staged, unstaged or
// untracked (not ignored) change. It reads the user's index without writing it.
func cleanWorkTree(ctx context.Context, dir string) (bool, error) {
	out, err := Git(ctx, dir, "status", "--porcelain", "-z", "--untracked-files=normal", "--ignore-submodules=none")
	if err != nil {
		return false, asNotRepo(dir, fmt.Errorf("reading the working tree's status: %w", err))
	}
	return out == "", nil
}

// headTree is the tree of commit head, read with go-git or else with the git CLI.
func headTree(ctx context.Context, dir, head string) (string, error) {
	if tree, ok := treeGoGit(dir, head); ok {
		return tree, nil
	}
	tree, err := Git(ctx, dir, "rev-parse", "--verify", "--quiet", head+"^{tree}")
	if err != nil {
		return "", fmt.Errorf("reading the tree of %s: %w", head, err)
	}
	return tree, nil
}

func treeGoGit(dir, head string) (string, bool) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" || len(head) != 40 {
		return "", false
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return "", false
	}
	commit, err := repo.CommitObject(plumbing.NewHash(head))
	if err != nil {
		return "", false
	}
	return commit.TreeHash.String(), true
}

// snapshotDirty writes the working tree as a tree object. It stages everything (`git add --all`)
// into a scratch copy of the index and runs `git write-tree` on that copy; the copy keeps the
// index's stat data, so only files that changed since the last `git add` are read and hashed.
//
// New blobs and trees are written to the object store, unreachable until a ref keeps them
// (see KeepAlive); gc prunes them after gc.pruneExpire. Files that git add cannot take
// (such as a nested repository with no commit yet) are left out rather than failing.
func snapshotDirty(ctx context.Context, dir string) (string, error) {
	index, err := GitPath(ctx, dir, "index")
	if err != nil {
		return "", err
	}
	// The scratch index lives in the git directory: never in the work tree (TMPDIR may be
	// inside it), and on the same filesystem as the real index.
	scratchDir, err := os.MkdirTemp(filepath.Dir(index), "ralph-index-")
	if err != nil {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	defer os.RemoveAll(scratchDir)
	scratch := filepath.Join(scratchDir, "index")
	if err := copyIndex(index, scratch); err != nil {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	env := []string{"GIT_INDEX_FILE=" + scratch}
	_, err = gitEnv(ctx, dir, env, "-c", "advice.addEmbeddedRepo=false", "add", "--all", "--ignore-errors")
	var gitErr *Error
	if err != nil && !(errors.As(err, &gitErr) && gitErr.ExitCode == 1) {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	tree, err := gitEnv(ctx, dir, env, "write-tree")
	if err != nil {
		return "", fmt.Errorf("snapshotting the working tree: %w", err)
	}
	return tree, nil
}

// copyIndex copies the index at src to dst with src's modification time. git compares each
// entry's mtime with the index file's own to find "racily clean" entries, files changed in the
// same tick the index was written, whose stat data cannot be trusted; a copy stamped "now"
// would make git trust them and miss such a change. A missing src leaves dst absent, which
// git reads as an empty index (a repository where nothing was ever added).
func copyIndex(src, dst string) error {
	in, err := os.Open(src)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer in.Close()
	info, err := in.Stat()
	if err != nil {
		return err
	}
	out, err := os.Create(dst)
	if err != nil {
		return err
	}
	if _, err := io.Copy(out, in); err != nil {
		out.Close()
		return err
	}
	if err := out.Close(); err != nil {
		return err
	}
	return os.Chtimes(dst, info.ModTime(), info.ModTime())
}

// asNotRepo turns git's "not a git repository" failure into ErrNotRepo.
func asNotRepo(dir string, err error) error {
	var gitErr *Error
	if errors.As(err, &gitErr) && strings.Contains(gitErr.Stderr, "not a git repository") {
		return fmt.Errorf("%s: %w", dir, ErrNotRepo)
	}
	return err
}

// KeepAlive points ref (a full name such as refs/ralph/iterations/12/start) at hash, so that gc
// keeps the object and everything it reaches. hash may be a commit or a tree: git lets refs
// outside refs/heads/ name trees, gc keeps them, and `git log --all` skips them silently.
func KeepAlive(ctx context.Context, dir, ref, hash string) error {
	if hash == "" {
		return fmt.Errorf("keeping %s alive: no object (unborn branch?)", ref)
	}
	return KeepAliveAll(ctx, dir, []Ref{{Name: ref, Hash: hash}})
}

// Changes counts what a diff touched. A binary file counts as one file with no lines.
type Changes struct {
	Files      int
	Insertions int
	Deletions  int
}

// diffArgs pin every setting that changes what a diff says or how it is spelled, whatever the
// user's config: no external or textconv drivers, a/ and b/ prefixes, whole-repository paths,
// submodules as one commit line and never hidden.
// Renames are not detected (diff.renames is on by default since git 2.9): a moved file is a
// deletion and an addition, which is what its lines did, costs no rename search, and keeps the
// counts independent of config and of diff.renameLimit.
var diffArgs = []string{"--no-ext-diff", "--no-textconv", "--no-color", "--no-renames",
	"--no-relative", "--src-prefix=a/", "--dst-prefix=b/", "--submodule=short", "--ignore-submodules=none"}

// DiffStat counts the files and lines that differ between two trees, normally the Tree of the
// checkpoints before and after an iteration: its commits and its uncommitted work together.
func DiffStat(ctx context.Context, dir, from, to string) (Changes, error) {
	args := append(append([]string{"diff", "--numstat", "-z"}, diffArgs...), from, to, "--")
	out, err := Git(ctx, dir, args...)
	if err != nil {
		return Changes{}, fmt.Errorf("counting changes from %s to %s: %w", from, to, err)
	}
	return parseNumstat(out)
}

// parseNumstat reads `git diff --numstat -z`: "added\tdeleted\tpath\0" per file, with "-" for
// the counts of a binary file. A rename or copy, should one appear, is "added\tdeleted\t\0"
// followed by the old and the new path.
func parseNumstat(out string) (Changes, error) {
	var c Changes
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		if fields[i] == "" {
			continue
		}
		added, rest, ok1 := strings.Cut(fields[i], "\t")
		deleted, path, ok2 := strings.Cut(rest, "\t")
		if !ok1 || !ok2 {
			return Changes{}, fmt.Errorf("reading git diff --numstat: unexpected record %q", fields[i])
		}
		if path == "" {
			i += 2
		}
		a, err1 := lineCount(added)
		d, err2 := lineCount(deleted)
		if err := errors.Join(err1, err2); err != nil {
			return Changes{}, fmt.Errorf("reading git diff --numstat: %w", err)
		}
		c.Files++
		c.Insertions += a
		c.Deletions += d
	}
	return c, nil
}

func lineCount(s string) (int, error) {
	if s == "-" {
		return 0, nil
	}
	return strconv.Atoi(s)
}

// Diff streams the unified diff between two trees to w, with the settings of DiffStat.
// Binary files show as "Binary files a/x and b/x differ", without their contents.
func Diff(ctx context.Context, dir, from, to string, w io.Writer) error {
	args := append(append([]string{"diff"}, diffArgs...), from, to, "--")
	if err := gitTo(ctx, dir, nil, nil, w, args...); err != nil {
		return fmt.Errorf("diffing %s to %s: %w", from, to, err)
	}
	return nil
}

// Ref is a ref name and the object it should point to.
type Ref struct {
	Name string
	Hash string
}

// KeepAliveAll is KeepAlive for several refs in one git process (update-ref --stdin),
// since it runs on every iteration. Refs with an empty hash are skipped.
func KeepAliveAll(ctx context.Context, dir string, refs []Ref) error {
	var script strings.Builder
	for _, r := range refs {
		if r.Hash == "" {
			continue
		}
		if !strings.HasPrefix(r.Name, "refs/") || strings.HasPrefix(r.Name, "refs/heads/") {
			return fmt.Errorf("keeping %q alive: ref %q must be under refs/ and not a branch", r.Hash, r.Name)
		}
		fmt.Fprintf(&script, "update %s %s\n", r.Name, r.Hash)
	}
	if script.Len() == 0 {
		return nil
	}
	var out strings.Builder
	if err := gitTo(ctx, dir, nil, strings.NewReader(script.String()), &out, "update-ref", "--no-deref", "--stdin"); err != nil {
		return fmt.Errorf("keeping checkpoints alive: %w", err)
	}
	return nil
}
