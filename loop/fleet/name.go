package fleet

import (
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// MainName is the name of the loop in the main work tree, for `runs` and `--loop`: it
// stays the same whichever branch is checked out there, so no worktree loop may take it.
const MainName = "main"

// BranchPrefix starts the branch of every worktree loop: ralph/NAME.
const BranchPrefix = "refs/heads/ralph/"

// maxName bounds a loop's name: it becomes a directory and a branch name.
const maxName = 64

// validName is a name that is one component of a path and of a ref on every system: ASCII
// letters, digits, '_' and '-', with single dots inside.
var validName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]*(\.[A-Za-z0-9_-]+)*$`)

// CheckName refuses a name that could not be a directory and a branch name as it is, or
// that could mean something else: "..", a slash, a leading dash, ".lock".
func CheckName(name string) error {
	switch {
	case name == "":
		return &Error{Err: fmt.Errorf("the loop's name is empty"), Advice: nameAdvice}
	case len(name) > maxName:
		return &Error{Err: fmt.Errorf("the loop's name is %d characters long, more than %d", len(name), maxName), Advice: nameAdvice}
	case !validName.MatchString(name) || strings.HasSuffix(name, ".lock"):
		return &Error{Err: fmt.Errorf("%q cannot name a loop: it must be one directory and branch name", name), Advice: nameAdvice}
	case name == MainName:
		return &Error{Err: fmt.Errorf("%q is the name of the loop in the main work tree", name), Advice: "pick another name for a loop in a worktree"}
	}
	return nil
}

const nameAdvice = "use letters, digits, '-', '_' and single dots inside, e.g. --worktree fix-login"

// Error is an error of this package with advice on what to do, which the command prints
// as a hint.
type Error struct {
	Err    error
	Advice string
}

func (e *Error) Error() string { return e.Err.Error() }
func (e *Error) Unwrap() error { return e.Err }

// Hint is the advice.
func (e *Error) Hint() string { return e.Advice }
