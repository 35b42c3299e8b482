package main

import (
	"fmt"
	"slices"
	"strings"
)

// check returns one message per import against the table, and per cycle.
func check(edges []edge) []string {
	var problems []string
	for _, e := range edges {
		row, ok := rowFor(e.from)
		if !ok {
			problems = append(problems, fmt.Sprintf("error: package %s has no row in the layering table\n"+
				"hint: add it to .ci/layers/rules.go and to the package map in docs/design/architecture.md", e.from))
			continue
		}
		if !mayImport(row, e.to) {
			problems = append(problems, fmt.Sprintf("error: %s imports %s, against the layering (imports only go down)\n"+
				"hint: %s may import: %s (see .ci/layers/rules.go and docs/design/architecture.md); move the shared code down instead",
				e.from, e.to, e.from, orNothing(row)))
		}
	}
	if cycle := findCycle(edges); cycle != nil {
		problems = append(problems, "error: import cycle: "+strings.Join(cycle, " → "))
	}
	return slices.Compact(problems)
}

// rowFor finds the table's row for pkg: its own, or else that of its nearest parent
// written "parent/...".
func rowFor(pkg string) (string, bool) {
	for _, r := range allowed {
		if r.pkg == pkg {
			return r.mayImport, true
		}
	}
	for p := pkg; strings.Contains(p, "/"); {
		p = p[:strings.LastIndex(p, "/")]
		for _, r := range allowed {
			if r.pkg == p+"/..." {
				return r.mayImport, true
			}
		}
	}
	return "", false
}

// mayImport reports whether the entries of a row allow an import of pkg.
func mayImport(row, pkg string) bool {
	for _, entry := range strings.Fields(row) {
		if entry == pkg {
			return true
		}
		if parent, ok := strings.CutSuffix(entry, "/..."); ok && strings.HasPrefix(pkg, parent+"/") {
			return true
		}
	}
	return false
}

func orNothing(row string) string {
	if strings.TrimSpace(row) == "" {
		return "no package of the module"
	}
	return strings.Join(strings.Fields(row), ", ")
}

// findCycle returns one cycle among the edges (first package repeated at the end), or nil.
// The go tool refuses cyclic imports between packages; this also catches one that only
// tests would close.
func findCycle(edges []edge) []string {
	next := map[string][]string{}
	for _, e := range edges {
		next[e.from] = append(next[e.from], e.to)
	}
	const (
		unseen = iota
		open
		done
	)
	state := map[string]int{}
	var path []string
	var visit func(string) []string
	visit = func(p string) []string {
		state[p] = open
		path = append(path, p)
		for _, q := range next[p] {
			switch state[q] {
			case open:
				return append(slices.Clone(path[slices.Index(path, q):]), q)
			case unseen:
				if c := visit(q); c != nil {
					return c
				}
			}
		}
		path = path[:len(path)-1]
		state[p] = done
		return nil
	}
	for _, e := range edges {
		if state[e.from] == unseen {
			if c := visit(e.from); c != nil {
				return c
			}
		}
	}
	return nil
}
