package realagents

import (
	"os"
	"path/filepath"
	"testing"
)

// An install killed before its end leaves its temporary directory in the cache; the
// next install, holding the cache's lock, removes it. A finished install is kept and
// found without npm.
func TestInstallClearsInterruptedInstalls(t *testing.T) {
	cache := t.TempDir()
	t.Setenv("RALPH_AGENT_CACHE", cache)
	interrupted := filepath.Join(cache, ".installing-123", "node_modules")
	if err := os.MkdirAll(interrupted, 0o755); err != nil {
		t.Fatal(err)
	}
	p := pinned{preset: "fakecli", pkg: "@example/fakecli", version: "1.0.0"}
	bin := filepath.Join(cache, "example+fakecli@1.0.0", "node_modules", ".bin")
	writeFile(t, filepath.Join(bin, "fakecli"), "#!/bin/sh\n")
	got, err := install(t, p)
	if err != nil || got != bin {
		t.Fatalf("install of a cached CLI: %q, %v; want %q", got, err, bin)
	}
	if _, err := os.Stat(filepath.Join(cache, ".installing-123")); !os.IsNotExist(err) {
		t.Errorf("the interrupted install is still in the cache: %v", err)
	}
}
