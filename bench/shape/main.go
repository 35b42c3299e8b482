// Command shape prints the figures of the code's shape that docs/dev/benchmarks.md keeps
// before and after a restructuring: the methods of the loop's runner, the files and lines of
// package main, the exported names of gitops and history, and the functions' lengths.
// Test files are left out throughout: the figures are about the code that ships.
//
//	go run ./bench/shape          (at the module's root)
package main

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

// longFunc is the length above which a function counts as long: the house's limit.
const longFunc = 45

type file struct {
	dir   string // the package's directory, slash-separated, relative to the root
	name  string // the file's base name
	lines int
	ast   *ast.File
	fset  *token.FileSet
}

func main() {
	files, err := shipped(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
	fmt.Printf("methods on loop's runner: %d\n", methods(files, "loop", "runner"))
	n, lines := inDir(files, "cmd/git-ralph", func(string) bool { return true })
	c, clines := inDir(files, "cmd/git-ralph", isCommand)
	fmt.Printf("package main: %d files, %d lines; of them %d *_cmd.go files, %d lines, the longest %d\n",
		n, lines, c, clines, longestFile(files, "cmd/git-ralph", isCommand))
	for _, dir := range []string{"gitops", "history"} {
		fmt.Printf("exported names in %s (with its sub-packages): %d\n", dir, exported(files, dir))
	}
	loopLengths := funcLengths(files, "loop")
	fmt.Printf("functions in loop: longest %d lines, over %d lines: %d\n",
		loopLengths[len(loopLengths)-1], longFunc, over(loopLengths, longFunc))
	lengths := funcLengths(files, "")
	fmt.Printf("functions: %d, median %d lines, longest %d, over %d lines: %d\n",
		len(lengths), lengths[len(lengths)/2], lengths[len(lengths)-1], longFunc, over(lengths, longFunc))
}

// shipped parses every non-test Go file below root, leaving out testdata, bench and scripts.
func shipped(root string) ([]file, error) {
	var out []file
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			switch d.Name() {
			case "testdata", "bench", "scripts", ".git", ".ci":
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(path, ".go") || strings.HasSuffix(path, "_test.go") {
			return nil
		}
		fset := token.NewFileSet()
		f, err := parser.ParseFile(fset, path, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		if strings.HasSuffix(f.Name.Name, "test") || f.Name.Name == "gittest" || f.Name.Name == "testio" {
			return nil // test helpers
		}
		out = append(out, file{filepath.ToSlash(filepath.Dir(path)), filepath.Base(path), fset.File(f.Pos()).LineCount(), f, fset})
		return nil
	})
	return out, err
}

func methods(files []file, dir, recv string) int {
	n := 0
	for _, f := range files {
		if f.dir != dir {
			continue
		}
		for _, d := range f.ast.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if ok && fn.Recv != nil && receiver(fn) == recv {
				n++
			}
		}
	}
	return n
}

func receiver(fn *ast.FuncDecl) string {
	t := fn.Recv.List[0].Type
	if s, ok := t.(*ast.StarExpr); ok {
		t = s.X
	}
	if id, ok := t.(*ast.Ident); ok {
		return id.Name
	}
	return ""
}

func isCommand(name string) bool { return strings.HasSuffix(name, "_cmd.go") }

func inDir(files []file, dir string, keep func(name string) bool) (n, lines int) {
	for _, f := range files {
		if f.dir == dir && keep(f.name) {
			n++
			lines += f.lines
		}
	}
	return n, lines
}

func longestFile(files []file, dir string, keep func(name string) bool) int {
	most := 0
	for _, f := range files {
		if f.dir == dir && keep(f.name) {
			most = max(most, f.lines)
		}
	}
	return most
}

// exported counts the exported top-level names (functions, methods of exported types,
// types, variables, constants) of dir and the packages below it but internal ones, which
// no other package sees.
func exported(files []file, dir string) int {
	n := 0
	for _, f := range files {
		if f.dir != dir && !strings.HasPrefix(f.dir, dir+"/") || strings.Contains(f.dir, "/internal") {
			continue
		}
		for _, d := range f.ast.Decls {
			switch d := d.(type) {
			case *ast.FuncDecl:
				if d.Name.IsExported() && (d.Recv == nil || ast.IsExported(receiver(d))) {
					n++
				}
			case *ast.GenDecl:
				for _, s := range d.Specs {
					switch s := s.(type) {
					case *ast.TypeSpec:
						if s.Name.IsExported() {
							n++
						}
					case *ast.ValueSpec:
						for _, id := range s.Names {
							if id.IsExported() {
								n++
							}
						}
					}
				}
			}
		}
	}
	return n
}

// funcLengths gives the length in lines of every function of dir ("": of all), from its
// func line to its closing brace, shortest first.
func funcLengths(files []file, dir string) []int {
	var out []int
	for _, f := range files {
		if dir != "" && f.dir != dir {
			continue
		}
		for _, d := range f.ast.Decls {
			if fn, ok := d.(*ast.FuncDecl); ok && fn.Body != nil {
				out = append(out, f.fset.Position(fn.End()).Line-f.fset.Position(fn.Pos()).Line+1)
			}
		}
	}
	sort.Ints(out)
	return out
}

func over(lengths []int, limit int) int {
	n := 0
	for _, l := range lengths {
		if l > limit {
			n++
		}
	}
	return n
}
