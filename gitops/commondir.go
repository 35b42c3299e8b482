package gitops

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
)

// TopCommonDir is CommonDir for top, the top of a work tree, read from the files as git
// reads them (a .git directory, or a .git file naming the work tree's git directory,
// whose commondir file names the shared one) without a process; it asks git whenever the
// layout is anything else, or the environment names a git directory.
func TopCommonDir(ctx context.Context, top string) (string, error) {
	if common, ok := commonDirFromFiles(top); ok {
		return common, nil
	}
	return CommonDir(ctx, top)
}

func commonDirFromFiles(top string) (string, bool) {
	if os.Getenv("GIT_DIR") != "" || os.Getenv("GIT_COMMON_DIR") != "" || !filepath.IsAbs(top) {
		return "", false
	}
	gitDir := filepath.Join(top, ".git")
	info, err := os.Lstat(gitDir)
	switch {
	case err != nil:
		return "", false
	case info.Mode().IsRegular():
		data, err := gitstore.ReadSmall(gitDir, gitstore.MaxLineFile)
		line, ok := strings.CutPrefix(strings.TrimRight(string(data), "\r\n"), "gitdir: ")
		if err != nil || !ok || line == "" || strings.ContainsAny(line, "\n\x00") {
			return "", false
		}
		if !filepath.IsAbs(line) {
			line = filepath.Join(top, line)
		}
		gitDir = filepath.Clean(line)
	case !info.IsDir():
		return "", false
	}
	if _, err := os.Stat(filepath.Join(gitDir, "HEAD")); err != nil {
		return "", false // not a git directory git would take
	}
	data, err := gitstore.ReadSmall(filepath.Join(gitDir, "commondir"), gitstore.MaxLineFile)
	if errors.Is(err, os.ErrNotExist) {
		return gitDir, true
	}
	common := strings.TrimRight(string(data), "\r\n")
	if err != nil || common == "" || strings.ContainsAny(common, "\n\x00") {
		return "", false
	}
	if !filepath.IsAbs(common) {
		common = filepath.Join(gitDir, common)
	}
	return filepath.Clean(common), true
}

// CommonDir is the absolute path of the git directory that dir's work tree shares with
// the repository's other work trees ($GIT_COMMON_DIR): the place for files about all of
// them.
func CommonDir(ctx context.Context, dir string) (string, error) {
	out, err := Git(ctx, dir, "rev-parse", "--git-common-dir")
	if err != nil {
		return "", AsNotRepo(dir, fmt.Errorf("finding the common git directory: %w", err))
	}
	if !filepath.IsAbs(out) {
		out = filepath.Join(dir, out)
	}
	return filepath.Clean(out), nil
}
