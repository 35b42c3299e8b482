package config

// The iteration limit is max_iterations and unlimited together (SPEC: --max > --unlimited >
// mode setting > top level setting > 5). It caps what a loop spends, so the repository's
// settings (a clone's, the repository author's: its file's, a workflow stage's) may set it
// but not lift the one the user chose: see iterationLimit.

// iterationLimit resolves the iteration limit; 0 means none. A flag or variable decides
// (the user's, now). Else the repository's settings set the limit, with two exceptions:
// below a max_iterations of the user's own file (a repository's higher one gives way to it,
// as with the budgets, and is named in a warning), and not as unlimited = true where the user's file keeps a limit (the
// built-in 5 included): that line is refused, since honouring it would lift every limit
// and ignoring it would leave the author's line silently dead. The refusal comes with the
// user's limit: the commands that start a loop return it, the others (a pre-push hook,
// trust, merge, config) go on with the user's limit.
func iterationLimit(s *sources) (Value[int], *Error) {
	yoursMax := get[int](s.yours(), "max_iterations")
	repoMax := get[int](s.theirs(), "max_iterations")
	if v, ok := walkLimit(s.now(), lowerLimit(yoursMax, repoMax)); ok {
		return v, nil
	}
	yours, ok := walkLimit(s.yours()[1:], yoursMax)
	if !ok {
		yours = yoursMax
	}
	theirs, ok := walkLimit(s.theirs(), yoursMax)
	if !ok {
		return yours, nil
	}
	if theirs.V == 0 && yours.V != 0 {
		return yours, liftedLimit(theirs.Origin, yours, s.user.display)
	}
	v := lowerLimit(yours, theirs)
	if v != theirs && theirs.Origin.Kind == FromRepo {
		refuse(s, "max_iterations", theirs, v)
	}
	return v, nil
}

// walkLimit applies the rule within tiers ts, highest first: the highest tier that sets
// max_iterations or unlimited decides, and max_iterations wins within a tier. unlimited =
// true means no limit; unlimited = false brings a limit back: the max_iterations of the
// highest lower tier of ts that sets one, else restored (the limit of the tiers below ts),
// credited to the unlimited = false when it is the built-in default. ok is false when no
// tier of ts sets either key.
func walkLimit(ts tiers, restored Value[int]) (v Value[int], ok bool) {
	for i := len(ts) - 1; i >= 0; i-- {
		if s, ok := ts[i]["max_iterations"]; ok {
			n, _ := s.v.(int)
			return Value[int]{V: n, Origin: s.origin}, true
		}
		s, ok := ts[i]["unlimited"]
		if !ok {
			continue
		}
		if s.v == true {
			return Value[int]{V: 0, Origin: s.origin}, true
		}
		limit := restored
		if ts[:i].lookup("max_iterations").v != nil {
			limit = get[int](ts[:i], "max_iterations")
		}
		if limit.Origin.Kind == FromDefault {
			limit.Origin = s.origin
		}
		return limit, true
	}
	return Value[int]{}, false
}

// lowerLimit is the repository's limit theirs, unless the user's own file set a lower one
// (yours): the built-in default gives way to a repository that sets its loops' length,
// the user's own choice does not.
func lowerLimit(yours, theirs Value[int]) Value[int] {
	if theirs.Origin.Kind != FromRepo {
		return yours
	}
	if yours.Origin.Kind == FromUser && yours.V != 0 && (theirs.V == 0 || theirs.V > yours.V) {
		return yours
	}
	return theirs
}

// liftedLimit is the error of a repository's unlimited = true at o over the user's limit.
func liftedLimit(o Origin, yours Value[int], userFile string) *Error {
	where := "your own config file"
	if userFile != "" {
		where += ", " + userFile
	}
	field := "unlimited"
	if o.Mode != "" {
		field = "modes." + o.Mode + "." + field
	}
	return newProblem("pass --unlimited (or --max N) for this run, or set unlimited = true in "+where+
		"; a repository's file may set max_iterations",
		"a repository's config may not lift your iteration limit of %d (%s)", yours.V, yours.Origin).at(o, field)
}
