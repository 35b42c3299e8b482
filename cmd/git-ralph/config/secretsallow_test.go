package config

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// The allow list lets secrets be pushed, so trust covers it like a command.
func TestSecretsAllowNeedsTrust(t *testing.T) {
	root := t.TempDir()
	entry := strings.Repeat("a", 40) + ":creds.env:aws-access-key-id:2\n"
	writeFile(t, filepath.Join(root, SecretsAllowFile), "# fixture\n"+entry)
	c, err := Load(Sources{RepoRoot: root, Env: []string{"HOME=" + t.TempDir()}})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(c.SecretsAllow, entry) || c.RepoCommands()["secrets-allow"] != c.SecretsAllow {
		t.Errorf("SecretsAllow %q, RepoCommands %v: want the file, under trust", c.SecretsAllow, c.RepoCommands())
	}
	writeFile(t, filepath.Join(root, SecretsAllowFile), strings.Repeat("x", repofile.ConfigLimit+1))
	_, err = Load(Sources{RepoRoot: root, Env: []string{"HOME=" + t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), SecretsAllowFile) {
		t.Errorf("a 1 MB allow file: err %v, want one naming the file", err)
	}
}

// TestSecretsAllowIsReadLikeTheConfig: a hostile clone's allow file is read as its
// config is — a symlink out of the repository or a FIFO (which would block the open
// for ever) is refused with the file named, never followed or waited on.
func TestSecretsAllowIsReadLikeTheConfig(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "elsewhere")
	writeFile(t, outside, strings.Repeat("b", 40)+":x:aws-access-key-id:1\n")
	for name, create := range map[string]func(path string) error{
		"symlink out": func(path string) error { return os.Symlink(outside, path) },
		"fifo":        func(path string) error { return syscall.Mkfifo(path, 0o644) },
	} {
		t.Run(name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, SecretsAllowFile)
			if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := create(path); err != nil {
				t.Skip(err)
			}
			done := make(chan error, 1)
			go func() {
				_, err := Load(Sources{RepoRoot: root, Env: []string{"HOME=" + t.TempDir()}})
				done <- err
			}()
			select {
			case err := <-done:
				if err == nil || !strings.Contains(err.Error(), SecretsAllowFile) {
					t.Errorf("Load: err %v, want a refusal naming %s", err, SecretsAllowFile)
				}
			case <-time.After(5 * time.Second):
				t.Fatal("Load blocked on the allow file")
			}
		})
	}
}
