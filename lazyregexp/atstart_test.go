package lazyregexp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// No package that git-ralph links compiles a regexp in a package-level variable: each
// would be compiled before main by every command, used or not (New instead).
func TestNoPatternCompiledAtStart(t *testing.T) {
	if testing.Short() {
		t.Skip("lists the module's packages with the go command")
	}
	out, err := exec.Command("go", "list", "-deps",
		"-f", `{{with .Module}}{{if .Main}}{{range $.GoFiles}}{{$.Dir}}/{{.}}{{"\n"}}{{end}}{{end}}{{end}}`,
		"github.com/git-ralph/git-ralph/cmd/git-ralph").Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	files := strings.Split(strings.TrimSpace(string(out)), "\n")
	if len(files) < 100 {
		t.Fatalf("go list named %d files of git-ralph, expected its hundreds", len(files))
	}
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	for _, file := range files {
		rel, _ := filepath.Rel(root, file)
		if slices.Contains(notYet, filepath.ToSlash(rel)) {
			continue
		}
		for _, line := range compiledAtStart(t, file) {
			t.Errorf("%s:%d: a regexp compiled as git-ralph starts; use lazyregexp.New", rel, line)
		}
	}
}

// notYet are the files whose package-level patterns are still compiled at start, each for
// a reason.
var notYet = []string{}

// compiledAtStart lists the lines where file's package-level variables call regexp's compilers,
// directly or in a function literal called at once; a function literal only declared
// (sync.OnceValue's argument) runs later.
func compiledAtStart(t *testing.T, file string) []int {
	fset := token.NewFileSet()
	f, err := parser.ParseFile(fset, file, nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	var found []int
	for _, decl := range f.Decls {
		gen, ok := decl.(*ast.GenDecl)
		if !ok || gen.Tok != token.VAR {
			continue
		}
		called := map[*ast.FuncLit]bool{}
		ast.Inspect(gen, func(n ast.Node) bool {
			switch n := n.(type) {
			case *ast.FuncLit:
				return called[n]
			case *ast.CallExpr:
				if lit, ok := n.Fun.(*ast.FuncLit); ok {
					called[lit] = true
				}
				if isRegexpCompile(n.Fun) {
					found = append(found, fset.Position(n.Pos()).Line)
				}
			}
			return true
		})
	}
	return found
}

func isRegexpCompile(fun ast.Expr) bool {
	sel, ok := fun.(*ast.SelectorExpr)
	if !ok {
		return false
	}
	pkg, ok := sel.X.(*ast.Ident)
	return ok && pkg.Name == "regexp" && strings.Contains(sel.Sel.Name, "Compile")
}
