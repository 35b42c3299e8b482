package config

import (
	"path/filepath"
	"strings"
	"testing"
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
	writeFile(t, filepath.Join(root, SecretsAllowFile), strings.Repeat("x", maxSecretsAllow+1))
	_, err = Load(Sources{RepoRoot: root, Env: []string{"HOME=" + t.TempDir()}})
	if err == nil || !strings.Contains(err.Error(), SecretsAllowFile) {
		t.Errorf("a 1 MB allow file: err %v, want one naming the file", err)
	}
}
