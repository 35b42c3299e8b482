package rollback

import (
	"context"
	"fmt"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/loop"
)

// A named checkpoint ('git ralph checkpoint LABEL') is one commit kept alive by the ref
// <prefix>checkpoints/LABEL (loop.NamedCheckpoints): its tree is the work tree when it was
// taken (uncommitted and untracked files included, ignored ones not), its parent the
// commit HEAD was on (none on a branch with no commit yet), and its message names both
// in trailers, as a rollback's backup does. Refs under refs/ralph/ are not pushed by git
// push's defaults.
const trailerDirty = "Ralph-Dirty" // "yes" when the work tree differed from HEAD's commit

// Checkpoint is a named checkpoint, as 'git ralph checkpoints' lists it.
type Checkpoint struct {
	Label   string    `json:"label"`
	Ref     string    `json:"ref"`
	Time    time.Time `json:"time"`
	Commit  string    `json:"commit"` // the commit HEAD was on, "" on a branch with no commit yet
	Branch  string    `json:"branch"` // the branch HEAD was on, "" when detached
	Dirty   bool      `json:"dirty"`  // the work tree held uncommitted or untracked files
	Message string    `json:"message"`
	Tree    string    `json:"tree"` // the work tree's snapshot
}

// Take records HEAD and the work tree at root under label ("" for the UTC time stamp,
// made unique), refusing a label in use unless replace. message describes it; "" takes
// the subject of HEAD's commit.
func Take(ctx context.Context, root, label, message string, replace bool, now time.Time) (Checkpoint, error) {
	prefix, err := loop.NamedCheckpoints(ctx, root)
	if err != nil {
		return Checkpoint{}, err
	}
	if label == "" {
		if label, err = freeLabel(ctx, root, prefix, now); err != nil {
			return Checkpoint{}, err
		}
	} else if err := CheckLabel(label); err != nil {
		return Checkpoint{}, err
	}
	ref := prefix + label
	if !replace {
		if err := refuseTaken(ctx, root, ref, label); err != nil {
			return Checkpoint{}, err
		}
	}
	cp, err := gitsnap.CheckpointNow(ctx, root)
	if err != nil {
		return Checkpoint{}, err
	}
	c := Checkpoint{Label: label, Ref: ref, Time: now.UTC().Truncate(time.Second), Commit: cp.Head, Tree: cp.Tree, Message: message}
	if c.Branch, err = gitops.HeadBranch(ctx, root); err != nil {
		return Checkpoint{}, err
	}
	if c.Dirty, c.Message, err = describeHead(ctx, root, cp, message); err != nil {
		return Checkpoint{}, err
	}
	return c, keep(ctx, root, c, replace)
}

// refuseTaken refuses a label that names a checkpoint already.
func refuseTaken(ctx context.Context, root, ref, label string) error {
	hash, err := gitops.ResolveRef(ctx, root, ref)
	if err != nil || hash == "" {
		return err
	}
	return hints.Wrap(fmt.Errorf("a checkpoint named %s exists already", label),
		"'git ralph checkpoints' lists them; --force replaces it, 'git ralph rollback %s' returns to it", label)
}

// describeHead says whether the work tree differs from HEAD's commit and, when message is
// "", takes the subject of that commit for it.
func describeHead(ctx context.Context, root string, cp gitops.Checkpoint, message string) (dirty bool, msg string, err error) {
	if cp.Head == "" {
		return !isEmptyTree(cp.Tree), message, nil
	}
	commit, err := gitops.ReadCommit(ctx, root, cp.Head)
	if err != nil {
		return false, "", err
	}
	if message == "" {
		message, _, _ = strings.Cut(strings.TrimSpace(commit.Message), "\n")
	}
	return commit.Tree != cp.Tree, message, nil
}

// isEmptyTree reports whether tree is git's empty tree, in SHA-1 or SHA-256.
func isEmptyTree(tree string) bool {
	return tree == "4b825dc642cb6eb9a060e54bf8d69288fbee4904" ||
		tree == "6ef19b41225c5369f1c104d45d8d85efa9b057b53b14b4b9b939dd74decc5321"
}

// keep writes the checkpoint's commit and the ref that keeps it: created, so that a
// checkpoint taken meanwhile under the same label is not overwritten, unless replace.
func keep(ctx context.Context, root string, c Checkpoint, replace bool) error {
	dirty := "no"
	if c.Dirty {
		dirty = "yes"
	}
	msg := fmt.Sprintf("git-ralph checkpoint %s\n\n", c.Label)
	if m := strings.TrimSpace(c.Message); m != "" {
		msg += m + "\n\n"
	}
	msg += fmt.Sprintf("Return with 'git ralph rollback %s'.\n\n%s: %s\n%s: %s\n%s: %s\n",
		c.Label, trailerHead, c.Commit, trailerBranch, c.Branch, trailerDirty, dirty)
	commit, err := gitops.CommitTree(ctx, root, c.Tree, c.Commit, msg)
	if err != nil {
		return fmt.Errorf("writing the checkpoint %s: %w", c.Label, err)
	}
	refs := []gitops.Ref{{Name: c.Ref, Hash: commit}}
	if replace {
		err = gitops.KeepAliveAll(ctx, root, refs)
	} else {
		err = gitops.CreateRefs(ctx, root, refs)
	}
	if err != nil {
		return fmt.Errorf("keeping the checkpoint %s: %w", c.Label, err)
	}
	// The snapshot's new blobs were unreachable until the ref: a gc in between could
	// have pruned them.
	if err := gitops.CheckComplete(ctx, root, commit); err != nil {
		return hints.Wrap(fmt.Errorf("the checkpoint %s is incomplete: %w", c.Label, err),
			"a 'git gc' may have run meanwhile; take it again with 'git ralph checkpoint --force %s'", c.Label)
	}
	return nil
}

