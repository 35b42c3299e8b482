package main

import (
	"fmt"
	"slices"
	"strings"
)

// The package map of docs/design/architecture.md is kept true mechanically: its last column
// ("may import (of this module)") is written from the table in rules.go, and the check fails
// when a row's column differs, when a row names no package of the table, or when a package of
// the module has no row. `go run ./.ci/layers -write-doc` rewrites the column.

// archPage is the page, relative to the module's root.
const archPage = "docs/design/architecture.md"

// mapHeading starts the section whose table is checked.
const mapHeading = "## The package map"

// A docRow is one row of the page's package map.
type docRow struct {
	line         int    // 1-based, in the page
	pkg          string // as rules.go writes it: "loop", "bench/..."
	head, column string // the line up to the last cell, and the last cell
}

// parseMap finds the rows of the package map: the table lines of its section whose first cell
// is a package in backticks.
func parseMap(page string) ([]docRow, error) {
	lines := strings.Split(page, "\n")
	var rows []docRow
	in := false
	for i, l := range lines {
		if strings.HasPrefix(l, "## ") {
			in = l == mapHeading
			continue
		}
		if !in || !strings.HasPrefix(l, "| `") {
			continue
		}
		name, _, ok := strings.Cut(strings.TrimPrefix(l, "| `"), "`")
		last := strings.LastIndex(strings.TrimSuffix(l, " |"), " | ")
		// a row whose last cell is empty ("| job | |") would give its job as the column
		job := ""
		if ok && last >= 0 {
			job = strings.TrimSpace(strings.TrimPrefix(strings.TrimPrefix(l[:last], "| `"+name+"`"), " |"))
		}
		if !ok || !strings.HasSuffix(l, " |") || last < 0 || job == "" {
			return nil, fmt.Errorf("%s:%d: a row of the package map is not `| `package` | job | may import |`", archPage, i+1)
		}
		rows = append(rows, docRow{
			line:   i + 1,
			pkg:    strings.ReplaceAll(name, "…", "..."),
			head:   l[:last+3],
			column: strings.TrimSuffix(l[last+3:], " |"),
		})
	}
	if len(rows) == 0 {
		return nil, fmt.Errorf("%s: no table of packages under %q", archPage, mapHeading)
	}
	return rows, nil
}

// wantColumns gives each row's last column as rules.go makes it: the packages in backticks,
// lazyregexp left out (the page's introduction says why), "nothing" for none, and, for a list of
// three or more, "same" for the set of the row above and "same as `x`" for that of an earlier
// row x.
func wantColumns(rows []docRow) ([]string, []string) {
	want := make([]string, len(rows))
	var problems []string
	cols := make([]string, 0, len(rows)) // each row's set rendered, "-" for none
	for i, r := range rows {
		set, ok := rowFor(r.pkg)
		if !ok {
			problems = append(problems, fmt.Sprintf("error: %s:%d: package %s has a row in the package map but none in the layering table\n"+
				"hint: add it to .ci/layers/rules.go, or remove the row", archPage, r.line, r.pkg))
			cols = append(cols, "-")
			continue
		}
		col := render(set)
		want[i] = col
		if strings.Count(col, ",") >= 2 { // a short list is as quick to read as a reference
			if len(cols) > 0 && cols[len(cols)-1] == col {
				want[i] = "same"
			} else if j := slices.Index(cols, col); j >= 0 {
				want[i] = "same as `" + strings.ReplaceAll(rows[j].pkg, "...", "…") + "`"
			}
		}
		cols = append(cols, col)
	}
	return want, problems
}

// render writes a row of rules.go as the page's column.
func render(set string) string {
	var names []string
	for _, p := range strings.Fields(set) {
		if p == "lazyregexp" {
			continue
		}
		names = append(names, "`"+strings.ReplaceAll(p, "...", "…")+"`")
	}
	if len(names) == 0 {
		return "nothing"
	}
	return strings.Join(names, ", ")
}

// columnMatches accepts the column as written from rules.go, or that followed by a note in
// parentheses that the rewrite keeps.
func columnMatches(column, want string) bool {
	return column == want || strings.HasPrefix(column, want+" (") && strings.HasSuffix(column, ")")
}

// note is what follows the written part of a column: a note in parentheses, or nothing.
func note(column string) string {
	if i := strings.LastIndex(column, " ("); i >= 0 && strings.HasSuffix(column, ")") && !strings.Contains(column[:i], "(") {
		return column[i:]
	}
	return ""
}

// checkDoc returns one message per row of the package map whose last column is not what
// rules.go says, per row with no row in rules.go, per second row of a package, and per package of pkgs without a row
// (its own, or a "parent/…" one).
func checkDoc(page string, pkgs []string) []string {
	rows, err := parseMap(page)
	if err != nil {
		return []string{"error: " + err.Error()}
	}
	want, problems := wantColumns(rows)
	seen := map[string]int{}
	for i, r := range rows {
		if first, ok := seen[r.pkg]; ok {
			problems = append(problems, fmt.Sprintf("error: %s:%d: package %s has a second row in the package map (the first at line %d)\n"+
				"hint: say all of its job in one row", archPage, r.line, r.pkg, first))
		}
		seen[r.pkg] = r.line
		if want[i] != "" && !columnMatches(r.column, want[i]) {
			problems = append(problems, fmt.Sprintf("error: %s:%d: the package map says %s may import %q; .ci/layers/rules.go says %q\n"+
				"hint: run `go run ./.ci/layers -write-doc` to write the column from rules.go", archPage, r.line, r.pkg, r.column, want[i]))
		}
	}
	for _, p := range pkgs {
		if !hasDocRow(rows, p) {
			problems = append(problems, fmt.Sprintf("error: package %s has no row in the package map of %s\n"+
				"hint: add a row saying its one job (and one in .ci/layers/rules.go if it has none)", p, archPage))
		}
	}
	return problems
}

// hasDocRow reports whether pkg has a row of its own or one of a parent's "parent/…".
func hasDocRow(rows []docRow, pkg string) bool {
	for _, r := range rows {
		if parent, ok := strings.CutSuffix(r.pkg, "/..."); r.pkg == pkg || ok && strings.HasPrefix(pkg, parent+"/") {
			return true
		}
	}
	return false
}

// writeDoc returns the page with each row's last column written from rules.go, its note kept.
func writeDoc(page string) (string, error) {
	rows, err := parseMap(page)
	if err != nil {
		return "", err
	}
	want, problems := wantColumns(rows)
	if len(problems) > 0 {
		return "", fmt.Errorf("%s", strings.Join(problems, "\n"))
	}
	lines := strings.Split(page, "\n")
	for i, r := range rows {
		lines[r.line-1] = r.head + want[i] + note(r.column) + " |"
	}
	return strings.Join(lines, "\n"), nil
}
