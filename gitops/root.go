package gitops

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// rootFromFiles finds the top of the work tree that contains dir as git discovers it —
// up from the real path of dir to the first directory with a .git, never into one of
// GIT_CEILING_DIRECTORIES — without a process. It reports false, for git to answer,
// whenever git could answer otherwise or refuse: an environment that names the git
// directory or work tree, dir inside a git directory, a .git that is a symlink or names
// no git directory, a ceiling or a file system boundary reached, files another user
// owns (git's safe.directory check), or a configuration that is not plain (see
// PlainConfig: it may name another work tree, make the repository bare, or be refused).
func rootFromFiles(dir string) (string, bool) {
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR", "GIT_OBJECT_DIRECTORY",
		"GIT_DISCOVERY_ACROSS_FILESYSTEM", "SUDO_UID"} {
		if _, set := os.LookupEnv(name); set {
			return "", false // even empty: git refuses GIT_DIR=""
		}
	}
	if !filepath.IsAbs(dir) {
		return "", false
	}
	d, err := filepath.EvalSymlinks(dir)
	if err != nil {
		return "", false
	}
	ceilings := ceilingDirs()
	for {
		info, err := os.Lstat(filepath.Join(d, ".git"))
		switch {
		case err == nil:
			return topAt(d, info)
		case !errors.Is(err, fs.ErrNotExist) || isGitDirectory(d):
			return "", false
		}
		up := filepath.Dir(d)
		if up == d || ceilings[up] || !sameDevice(d, up) {
			return "", false // no repository, or a ceiling or mount point: git says which
		}
		d = up
	}
}

// ceilingDirs are the directories of GIT_CEILING_DIRECTORIES as git reads them: absolute
// paths only, each resolved through symlinks unless it comes after an empty entry.
func ceilingDirs() map[string]bool {
	dirs := map[string]bool{}
	resolve := true
	for _, entry := range filepath.SplitList(os.Getenv("GIT_CEILING_DIRECTORIES")) {
		switch {
		case entry == "":
			resolve = false
		case !filepath.IsAbs(entry):
		case !resolve:
			dirs[filepath.Clean(entry)] = true
		default:
			if real, err := filepath.EvalSymlinks(entry); err == nil {
				dirs[real] = true
			}
		}
	}
	return dirs
}

// topAt checks the .git found in top (info is its Lstat): a directory, or a file naming
// the git directory, that git would take as they are.
func topAt(top string, info fs.FileInfo) (string, bool) {
	if !info.IsDir() && !info.Mode().IsRegular() {
		return "", false
	}
	common, ok := commonDirFromFiles(top)
	if !ok || !validCommonDir(common) || !ownedByUs(top, filepath.Join(top, ".git"), common) {
		return "", false
	}
	gitDir := filepath.Join(top, ".git")
	if info.Mode().IsRegular() {
		gitDir = gitDirOfFile(top)
	}
	if !ownedByUs(gitDir) || !validHead(gitDir) || !gitstore.PlainConfig(common) {
		return "", false
	}
	return top, true
}

// gitDirOfFile is the git directory a .git file in top names ("" when unreadable, which
// commonDirFromFiles has refused already).
func gitDirOfFile(top string) string {
	data, err := gitstore.ReadSmall(filepath.Join(top, ".git"), gitstore.MaxLineFile)
	if err != nil {
		return ""
	}
	line := strings.TrimPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
	if !filepath.IsAbs(line) {
		line = filepath.Join(top, line)
	}
	return line
}

// validCommonDir reports whether common has what git wants of a git directory: objects,
// refs and a HEAD. A .git without them git passes over, looking further up.
func validCommonDir(common string) bool {
	for _, sub := range []string{"objects", "refs"} {
		if info, err := os.Stat(filepath.Join(common, sub)); err != nil || !info.IsDir() {
			return false
		}
	}
	return validHead(common)
}

// validHead reports whether gitDir's HEAD names a branch or a commit, as git wants of
// every git directory it takes (a linked work tree's own one too).
func validHead(gitDir string) bool {
	head, err := gitstore.ReadSmall(filepath.Join(gitDir, "HEAD"), gitstore.MaxLineFile)
	text := strings.TrimRight(string(head), "\r\n")
	ref, isRef := strings.CutPrefix(text, "ref: ")
	return err == nil && (isRef && strings.HasPrefix(ref, "refs/") || gitstore.IsHash(text))
}

// isGitDirectory reports whether d looks like a git directory itself (a bare repository,
// or the inside of a .git), where git finds no work tree.
func isGitDirectory(d string) bool {
	_, err := os.Stat(filepath.Join(d, "HEAD"))
	if err != nil {
		return false
	}
	_, objects := os.Stat(filepath.Join(d, "objects"))
	_, commondir := os.Stat(filepath.Join(d, "commondir"))
	return objects == nil || commondir == nil
}

// QuickRoot finds the top of the work tree containing dir by looking for a .git entry
// (a directory, or the file of a linked worktree or submodule) in dir and its parents,
// without starting git: the pre-push hook has to be fast when it has nothing to do.
// It reports false when git might answer differently (GIT_DIR or GIT_WORK_TREE in the
// environment) or when no .git is found; callers then ask git with Root.
func QuickRoot(dir string) (string, bool) {
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE", "GIT_COMMON_DIR"} {
		if os.Getenv(name) != "" {
			return "", false
		}
	}
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	for {
		if _, err := os.Lstat(filepath.Join(dir, ".git")); err == nil {
			return dir, true
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", false
		}
		dir = parent
	}
}
