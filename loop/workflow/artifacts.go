package workflow

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"strings"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// maxMatches bounds the files one artifact pattern may match.
const maxMatches = 1000

// maxProblems bounds the problems listed: they go into the stage's next prompt, through
// one command-line argument.
const maxProblems = 20

// CheckArtifacts checks that the stage left its artifacts in the work tree at root: each
// pattern matches at least one regular file inside the repository, and each file holds
// every required heading on a line of its own. It returns every problem, one a line, or
// "" when all pass.
func CheckArtifacts(root string, s *Stage) string {
	var problems []string
	for _, a := range s.Artifacts {
		problems = append(problems, checkArtifact(root, a)...)
	}
	if len(problems) > maxProblems {
		problems = append(problems[:maxProblems], fmt.Sprintf("and %d more file(s) with problems", len(problems)-maxProblems))
	}
	return strings.Join(problems, "\n")
}

func checkArtifact(root string, a Artifact) []string {
	matches, err := fs.Glob(os.DirFS(root), path.Clean(a.Path)) // no pattern in root's own name
	if err != nil || len(matches) == 0 {
		return []string{fmt.Sprintf("the artifact %s is missing: the stage must leave it", a.Path)}
	}
	if len(matches) > maxMatches {
		return []string{fmt.Sprintf("the artifact %s matches %d files, more than %d", a.Path, len(matches), maxMatches)}
	}
	var problems []string
	for _, m := range matches {
		rel := m
		data, err := repofile.ReadIn(root, rel, rel, repofile.PromptLimit)
		var refused *repofile.RefusedError
		switch {
		case errors.As(err, &refused):
			problems = append(problems, fmt.Sprintf("the artifact %s: %s", rel, refused.Reason))
			continue
		case errors.Is(err, fs.ErrNotExist):
			problems = append(problems, fmt.Sprintf("the artifact %s is missing", rel))
			continue
		case err != nil:
			problems = append(problems, fmt.Sprintf("the artifact %s cannot be read: %v", rel, err))
			continue
		}
		if missing := missingHeadings(string(data), a.Headings); len(missing) > 0 {
			problems = append(problems, fmt.Sprintf("the artifact %s lacks the required heading(s): %s", rel, strings.Join(missing, ", ")))
		}
	}
	return problems
}

// missingHeadings are those of want that no line of text is, spaces at the ends aside.
func missingHeadings(text string, want []string) []string {
	have := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		have[strings.TrimSpace(line)] = true
	}
	var missing []string
	for _, h := range want {
		if !have[strings.TrimSpace(h)] {
			missing = append(missing, h)
		}
	}
	return missing
}
