package gitops

import (
	"context"
	"fmt"
	"strings"
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
	out, err := gitEnv(ctx, dir, []string{"GIT_LITERAL_PATHSPECS=1"}, args...)
	if err != nil {
		return nil, asNotRepo(dir, fmt.Errorf("listing ignored files: %w", err))
	}
	return splitNul(out), nil
}
