package main

import (
	"os"
	"strings"
	"testing"
)

func readPage(t *testing.T) string {
	t.Helper()
	text, err := os.ReadFile("../../" + archPage)
	if err != nil {
		t.Fatal(err)
	}
	return string(text)
}

// The page's package map says what rules.go says; `go run ./.ci/layers` also checks that
// every package of the module has a row.
func TestArchitecturePageIsCurrent(t *testing.T) {
	if problems := checkDoc(readPage(t), nil); len(problems) > 0 {
		t.Errorf("%s is stale:\n%s", archPage, strings.Join(problems, "\n"))
	}
}

// replaceRow swaps one row's last column, failing when the page has no such row.
func replaceRow(t *testing.T, page, pkg, column string) string {
	t.Helper()
	rows, err := parseMap(page)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(page, "\n")
	for _, r := range rows {
		if r.pkg == pkg {
			lines[r.line-1] = r.head + column + " |"
			return strings.Join(lines, "\n")
		}
	}
	t.Fatalf("no row for %s in %s", pkg, archPage)
	return ""
}

func TestCheckDocRejects(t *testing.T) {
	page := readPage(t)
	tests := []struct {
		name       string
		page       string
		pkgs       []string
		want       string
		reversible bool // -write-doc gives back the page
	}{
		{"a package the page lets import more than rules.go", replaceRow(t, page, "idle", "`gitops`, `history`"), nil,
			"the package map says idle may import \"`gitops`, `history`\"; .ci/layers/rules.go says \"`gitops`\"", false},
		{"a leaf said to import something", replaceRow(t, page, "units", "`gitops`"), nil,
			"the package map says units may import", true},
		{"a shorthand rules.go does not give", replaceRow(t, page, "loop/...", "`loop` and below"), nil,
			"the package map says loop/... may import \"`loop` and below\"", true},
		{"a \"same\" where the row above differs", replaceRow(t, page, "cmd/git-ralph/reporting", "same"), nil,
			"the package map says cmd/git-ralph/reporting may import \"same\"", true},
		{"a note that is not one", replaceRow(t, page, "history", "`history/redact`, `prompts/repofile`, `gitops`"), nil,
			"the package map says history may import", false},
		{"a row of a package rules.go does not know",
			strings.Replace(page, "| `units` |", "| `util` | helpers | nothing |\n| `units` |", 1), nil,
			"package util has a row in the package map but none in the layering table", false},
		{"a package with two rows",
			strings.Replace(page, "| `units` |", "| `fielderr` | more | nothing |\n| `units` |", 1), nil,
			"package fielderr has a second row in the package map", false},
		{"a row whose last cell is empty",
			strings.Replace(page, "| `units` |", "| `fielderr/sub` | helpers | |\n| `units` |", 1), nil,
			"a row of the package map is not `| `package` | job | may import |`", false},
		{"a package without a row", page, []string{"gitops", "loop/agentcli/resettime", "newpkg/sub"},
			"package newpkg/sub has no row in the package map", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			problems := checkDoc(tt.page, tt.pkgs)
			if len(problems) != 1 || !strings.Contains(problems[0], tt.want) {
				t.Fatalf("checkDoc = %q, want one problem with %q", problems, tt.want)
			}
			if !tt.reversible {
				return
			}
			if got, err := writeDoc(tt.page); err != nil || got != page {
				t.Errorf("writeDoc did not give back the page (err %v)", err)
			}
		})
	}
}

func TestRender(t *testing.T) {
	tests := []struct{ set, want string }{
		{"", "nothing"},
		{"lazyregexp", "nothing"},
		{"gitops lazyregexp", "`gitops`"},
		{"cmd/git-ralph/... loop", "`cmd/git-ralph/…`, `loop`"},
	}
	for _, tt := range tests {
		if got := render(tt.set); got != tt.want {
			t.Errorf("render(%q) = %q, want %q", tt.set, got, tt.want)
		}
	}
}

func TestWriteDocKeepsNotes(t *testing.T) {
	page := readPage(t)
	broken := replaceRow(t, page, "idle", "`history` (its `Checkpoint` type only: idle never runs git)")
	got, err := writeDoc(broken)
	if err != nil {
		t.Fatal(err)
	}
	if got != page {
		t.Errorf("writeDoc lost the note or the column of idle")
	}
}
