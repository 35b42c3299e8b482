package config

import (
	"slices"

	"github.com/git-ralph/git-ralph/pathglob"
)

// Protected paths (protect) are the exception to both rules of the sources: no source
// replaces another's list, each adds to it. The user's file, RALPH_PROTECT and every
// --protect add patterns; so does the repository's config, which can protect more of its
// files but never leave one of yours unprotected. A protected path is one the agents
// must not change (the tests they are judged by), so a clone's settings may only add.

// protected is the union of every source's protect list, in the order of the sources
// (the user's file first), each pattern once; its origin is that of the highest source
// that gave one.
func protected(s *sources) Value[[]string] {
	var u Value[[]string]
	for _, t := range s.all() {
		set, ok := t["protect"]
		if !ok {
			continue
		}
		for _, p := range set.v.([]string) {
			if !slices.Contains(u.V, p) {
				u.V = append(u.V, p)
			}
		}
		u.Origin = set.origin
	}
	return u
}

// checkProtect refuses a pattern pathglob cannot use, naming it.
func checkProtect(v any) *problem {
	for i, p := range v.([]string) {
		if err := pathglob.Check(p); err != nil {
			return newProblem(`write paths from the repository's root with '/', '*' within a segment and '**' for any depth, like "tests/acceptance/**"`,
				"element %d (%q): %v", i+1, p, err)
		}
	}
	return nil
}
