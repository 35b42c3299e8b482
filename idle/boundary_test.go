package idle

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// idle must not run git: from gitops it takes the Checkpoint values its callers hand it,
// never a function that would run git. (The import check in .ci/layers allows the import;
// this test keeps it to that one type.)
func TestUsesGitopsForCheckpointsOnly(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		for _, used := range gitopsNames(t, name) {
			if used != "Checkpoint" {
				t.Errorf("%s uses gitops.%s: idle gets checkpoints from its callers and never runs git", name, used)
			}
		}
	}
}

// gitopsNames lists the names file uses from the gitops package.
func gitopsNames(t *testing.T, file string) []string {
	src, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	f, err := parser.ParseFile(token.NewFileSet(), file, src, 0)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	ast.Inspect(f, func(n ast.Node) bool {
		if sel, ok := n.(*ast.SelectorExpr); ok {
			if pkg, ok := sel.X.(*ast.Ident); ok && pkg.Name == "gitops" {
				names = append(names, sel.Sel.Name)
			}
		}
		return true
	})
	return names
}
