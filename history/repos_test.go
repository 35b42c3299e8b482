package history

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// The registry keeps each repository once, in the order registered, and drops those
// whose directories are gone: skipped when read, removed when written.
func TestReposAddListDropsGone(t *testing.T) {
	dir := t.TempDir()
	r := Repos{Path: filepath.Join(dir, "state", "repos")}
	a, b, gone := filepath.Join(dir, "a"), filepath.Join(dir, "b"), filepath.Join(dir, "gone")
	for _, d := range []string{a, b, gone} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	for _, d := range []string{a, gone, b, a + "/"} {
		if err := r.Add(d); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := r.List(); err != nil || !reflect.DeepEqual(got, []string{a, gone, b}) {
		t.Fatalf("List = %q, %v; want a, gone, b once each", got, err)
	}
	os.Remove(gone)
	if got, _ := r.List(); !reflect.DeepEqual(got, []string{a, b}) {
		t.Fatalf("List after removing gone = %q, want a, b", got)
	}
	if err := r.Add(b); err != nil {
		t.Fatal(err)
	}
	data, _ := os.ReadFile(r.Path)
	if want := a + "\n" + b + "\n"; string(data) != want {
		t.Fatalf("file = %q, want %q (gone dropped on write)", data, want)
	}
	if err := r.Add("relative/path"); err == nil {
		t.Fatal("a relative path was registered")
	}
}

// A registry that does not exist yet lists nothing.
func TestReposListMissing(t *testing.T) {
	r := Repos{Path: filepath.Join(t.TempDir(), "repos")}
	if got, err := r.List(); err != nil || len(got) != 0 {
		t.Fatalf("List = %q, %v", got, err)
	}
}
