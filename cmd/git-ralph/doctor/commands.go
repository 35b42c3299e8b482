package doctor

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
)

// trusted checks that the user approved the commands the repository's config would
// run: unattended, nobody is there to answer the question, and the run refuses them.
func trusted(in Input) Result {
	const name = "trust"
	if len(in.RepoCommands) == 0 {
		return ok(name, "the repository's config sets no commands")
	}
	keys := strings.Join(slices.Sorted(maps.Keys(in.RepoCommands)), ", ")
	for _, dir := range append([]string{in.Root}, in.TrustedAt...) {
		yes, err := in.Trust.Trusted(dir, in.RepoCommands)
		if err != nil {
			return fail(name, "the approvals cannot be read: "+display.Printable(err.Error()), "'git ralph trust' says more")
		}
		if yes {
			return ok(name, "the repository's commands are approved ("+keys+")")
		}
	}
	return fail(name, "the repository's config sets commands you have not approved ("+keys+"): an unattended run refuses to start",
		"read them in .ralph/config.toml, then run 'git ralph trust'")
}

// commandChecks: the programs of the validate and until commands can be found. A
// validate command that cannot start fails every iteration.
func commandChecks(in Input) []Result {
	return []Result{runnable("validate", in.Root, in.Validate), runnable("until", in.Root, in.Until)}
}

func runnable(key, root, command string) Result {
	if command == "" {
		return ok(key, "no "+key+" command is set")
	}
	r := agentcheck.Command(root, command)
	switch {
	case !r.OK:
		return fail(key, fmt.Sprintf("the %s command's program is not found: %s", key, display.Printable(r.Program)),
			fmt.Sprintf("install it, or fix %s in .ralph/config.toml (or the flag); 'git ralph config' shows where it is set", key))
	case r.Note != "":
		return ok(key, fmt.Sprintf("%s: %s", display.Printable(r.Program), r.Note))
	}
	return ok(key, fmt.Sprintf("%s found at %s", display.Printable(r.Program), display.Printable(r.Path)))
}
