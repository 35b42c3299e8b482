package launch

import (
	"io"
	"os"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
)

// Streams are where a loop's lines go: progress, warnings and errors on Stderr; the JSON
// stream, the dry run and --verbose's output on Stdout.
type Streams struct {
	Stdout io.Writer
	Stderr io.Writer
}

// Signals are what the command's signal handling gives a loop: Hurry is closed by a
// second Ctrl+C (kill the agent at once), Finish by 'git ralph cancel' (stop after this
// iteration); Observe, when set, has a function told of every signal that stops the loop.
type Signals struct {
	Hurry   <-chan struct{}
	Finish  <-chan struct{}
	Observe func(func(os.Signal))
}

// Trust is the user's approval of the commands a repository's config would run, as the
// command package asks for it (on a terminal) and keeps it.
type Trust interface {
	// Require refuses to go on unless the commands of resolved are approved for the work
	// tree root, or for one of alsoAt (the main work tree, for a loop's worktree); on a
	// terminal it asks first.
	Require(root string, resolved *config.Config, alsoAt ...string) error
	// Trusted reports whether cmds are approved for root or one of alsoAt; its error
	// carries the hint that fits.
	Trusted(cmds map[string]string, root string, alsoAt ...string) (bool, error)
}
