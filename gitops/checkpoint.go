package gitops

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/go-git/go-git/v5"
)

// Checkpoint is the state of a repository at one moment: the commit HEAD points to ("" on an
// unborn branch) and a tree object holding the whole working tree, uncommitted and untracked
// (but not ignored) files included. Equal trees mean equal working-tree contents.
type Checkpoint struct {
	Head string
	Tree string
}

// TakeCheckpoint reads HEAD, snapshots the working tree of the repository containing dir, and
// at once points the refs keep names for it at the checkpoint (see KeepAliveAll), so that a
// gc can prune nothing the checkpoint holds once it is taken.
//
// Between writing the snapshot's objects and that ref update, a concurrent
// `git gc --prune=now` may still prune them: git offers no way to write objects and a ref to
// them in one step. The update then fails on a missing object (or git-write-tree does, on a
// missing blob), and the checkpoint is taken again, up to checkpointAttempts times.
func TakeCheckpoint(ctx context.Context, dir string, keep func(Checkpoint) []Ref) (Checkpoint, error) {
	var err error
	for attempt := 1; attempt <= checkpointAttempts; attempt++ {
		var c Checkpoint
		if c, err = takeCheckpoint(ctx, dir); err == nil {
			beforeKeep(dir, c)
			if err = KeepAliveAll(ctx, dir, keep(c)); err == nil {
				return c, nil
			}
		}
		if !IsPruned(err) {
			return Checkpoint{}, err
		}
		select { // let a gc's pack-refs release the ref locks it holds
		case <-ctx.Done():
			return Checkpoint{}, err
		case <-time.After(time.Duration(attempt) * 20 * time.Millisecond):
		}
	}
	return Checkpoint{}, fmt.Errorf("the objects of the checkpoint went missing %d times while it was taken (is `git gc --prune=now` running in a loop?): %w", checkpointAttempts, err)
}

// beforeKeep runs between a checkpoint's snapshot and the ref update that keeps it: the
// window a concurrent gc can hit, where tests put one.
var beforeKeep = func(dir string, c Checkpoint) {}

// checkpointAttempts bounds TakeCheckpoint's retries after a concurrent gc.
const checkpointAttempts = 5

func takeCheckpoint(ctx context.Context, dir string) (Checkpoint, error) {
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

// IsPruned reports whether err is git failing on an object that is not (or no longer) in the
// repository, on a ref lock held by a concurrent gc's pack-refs, or on writing an object
// into a directory of .git/objects that a concurrent prune removed as empty: what a
// `git gc --prune=now` running at the same time causes.
func IsPruned(err error) bool {
	var gitErr *Error
	if !errors.As(err, &gitErr) {
		return false
	}
	for _, sign := range []string{"nonexistent object", "invalid object", "bad object", "missing object",
		"unable to read", "cannot lock ref", "Unable to create",
		"unable to write", "unable to create temporary file", "No such file or directory"} { // prune removes empty object directories
		if strings.Contains(gitErr.Stderr, sign) {
			return true
		}
	}
	return false
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
// submodules never hidden, and shown as the diff of their content (a submodule's uncommitted
// work is a snapshot commit in the checkpoints, see stageSubmoduleWork). The counts of
// --numstat take a changed submodule as one file with one line removed and one added.
// Renames are not detected (diff.renames is on by default since git 2.9): a moved file is a
// deletion and an addition, which is what its lines did, costs no rename search, and keeps the
// counts independent of config and of diff.renameLimit.
var diffArgs = []string{"--no-ext-diff", "--no-textconv", "--no-color", "--no-renames",
	"--no-relative", "--src-prefix=a/", "--dst-prefix=b/", "--submodule=diff", "--ignore-submodules=none"}

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
	files, err := parseNumstatFiles(out)
	return sum(files), err
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

// MissingObjects returns those of the objects named that git does not have (one
// `git cat-file --batch-check`); empty names are skipped.
func MissingObjects(ctx context.Context, dir string, names ...string) ([]string, error) {
	var request strings.Builder
	var asked []string
	for _, name := range names {
		if name != "" && !strings.ContainsAny(name, "\n") {
			request.WriteString(name + "\n")
			asked = append(asked, name)
		}
	}
	if len(asked) == 0 {
		return nil, nil
	}
	var out strings.Builder
	if err := gitTo(ctx, dir, nil, strings.NewReader(request.String()), &out, "cat-file", "--batch-check"); err != nil {
		return nil, fmt.Errorf("looking for objects: %w", err)
	}
	var missing []string
	for i, line := range strings.Split(strings.TrimSuffix(out.String(), "\n"), "\n") {
		if i < len(asked) && strings.HasSuffix(line, " missing") {
			missing = append(missing, asked[i])
		}
	}
	return missing, nil
}
