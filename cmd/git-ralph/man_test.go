package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/help"
)

// TestShippedManPageIsCurrent keeps docs/git-ralph.1 in step with the command-line model;
// run with UPDATE_MAN=1 to rewrite it.
func TestShippedManPageIsCurrent(t *testing.T) {
	page, _ := manPage(t)
	path := filepath.Join("..", "..", "docs", "git-ralph.1")
	if os.Getenv("UPDATE_MAN") == "1" {
		if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipped, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, page.Bytes()) {
		t.Errorf("%s is out of date: run UPDATE_MAN=1 go test ./cmd/git-ralph -run TestShippedManPageIsCurrent", path)
	}
}

// TestManPageCoversEveryCommand: each visible command and subcommand has its section,
// with each of its flags.
func TestManPageCoversEveryCommand(t *testing.T) {
	page, model := manPage(t)
	var check func(n *kong.Node, path string)
	check = func(n *kong.Node, path string) {
		if n.Hidden {
			return
		}
		path += " " + n.Name
		if !strings.Contains(page.String(), `.SS "`+help.Roff(path)) {
			t.Errorf("no section for %q", path)
		}
		for _, f := range n.Flags {
			if !f.Hidden && !strings.Contains(page.String(), `\-\-`+help.Roff(f.Name)) {
				t.Errorf("%s: flag --%s is missing", path, f.Name)
			}
		}
		for _, c := range n.Children {
			check(c, path)
		}
	}
	for _, c := range model.Children {
		check(c, "git ralph")
	}
	if !strings.Contains(page.String(), `.SS "git ralph schedule add`) {
		t.Error("subcommands are not covered")
	}
}

// manPage renders the man page from the command-line model.
func manPage(t *testing.T) (*bytes.Buffer, *kong.Application) {
	t.Helper()
	var cli CLI
	k, err := parser(&cli, Streams{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := help.WriteManPage(&page, k.Model, version); err != nil {
		t.Fatal(err)
	}
	return &page, k.Model
}
