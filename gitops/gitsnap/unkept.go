package gitsnap

import (
	"context"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
)

// Unkept lists what the work tree at dir holds that no commit keeps: changed, staged
// and untracked files (`git status`, every untracked file), then ignored files and
// directories (git lists a wholly ignored directory as one entry, such as node_modules/).
// Removing the work tree would lose them. Paths ours reports true for are left out:
// the caller's own files.
func Unkept(ctx context.Context, dir string, ours func(path string) bool) ([]string, error) {
	out, err := gitops.Git(ctx, dir, "status", "--porcelain=v1", "-z", "--untracked-files=all", "--ignore-submodules=none")
	if err != nil {
		return nil, gitops.AsNotRepo(dir, fmt.Errorf("reading the work tree's status: %w", err))
	}
	var list []string
	fields := strings.Split(out, "\x00")
	for i := 0; i < len(fields); i++ {
		if len(fields[i]) < 4 {
			continue
		}
		if c := fields[i][0]; c == 'R' || c == 'C' {
			i++ // the source path of a rename or copy follows
		}
		list = append(list, fields[i][3:])
	}
	ignored, err := ignoredFiles(ctx, dir, "--directory", "--no-empty-directory")
	if err != nil {
		return nil, err
	}
	list = append(list, ignored...)
	kept := list[:0]
	for _, p := range list {
		if !ours(p) {
			kept = append(kept, p)
		}
	}
	return kept, nil
}
