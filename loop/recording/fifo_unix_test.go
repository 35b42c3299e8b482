//go:build unix

package recording

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// A recording from elsewhere may hold a named pipe where a file should be: opening one
// for reading waits for a writer that never comes. It is refused, not waited on.
func TestReadManifestRefusesANamedPipe(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, ManifestFile), 0o644); err != nil {
		t.Skip("no named pipes here:", err)
	}
	done := make(chan error, 1)
	go func() { _, err := ReadManifest(dir); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("a named pipe: err = %v, want not a regular file", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("ReadManifest hangs on a named pipe")
	}
}
