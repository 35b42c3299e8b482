package doctor

import (
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history"
)

// workMargin is the room asked for beyond what the history may still grow by: the
// agent's own files, git's objects and the checkpoints of a night's iterations.
const workMargin = 256 << 20

// unboundedNeed is the room asked for when history_max_size is "none".
const unboundedNeed = 1 << 30

// disk compares the free space of the work tree's file system with what the history
// may still take under its retention settings, plus a margin for the work itself.
func disk(in Input) Result {
	free, err := freeBytes(in.Root)
	if err != nil {
		return warn("disk", "unknown: "+display.Printable(err.Error()), "check the free space with 'df'")
	}
	return diskResult(free, historySize(in.Root), in.Retention)
}

// diskResult judges free bytes against retention, the history taking used bytes now.
func diskResult(free, used uint64, r history.Retention) Result {
	const name = "disk"
	if r.MaxBytes <= 0 {
		if free < unboundedNeed {
			return fail(name, fmt.Sprintf("%s free, and history_max_size is none: the history may grow without bound", display.Size(int64(free))),
				"free some space, or set history_max_size (e.g. 500MiB) in .ralph/config.toml")
		}
		return warn(name, fmt.Sprintf("%s free; history_max_size is none: the history grows without bound", display.Size(int64(free))),
			"set history_max_size (e.g. 500MiB) to bound it")
	}
	var grow uint64
	if uint64(r.MaxBytes) > used {
		grow = uint64(r.MaxBytes) - used
	}
	need := grow + workMargin
	if free < need {
		return fail(name, fmt.Sprintf("%s free; the history may grow by %s more (history_max_size %s) and the work needs %s beside it",
			display.Size(int64(free)), display.Size(int64(grow)), display.Size(r.MaxBytes), display.Size(workMargin)),
			"free some space, or lower history_max_size / history_keep in .ralph/config.toml")
	}
	return ok(name, fmt.Sprintf("%s free; the history takes %s of history_max_size %s", display.Size(int64(free)), display.Size(int64(used)), display.Size(r.MaxBytes)))
}

// historySize is what the iterations' saved files take now; 0 when there is no history.
func historySize(root string) uint64 {
	var total uint64
	_ = filepath.WalkDir(filepath.Join(root, ".ralph", "history"), func(_ string, d fs.DirEntry, err error) error {
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				return nil
			}
			return fs.SkipDir
		}
		if d.Type().IsRegular() {
			if info, err := d.Info(); err == nil {
				total += uint64(info.Size())
			}
		}
		return nil
	})
	return total
}
