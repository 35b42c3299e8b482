package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
)

// An edge is one import of a module package by another (paths relative to the module).
type edge struct{ from, to string }

func main() {
	edges, err := moduleEdges()
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
	if problems := check(edges); len(problems) > 0 {
		for _, p := range problems {
			fmt.Fprintln(os.Stderr, p)
		}
		os.Exit(1)
	}
	fmt.Printf("layers: %d imports between the module's packages, all going down\n", len(edges))
}

// moduleEdges lists the imports between the module's packages, tests' imports included,
// for every platform git-ralph is built for: a file for one OS imports what it imports.
func moduleEdges() ([]edge, error) {
	mod, err := output("go", "list", "-m")
	if err != nil {
		return nil, err
	}
	seen := map[edge]bool{}
	for _, goos := range []string{"linux", "darwin", "windows"} {
		if err := listEdges(strings.TrimSpace(mod), goos, seen); err != nil {
			return nil, err
		}
	}
	var edges []edge
	for e := range seen {
		edges = append(edges, e)
	}
	slices.SortFunc(edges, func(a, b edge) int { return strings.Compare(a.from+" "+a.to, b.from+" "+b.to) })
	return edges, nil
}

// listEdges adds the module-internal imports `go list -deps` reports for goos to seen.
func listEdges(mod, goos string, seen map[edge]bool) error {
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
