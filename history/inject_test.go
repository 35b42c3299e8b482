package history

import (
	"os"
	"strings"
	"testing"
	"time"
)

func TestInjectionsAreReadInOrderAndConsumedOnce(t *testing.T) {
	root := t.TempDir()
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	for i, text := range []string{"first", "second", "third"} {
		if _, err := Inject(root, text, at.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	list, err := Injections(root)
	if err != nil || len(list) != 3 {
		t.Fatalf("Injections = %v, %v; want 3", list, err)
	}
	for i, want := range []string{"first", "second", "third"} {
		if list[i].Text != want {
			t.Errorf("injection %d = %q, want %q", i, list[i].Text, want)
		}
	}
	if !list[0].At.Equal(at) {
		t.Errorf("At = %v, want %v", list[0].At, at)
	}
	late, _ := Inject(root, "late", at.Add(time.Minute)) // queued while the iteration runs
	if err := Consume(list); err != nil {
		t.Fatal(err)
	}
	left, _ := Injections(root)
	if len(left) != 1 || left[0].Text != "late" {
		t.Errorf("after Consume: %v, want only the late one", left)
	}
	if err := Consume(list); err != nil {
		t.Errorf("consuming twice: %v", err)
	}
	if _, err := os.Stat(late.Path); err != nil {
		t.Error(err)
	}
}

func TestNoInjections(t *testing.T) {
	if list, err := Injections(t.TempDir()); err != nil || list != nil {
		t.Errorf("Injections = %v, %v", list, err)
	}
}

// One prompt carries at most 1 MiB of injected texts: a queue of many (a repository can
// commit thousands) is read a prompt's worth at a time, the rest waiting their turn.
func TestInjectionsTakeOnePromptsWorthAtATime(t *testing.T) {
	root := t.TempDir()
	at := time.Date(2026, 11, 21, 10, 0, 0, 0, time.UTC)
	text := strings.Repeat("x", 400<<10)
	for i := range 5 {
		if _, err := Inject(root, text, at.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	for _, want := range []int{2, 2, 1, 0} {
		list, err := Injections(root)
		if err != nil || len(list) != want {
			t.Fatalf("Injections = %d texts, %v; want %d", len(list), err, want)
		}
		if err := Consume(list); err != nil {
			t.Fatal(err)
		}
	}
}
