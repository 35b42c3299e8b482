package gitsnap

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// treeShape is where a tree puts files, and so which paths of the work tree writing it
// would overwrite or delete.
type treeShape struct {
	files map[string]bool // every file, symlink and submodule
	dirs  map[string]bool // every directory that holds one of them
}

func newTreeShape(files []string) treeShape {
	s := treeShape{files: make(map[string]bool, len(files)), dirs: map[string]bool{}}
	for _, f := range files {
		s.files[f] = true
		for d := parentDir(f); d != "" && !s.dirs[d]; d = parentDir(d) {
			s.dirs[d] = true
		}
	}
	return s
}

// touches reports whether writing the tree overwrites or deletes the work-tree file at
// path: the tree holds a file there, a directory there, or a file where one of path's
// parent directories is.
func (s treeShape) touches(path string) bool {
	return s.files[path] || s.dirs[path] || s.underFile(path)
}

// underFile reports whether one of path's parent directories is a file in the tree.
func (s treeShape) underFile(path string) bool {
	for d := parentDir(path); d != ""; d = parentDir(d) {
		if s.files[d] {
			return true
		}
	}
	return false
}

func parentDir(path string) string {
	i := strings.LastIndexByte(path, '/')
	if i < 0 {
		return ""
	}
	return path[:i]
}

// touchedIgnored lists the ignored files of the work tree that writing a tree holding
// targetFiles would overwrite or delete. git lists a wholly ignored directory as one entry
// (node_modules/); only those the tree reaches into are listed file by file.
func touchedIgnored(ctx context.Context, dir string, targetFiles []string) ([]string, error) {
	entries, err := ignoredFiles(ctx, dir, "--directory", "--no-empty-directory")
	if err != nil {
		return nil, err
	}
	shape := newTreeShape(targetFiles)
	var touched []string
	for _, e := range entries {
		d, isDir := strings.CutSuffix(e, "/")
		if !isDir {
			if shape.touches(e) {
				touched = append(touched, e)
			}
			continue
		}
		if !shape.touches(d) {
			continue
		}
		inside, err := ignoredFiles(ctx, dir, "--", e)
		if err != nil {
			return nil, err
		}
		for _, f := range inside {
			if shape.touches(f) || shape.files[d] || shape.underFile(d) {
				touched = append(touched, f)
			}
		}
	}
	return sortedSet(touched), nil
}

// ignoredFiles runs `git ls-files --others --ignored --exclude-standard` in dir, the top
// of the work tree, with extra arguments.
func ignoredFiles(ctx context.Context, dir string, extra ...string) ([]string, error) {
	args := append([]string{"ls-files", "-z", "--others", "--ignored", "--exclude-standard"}, extra...)
	out, err := gitops.GitEnv(ctx, dir, []string{"GIT_LITERAL_PATHSPECS=1"}, args...)
	if err != nil {
		return nil, gitops.AsNotRepo(dir, fmt.Errorf("listing ignored files: %w", err))
	}
	return gitstore.SplitNul(out), nil
}

// ignoredByTree returns those of paths that the ignore rules of tree would ignore: its
// .gitignore files, with the repository's info/exclude and core.excludesFile. git reads
// .gitignore files only from a work tree, so tree's are written to a scratch directory
// that stands in for it (and for the index, which --no-index leaves out).
func ignoredByTree(ctx context.Context, dir, tree string, paths []string) ([]string, error) {
	if len(paths) == 0 {
		return nil, nil
	}
	gitDir, err := gitops.Git(ctx, dir, "rev-parse", "--absolute-git-dir")
	if err != nil {
		return nil, gitops.AsNotRepo(dir, fmt.Errorf("finding the git directory: %w", err))
	}
	scratch, err := os.MkdirTemp(gitDir, "ralph-index-gitignore-") // named like the scratch indexes, so that the cleanup of a crashed run finds it too
	if err != nil {
		return nil, fmt.Errorf("reading the ignore rules of %s: %w", tree, err)
	}
	defer os.RemoveAll(scratch)
	if err := writeGitignores(ctx, dir, tree, scratch); err != nil {
		return nil, fmt.Errorf("reading the ignore rules of %s: %w", tree, err)
	}
	// check-ignore takes no literal-pathspec magic; a leading ./ keeps a name such as
	// ":(top)x" from being read as magic.
	var stdin strings.Builder
	for _, p := range paths {
		stdin.WriteString("./" + p + "\x00")
	}
	env := []string{"GIT_DIR=" + gitDir, "GIT_WORK_TREE=" + scratch}
	var out strings.Builder
	err = gitops.GitTo(ctx, scratch, env, strings.NewReader(stdin.String()), &out, "check-ignore", "--no-index", "-z", "--stdin")
	var gitErr *gitops.Error
	if err != nil && !(errors.As(err, &gitErr) && gitErr.ExitCode == 1) { // 1: none is ignored
		return nil, fmt.Errorf("applying the ignore rules of %s: %w", tree, err)
	}
	ignored := gitstore.SplitNul(out.String())
	for i, p := range ignored {
		ignored[i] = strings.TrimPrefix(p, "./")
	}
	return ignored, nil
}

// writeGitignores writes every regular .gitignore file of tree under root, at its path.
func writeGitignores(ctx context.Context, dir, tree, root string) error {
	out, err := gitops.Git(ctx, dir, "ls-tree", "-r", "-z", "--full-tree", tree)
	if err != nil {
		return err
	}
	for _, entry := range gitstore.SplitNul(out) {
		meta, path, ok := strings.Cut(entry, "\t")
		fields := strings.Fields(meta)
		if !ok || len(fields) != 3 || fields[1] != "blob" || fields[0] == "120000" ||
			filepath.Base(path) != ".gitignore" || !filepath.IsLocal(path) {
			continue
		}
		body, err := gitops.Git(ctx, dir, "cat-file", "blob", fields[2])
		if err != nil {
			return err
		}
		target := filepath.Join(root, filepath.FromSlash(path))
		if err := os.MkdirAll(filepath.Dir(target), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(target, []byte(body+"\n"), 0o600); err != nil {
			return err
		}
	}
	return nil
}
