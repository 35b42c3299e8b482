package main

import (
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// An edge is one import of a module package by another (paths relative to the module).
type edge struct{ from, to string }

func main() {
	writeDocFlag := flag.Bool("write-doc", false, "write the last column of the package map in "+archPage+" from rules.go")
	flag.Parse()
	root, err := output("go", "list", "-m", "-f", "{{.Dir}}")
	if err != nil {
		fail(err)
	}
	page := filepath.Join(strings.TrimSpace(root), filepath.FromSlash(archPage))
	if *writeDocFlag {
		if err := rewritePage(page); err != nil {
			fail(err)
		}
	}
	edges, pkgs, err := moduleEdges()
	if err != nil {
		fail(err)
	}
	text, err := os.ReadFile(page)
	if err != nil {
		fail(err)
	}
	if problems := append(check(edges), checkDoc(string(text), pkgs)...); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, p)
		}
		os.Exit(1)
	}
	fmt.Printf("layers: %d imports between the module's packages, all going down; the package map of %s agrees\n", len(edges), archPage)
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "error:", err)
	os.Exit(2)
}

// rewritePage writes the package map's last column of the page at path from rules.go.
func rewritePage(path string) error {
	text, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	out, err := writeDoc(string(text))
	if err != nil {
		return err
	}
	return os.WriteFile(path, []byte(out), 0o644)
}

// moduleEdges lists the imports between the module's packages, tests' imports included,
// for every platform git-ralph is built for: a file for one OS imports what it imports; and
// the module's packages.
func moduleEdges() ([]edge, []string, error) {
	mod, err := output("go", "list", "-m")
	if err != nil {
		return nil, nil, err
	}
	seen := map[edge]bool{}
	pkgs := map[string]bool{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if err := listEdges(strings.TrimSpace(mod), goos, seen, pkgs); err != nil {
			return nil, nil, err
		}
	}
	var edges []edge
	for e := range seen {
		edges = append(edges, e)
	}
	slices.SortFunc(edges, func(a, b edge) int { return strings.Compare(a.from+" "+a.to, b.from+" "+b.to) })
	return edges, slices.Sorted(maps.Keys(pkgs)), nil
}

// listEdges adds the module-internal imports `go list -deps` reports for goos to seen, and
// the module's packages to pkgs.
func listEdges(mod, goos string, seen map[edge]bool, pkgs map[string]bool) error {
	cmd := exec.Command("go", "list", "-e", "-deps", "-json=ImportPath,Module,Imports,TestImports,XTestImports", "./...")
	cmd.Env = append(os.Environ(), "GOOS="+goos, "CGO_ENABLED=0")
	out, err := cmd.Output()
	if err != nil {
		return fmt.Errorf("go list for %s: %w", goos, err)
	}
	dec := json.NewDecoder(strings.NewReader(string(out)))
	for {
		var p struct {
			ImportPath                         string
			Imports, TestImports, XTestImports []string
		}
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			return nil
		} else if err != nil {
			return err
		}
		from, ok := inModule(mod, p.ImportPath)
		if !ok {
			continue
		}
		pkgs[from] = true
		for _, imp := range slices.Concat(p.Imports, p.TestImports, p.XTestImports) {
			if to, ok := inModule(mod, imp); ok && to != from {
				seen[edge{from, to}] = true
			}
		}
	}
}

// inModule gives path relative to the module, when it is one of the module's packages.
func inModule(mod, path string) (string, bool) {
	return strings.CutPrefix(path, mod+"/")
}

func output(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).Output()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w", name, strings.Join(args, " "), err)
	}
	return string(out), nil
}
