package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

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
		return "", AsNotRepo(dir, fmt.Errorf("reading HEAD: %w", err))
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

// KeepAlive points ref (a full name such as refs/ralph/iterations/12/start) at hash, so that gc
// keeps the object and everything it reaches. hash may be a commit or a tree: git lets refs
// outside refs/heads/ name trees, gc keeps them, and `git log --all` skips them silently.
func KeepAlive(ctx context.Context, dir, ref, hash string) error {
	if hash == "" {
		return fmt.Errorf("keeping %s alive: no object (unborn branch?)", ref)
	}
	return KeepAliveAll(ctx, dir, []Ref{{Name: ref, Hash: hash}})
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
	if err := GitTo(ctx, dir, nil, strings.NewReader(script.String()), &out, "update-ref", "--no-deref", "--stdin"); err != nil {
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
	if err := GitTo(ctx, dir, nil, strings.NewReader(request.String()), &out, "cat-file", "--batch-check"); err != nil {
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

// ErrRefMoved means a compare-and-swap of a ref failed because the ref no longer held the
// value the caller expected: someone else moved it meanwhile.
var ErrRefMoved = errors.New("the ref moved meanwhile")

// SwapRef moves ref to newCommit only if it still points at oldCommit, in one atomic step
// (`git update-ref ref new old`): a reader sees the old commit or the new, never anything
// between. It returns ErrRefMoved when ref holds something else.
func SwapRef(ctx context.Context, dir, ref, newCommit, oldCommit, reason string) error {
	_, err := Git(ctx, dir, "update-ref", "-m", reason, ref, newCommit, oldCommit)
	if err == nil {
		return nil
	}
	if now, readErr := ResolveRef(ctx, dir, ref); readErr == nil && now != oldCommit {
		return fmt.Errorf("moving %s: %w (it is at %s, not %s)", ref, ErrRefMoved, orNone(now), oldCommit)
	}
	return fmt.Errorf("moving %s to %s: %w", ref, newCommit, err)
}

func orNone(commit string) string {
	if commit == "" {
		return "nothing"
	}
	return commit
}

// ResolveRefs reads the commits of several full ref names; a ref that does not exist is
// missing from the answer. It reads them with go-git, without a process, when it finds
// them all there, and else asks git in one call (see refsGoGit).
func ResolveRefs(ctx context.Context, dir string, refs ...string) (map[string]string, error) {
	if found, ok := refsGoGit(dir, refs); ok {
		return found, nil
	}
	out, err := Git(ctx, dir, append([]string{"for-each-ref", "--format=%(refname) %(objectname)", "--"}, refs...)...)
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", strings.Join(refs, ", "), err)
	}
	want := map[string]bool{}
	for _, ref := range refs {
		want[ref] = true
	}
	found := map[string]string{}
	for _, line := range strings.Split(out, "\n") {
		name, commit, ok := strings.Cut(line, " ")
		if ok && want[name] { // a pattern also matches the refs below it: refs/heads/main/x
			found[name] = commit
		}
	}
	return found, nil
}

// refsGoGit reads refs with go-git. It reports false whenever git might answer otherwise:
// an environment go-git ignores, a repository it cannot open, a ref it does not find
// (missing, or kept where go-git does not look, as in a reftable repository) or that
// does not end in a hash.
func refsGoGit(dir string, refs []string) (map[string]string, bool) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" {
		return nil, false
	}
	repo, err := git.PlainOpenWithOptions(dir, &git.PlainOpenOptions{DetectDotGit: true, EnableDotGitCommonDir: true})
	if err != nil {
		return nil, false
	}
	found := map[string]string{}
	for _, name := range refs {
		ref, err := repo.Reference(plumbing.ReferenceName(name), true)
		if err != nil || ref.Type() != plumbing.HashReference || ref.Hash().IsZero() {
			return nil, false
		}
		found[name] = ref.Hash().String()
	}
	return found, true
}
