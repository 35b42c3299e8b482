package history

import (
	"os"
	"path/filepath"
	"testing"
	"time"
)

func TestSharedLimits(t *testing.T) {
	s := Limits{Dir: filepath.Join(t.TempDir(), "limits")}
	now := time.Date(2026, 11, 23, 5, 0, 0, 0, time.UTC)
	if _, ok, err := s.For("claude", "", now); ok || err != nil {
		t.Fatalf("an empty store has a limit: %v, %v", ok, err)
	}
	share := func(l SharedLimit) {
		t.Helper()
		if err := s.Share(l); err != nil {
			t.Fatal(err)
		}
	}
	share(SharedLimit{Agent: "claude", Account: "login", Until: now.Add(time.Hour), Message: "hit", From: "/a"})
	share(SharedLimit{Agent: "claude", Account: "login", Until: now.Add(time.Minute), From: "/b"}) // shorter: kept out
	share(SharedLimit{Agent: "codex", Until: now.Add(2 * time.Hour), From: "/c"})
	share(SharedLimit{Agent: "../../x", Account: "/etc/passwd", Until: now.Add(time.Hour)})
	for _, tc := range []struct {
		agent, account string
		want           time.Duration // 0: no wait
	}{
		{"claude", "login", time.Hour},
		{"claude", "", 0}, // the loop does not know its account yet: its first attempt tells
		{"claude", "ANTHROPIC_API_KEY", 0},
		{"codex", "anything", 2 * time.Hour},
		{"gemini", "", 0},
	} {
		l, ok, err := s.For(tc.agent, tc.account, now)
		if err != nil || ok != (tc.want != 0) || (ok && !l.Until.Equal(now.Add(tc.want))) {
			t.Errorf("For(%s, %s) = %+v, %v, %v; want a wait of %s", tc.agent, tc.account, l, ok, err, tc.want)
		}
	}
	if l, _, _ := s.For("claude", "login", now); l.From != "/a" || l.Message != "hit" {
		t.Errorf("the longer limit was replaced: %+v", l)
	}
	entries, _ := os.ReadDir(s.Dir)
	for _, e := range entries {
		if e.Name() != ".lock" && filepath.Dir(filepath.Join(s.Dir, e.Name())) != s.Dir {
			t.Errorf("a file left the store: %s", e.Name())
		}
	}
	// once they end, they are ignored and their files go
	later := now.Add(90 * time.Minute)
	all, err := s.Active(later)
	if err != nil || len(all) != 1 || all[0].Agent != "codex" {
		t.Errorf("Active after the hour = %+v, %v", all, err)
	}
	if _, err := os.Stat(s.file("claude", "login")); !os.IsNotExist(err) {
		t.Errorf("an ended limit's file is still there: %v", err)
	}
}

func TestUserLimitsFollowsXDGStateHome(t *testing.T) {
	t.Setenv("XDG_STATE_HOME", "/state")
	if s, err := UserLimits(); err != nil || s.Dir != "/state/git-ralph/limits" {
		t.Errorf("UserLimits = %+v, %v", s, err)
	}
	t.Setenv("XDG_STATE_HOME", "relative")
	t.Setenv("HOME", "/home/u")
	if s, err := UserLimits(); err != nil || s.Dir != "/home/u/.local/state/git-ralph/limits" {
		t.Errorf("UserLimits with a relative XDG_STATE_HOME = %+v, %v", s, err)
	}
}