// freeLabel is the UTC time stamp, with -2, -3, … when a checkpoint of the same second
// took it.
func freeLabel(ctx context.Context, root, prefix string, now time.Time) (string, error) {
	base := now.UTC().Format("20060102T150405Z")
	for i := 1; i <= 100; i++ {
		label := base
		if i > 1 {
			label += "-" + strconv.Itoa(i)
		}
		hash, err := gitops.ResolveRef(ctx, root, prefix+label)
		if err != nil || hash == "" {
			return label, err
		}
	}
	return "", fmt.Errorf("no free checkpoint name under %s", prefix+base)
}

// List is the named checkpoints of the work tree at root, oldest first. Refs that were
// not written by 'git ralph checkpoint' are left out.
func List(ctx context.Context, root string) ([]Checkpoint, error) {
	prefix, err := loop.NamedCheckpoints(ctx, root)
	if err != nil {
		return nil, err
	}
	refs, err := gitops.RefCommits(ctx, root, prefix)
	if err != nil {
		return nil, err
	}
	var list []Checkpoint
	for _, r := range refs {
		if c, ok := parseCheckpoint(prefix, r); ok {
			list = append(list, c)
		}
	}
	sort.SliceStable(list, func(i, j int) bool { return list[i].Time.Before(list[j].Time) })
	return list, nil
}

// parseCheckpoint reads a checkpoint's commit as keep wrote it.
func parseCheckpoint(prefix string, r gitops.RefCommit) (Checkpoint, bool) {
	label := strings.TrimPrefix(r.Name, prefix)
	if CheckLabel(label) != nil {
		return Checkpoint{}, false
	}
	paragraphs := strings.Split(strings.TrimSpace(r.Message), "\n\n")
	t := readTrailers(paragraphs[len(paragraphs)-1])
	if _, ok := t[trailerHead]; !ok || len(paragraphs) < 3 || paragraphs[0] != "git-ralph checkpoint "+label {
		return Checkpoint{}, false
	}
	c := Checkpoint{Label: label, Ref: r.Name, Time: r.Time, Commit: t[trailerHead], Branch: t[trailerBranch],
		Dirty: t[trailerDirty] == "yes", Tree: r.Tree}
	if len(paragraphs) > 3 {
		c.Message = strings.Join(paragraphs[1:len(paragraphs)-2], "\n\n")
	}
	return c, true
}

// ToCheckpoint is the goal of 'git ralph rollback LABEL': the commit and work tree the
// checkpoint recorded, on the branch it was taken on.
func ToCheckpoint(ctx context.Context, root, label string) (Goal, error) {
	if err := CheckLabel(label); err != nil {
		return Goal{}, hints.Wrap(fmt.Errorf("%q is not an iteration number, 'initial' or a checkpoint's name", display.Printable(label)),
			"e.g. 'git ralph rollback 3'; 'git ralph history' lists the iterations, 'git ralph checkpoints' the checkpoints")
	}
	prefix, err := loop.NamedCheckpoints(ctx, root)
	if err != nil {
		return Goal{}, err
	}
	ref := prefix + label
	hash, err := gitops.ResolveRef(ctx, root, ref+"^{commit}")
	if err != nil {
		return Goal{}, err
	}
	if hash == "" {
		return Goal{}, hints.Wrap(fmt.Errorf("no checkpoint named %s", label),
			"'git ralph checkpoints' lists the checkpoints, 'git ralph history' the iterations")
	}
	commit, err := gitops.ReadCommit(ctx, root, hash)
	if err != nil {
		return Goal{}, err
	}
	t := readTrailers(commit.Message)
	if _, ok := t[trailerBranch]; !ok || t[trailerHead] != commit.Parent {
		return Goal{}, hints.Wrap(fmt.Errorf("%s was not written by 'git ralph checkpoint'", ref),
			"'git show %s' shows what it holds", ref)
	}
	if err := checkBranch(ctx, root, t[trailerBranch], "checkpoint "+label+" was taken on"); err != nil {
		return Goal{}, err
	}
	goal := Goal{checkpoint: gitops.Checkpoint{Head: commit.Parent, Tree: commit.Tree},
		what: "checkpoint " + label, command: "git ralph rollback " + label}
	goal.kept, goal.history = keptByIterations(ctx, root)
	return goal, nil
}
