//go:build unix

package repofile

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"syscall"
	"testing"
)

func TestReadIn(t *testing.T) {
	outside := t.TempDir()
	secret := filepath.Join(outside, "credentials")
	must(t, os.WriteFile(secret, []byte("aws_secret_access_key=XYZ"), 0o600))
	root := t.TempDir()
	must(t, os.WriteFile(filepath.Join(root, "prompt.md"), []byte("Build it."), 0o644))
	must(t, os.Mkdir(filepath.Join(root, "sub"), 0o755))
	must(t, os.Symlink("../prompt.md", filepath.Join(root, "sub", "relative.md")))
	must(t, os.Symlink(filepath.Join(root, "prompt.md"), filepath.Join(root, "absolute.md")))
	must(t, os.Symlink(secret, filepath.Join(root, "secret.md")))
	must(t, os.Symlink("../"+filepath.Base(outside)+"/credentials", filepath.Join(root, "dotdot.md")))
	must(t, os.Symlink("/dev/zero", filepath.Join(root, "zero.md")))
	must(t, os.Symlink("missing.md", filepath.Join(root, "dangling.md")))
	must(t, os.Symlink("loop.md", filepath.Join(root, "loop.md")))
	must(t, os.WriteFile(filepath.Join(root, "big.md"), make([]byte, 101), 0o644))
	must(t, os.MkdirAll(filepath.Join(root, ".git"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".git", "config"), []byte("url = https://user:token@example.com/r.git"), 0o644))
	must(t, os.Symlink(".git/config", filepath.Join(root, "gitconfig.md")))
	must(t, os.MkdirAll(filepath.Join(root, ".github"), 0o755))
	must(t, os.WriteFile(filepath.Join(root, ".github", "prompt.md"), []byte("Review it."), 0o644))
	if runtime.GOOS != "windows" {
		must(t, syscall.Mkfifo(filepath.Join(root, "fifo.md"), 0o644))
		must(t, os.MkdirAll(filepath.Join(root, "own"), 0o755))
		must(t, syscall.Mkfifo(filepath.Join(root, "own", "templates"), 0o644))
		must(t, os.Symlink("templates", filepath.Join(root, "own", "linked")))
	}

	for _, tc := range []struct {
		name, want, refused string
		missing             bool
	}{
		{name: "prompt.md", want: "Build it."},
		{name: "sub/relative.md", want: "Build it."},
		{name: "absolute.md", want: "Build it."},
		{name: "secret.md", refused: "leads outside the repository"},
		{name: "zero.md", refused: "leads outside the repository"},
		{name: "../" + filepath.Base(outside) + "/credentials", refused: "leads outside the repository"},
		{name: "sub", refused: "it is a directory, not a regular file"},
		{name: "fifo.md", refused: "it is a FIFO (named pipe), not a regular file"},
		{name: "big.md", refused: "it is larger than 100 bytes"},
		{name: "loop.md", refused: "it is a symlink that leads to itself"}, // it said "leads outside the repository"
		{name: ".git/config", refused: "inside the git directory (.git)"},
		{name: ".GIT/config", refused: "inside the git directory (.git)"},
		{name: "sub/../.git/config", refused: "inside the git directory (.git)"},
		{name: "gitconfig.md", refused: "inside the git directory (.git), whose files are git's own, not the repository's (through a symlink)"},
		{name: ".github/prompt.md", want: "Review it."},
		// a part of the path that is no directory: said so, not "leads outside the repository"
		{name: "own/templates/tdd/PROMPT.md", refused: "own/templates on its way is a FIFO (named pipe), not a directory"},
		{name: "own/linked/tdd/PROMPT.md", refused: "own/linked on its way is a FIFO (named pipe), not a directory"},
		{name: "prompt.md/x", refused: "prompt.md on its way is a file, not a directory"},
		{name: "dangling.md", missing: true},
		{name: "nothing.md", missing: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.name == "fifo.md" && runtime.GOOS == "windows" {
				t.Skip("no FIFOs")
			}
			data, err := ReadIn(root, tc.name, "shown/"+tc.name, 100)
			var refused *RefusedError
			switch {
			case tc.missing:
				if !errors.Is(err, fs.ErrNotExist) {
					t.Fatalf("err = %v, want one that is fs.ErrNotExist", err)
				}
			case tc.refused != "":
				if !errors.As(err, &refused) || !strings.Contains(err.Error(), tc.refused) || refused.Path != "shown/"+tc.name {
					t.Fatalf("err = %v, want a refusal of shown/%s saying %q", err, tc.name, tc.refused)
				}
			case err != nil || string(data) != tc.want:
				t.Fatalf("got %q, %v; want %q", data, err, tc.want)
			}
		})
	}
}

func TestRead(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "config.toml")
	must(t, os.WriteFile(file, []byte("max_iterations = 3\n"), 0o644))
	if data, err := Read(file, "config.toml", 100); err != nil || string(data) != "max_iterations = 3\n" {
		t.Fatalf("got %q, %v", data, err)
	}
	if runtime.GOOS == "windows" {
		return
	}
	fifo := filepath.Join(dir, "fifo")
	must(t, syscall.Mkfifo(fifo, 0o644))
	for _, path := range []string{fifo, "/dev/zero"} {
		var refused *RefusedError
		if _, err := Read(path, path, 100); !errors.As(err, &refused) || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("Read(%s) = %v, want a refusal", path, err)
		}
	}
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func TestOpenAppend(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), ".bashrc")
	must(t, os.WriteFile(outside, []byte("alias ll='ls -l'\n"), 0o644))
	must(t, os.Symlink(outside, filepath.Join(dir, "link.log")))
	must(t, syscall.Mkfifo(filepath.Join(dir, "fifo.log"), 0o644))
	f, err := OpenAppend(filepath.Join(dir, "new.log"), 0o644)
	if err != nil {
		t.Fatalf("a new log: %v", err)
	}
	f.Close()
	for _, name := range []string{"link.log", "fifo.log"} {
		if f, err := OpenAppend(filepath.Join(dir, name), 0o644); err == nil {
			f.Close()
			t.Errorf("OpenAppend(%s) succeeded, want a refusal", name)
		}
	}
	if data, _ := os.ReadFile(outside); string(data) != "alias ll='ls -l'\n" {
		t.Errorf("the file outside changed: %q", data)
	}
}
