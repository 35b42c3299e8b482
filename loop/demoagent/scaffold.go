package demoagent

import (
	"embed"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// project holds the demo project's starting files, rooted at project/.
//
//go:embed project
var project embed.FS

// Scaffold writes the demo project's starting files (specs, README) into dir (an empty git repo); the caller commits them.
// It refuses to overwrite an existing file.
func Scaffold(dir string) error {
	files, err := fs.Sub(project, "project")
	if err != nil {
		return fmt.Errorf("opening embedded project: %w", err)
	}
	return fs.WalkDir(files, ".", func(name string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		data, err := fs.ReadFile(files, name)
		if err != nil {
			return fmt.Errorf("reading embedded %s: %w", name, err)
		}
		return createFile(filepath.Join(dir, filepath.FromSlash(name)), data)
	})
}

// createFile writes data to a new file at dest, creating its directory; dest must not exist yet.
func createFile(dest string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return fmt.Errorf("scaffolding %s: %w", dest, err)
	}
	f, err := os.OpenFile(dest, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return fmt.Errorf("scaffolding %s: %w", dest, err)
	}
	_, err = f.Write(data)
	if closeErr := f.Close(); err == nil {
		err = closeErr
	}
	if err != nil {
		return fmt.Errorf("scaffolding %s: %w", dest, err)
	}
	return nil
}
