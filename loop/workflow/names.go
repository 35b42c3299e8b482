package workflow

import (
	"os"
	"path/filepath"
	"strings"
)

// maxLoopName is the longest worktree loop name git-ralph takes (loop/fleet's limit).
const maxLoopName = 64

// checkLoopName refuses a worktree stage whose loop name would be too long to be one.
func (w *Workflow) checkLoopName(s *Stage) error {
	if name := LoopName(w.Name, s.Name); s.Worktree && len(name) > maxLoopName {
		return w.errAt("stages."+s.Name+".worktree", "the stage's worktree loop %s would be %d characters long, more than %d",
			"give the workflow or the stage a shorter name", name, len(name), maxLoopName)
	}
	return nil
}

// CheckLoopNames refuses a workflow whose worktree stage has the loop name of another
// workflow's worktree stage (wf-a-b-c is stage c of a-b and stage b-c of a): the two
// would share one worktree and branch. Workflow files that do not load are left to
// their own runs.
func CheckLoopNames(root string, w *Workflow) error {
	entries, err := os.ReadDir(filepath.Join(root, filepath.FromSlash(Dir)))
	if err != nil {
		return nil // no directory to share it with; Load read w from elsewhere
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".toml")
		if !ok || name == w.Name || CheckName("workflow", name) != nil {
			continue
		}
		other, err := Load(root, name)
		if err != nil {
			continue
		}
		if err := w.sharedLoop(other); err != nil {
			return err
		}
	}
	return nil
}

func (w *Workflow) sharedLoop(other *Workflow) error {
	for _, s := range w.Stages {
		for _, o := range other.Stages {
			if s.Worktree && o.Worktree && LoopName(w.Name, s.Name) == LoopName(other.Name, o.Name) {
				return w.errAt("stages."+s.Name+".worktree", "%s would be the worktree loop of this stage and of the stage %s of %s",
					"rename the stage (or the workflow) so that each worktree stage has a loop of its own",
					LoopName(w.Name, s.Name), o.Name, other.File)
			}
		}
	}
	return nil
}
