package rollback

import (
	"errors"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

// maxLabel bounds a checkpoint's label: it is one ref component and a column of a table.
const maxLabel = 64

// CheckLabel refuses a label that cannot name a checkpoint: it must be one ref component
// of letters, digits, '.', '_' and '-' (a subset of what git allows, so that it needs no
// quoting in a shell or a terminal), not start with '.' or '-', hold no "..", not end in
// '.' or ".lock", and be neither a number nor "initial", which 'git ralph rollback' reads
// as iterations: 'rollback TARGET' is then never ambiguous.
func CheckLabel(label string) error {
	bad := func(why string) error {
		return hints.Wrap(fmt.Errorf("%q cannot name a checkpoint: %s", display.Printable(label), why),
			"use letters, digits, '.', '_' and '-', e.g. 'git ralph checkpoint before-refactor'")
	}
	switch {
	case label == "":
		return bad("it is empty")
	case len(label) > maxLabel:
		return bad(fmt.Sprintf("it is longer than %d characters", maxLabel))
	case strings.TrimLeft(label, "0123456789") == "":
		return hints.Wrap(fmt.Errorf("%q cannot name a checkpoint: numbers name iterations", label),
			"'git ralph rollback %s' goes back to before iteration %s; give the checkpoint a name with a letter in it", label, label)
	case label == "initial":
		return hints.Wrap(errors.New(`"initial" cannot name a checkpoint: it names the start of the last run`),
			"'git ralph rollback initial' goes back there; choose another name")
	}
	for _, r := range label {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '.' || r == '_' || r == '-') {
			return bad(fmt.Sprintf("it holds %q", r))
		}
	}
	switch {
	case label[0] == '.' || label[0] == '-':
		return bad(fmt.Sprintf("it starts with %q", label[0]))
	case strings.Contains(label, ".."):
		return bad(`it holds ".."`)
	case strings.HasSuffix(label, ".") || strings.HasSuffix(label, ".lock"):
		return bad(`it ends in "." or ".lock"`)
	}
	return nil
}

// isIteration reports whether a rollback target names an iteration (a number or
// "initial") rather than a checkpoint: CheckLabel refuses both as labels.
func isIteration(target string) bool {
	return target == "initial" || target != "" && strings.TrimLeft(strings.TrimPrefix(strings.TrimPrefix(target, "-"), "+"), "0123456789") == ""
}
