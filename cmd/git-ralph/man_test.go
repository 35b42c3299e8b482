package main

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// TestShippedManPageIsCurrent keeps docs/git-ralph.1 in step with the command-line model;
// run with UPDATE_MAN=1 to rewrite it.
func TestShippedManPageIsCurrent(t *testing.T) {
	var cli CLI
	k, err := parser(&cli, Streams{}, func(int) {})
	if err != nil {
		t.Fatal(err)
	}
	var page bytes.Buffer
	if err := writeManPage(&page, k.Model); err != nil {
		t.Fatal(err)
	}
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
