package history

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// withUmask runs f with the process's umask set to mask.
func withUmask(t *testing.T, mask int, f func()) {
	t.Helper()
	old := syscall.Umask(mask)
	defer syscall.Umask(old)
	f()
}

func TestFilesHonourTheUmask(t *testing.T) {
	for _, tt := range []struct {
		umask int
		want  os.FileMode
	}{{0o077, 0o600}, {0o022, 0o644}, {0o027, 0o640}} {
		root := t.TempDir()
		withUmask(t, tt.umask, func() {
			if err := SaveState(root, State{Run: "r"}); err != nil {
				t.Fatal(err)
			}
			store, _ := OpenStore(root)
			n, err := store.Next()
			if err != nil {
				t.Fatal(err)
			}
			if err := store.Save(Record{Iteration: n}); err != nil {
				t.Fatal(err)
			}
			for _, path := range []string{StatePath(root), store.recordPath(n), store.counterPath()} {
				info, err := os.Stat(path)
				if err != nil {
					t.Fatal(err)
				}
				if got := info.Mode().Perm(); got != tt.want {
					t.Errorf("umask %03o: %s is %03o, want %03o", tt.umask, filepath.Base(path), got, tt.want)
				}
			}
		})
	}
}

// A key the agent printed reaches the state's last_error and a record's validation.
func TestStateAndRecordsAreRedacted(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Ab3", 31) + "AA"
	root := t.TempDir()
	if err := SaveState(root, State{LastError: "agent said " + key, Feedback: "AWS_SECRET_ACCESS_KEY=wJalrXUtnFEMI/K7MDENG/bPxRfiCYzEXAMPLEKEY"}); err != nil {
		t.Fatal(err)
	}
	store, _ := OpenStore(root)
	n, _ := store.Next()
	if err := store.Save(Record{Iteration: n, Validation: "failed: " + key}); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{StatePath(root), store.recordPath(n)} {
		data, _ := os.ReadFile(path)
		if strings.Contains(string(data), key) || strings.Contains(string(data), "wJalrXUtnFEMI") {
			t.Errorf("%s holds a secret:\n%s", path, data)
		}
		if !strings.Contains(string(data), "[REDACTED:") {
			t.Errorf("%s has no redaction mark:\n%s", path, data)
		}
	}
	if st, err := LoadState(root); err != nil || !strings.Contains(st.LastError, "[REDACTED:anthropic-key]") {
		t.Errorf("the redacted state does not read back: %+v, %v", st, err)
	}
}

func TestLogRecordsAreRedacted(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ralph.log")
	f, err := OpenRotating(path, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	line := []byte(`{"msg":"hook failed","output":"token ghp_` + strings.Repeat("aB1", 12) + `"}` + "\n")
	if n, err := f.Write(line); err != nil || n != len(line) {
		t.Fatalf("Write = %d, %v; want %d", n, err, len(line))
	}
	f.Close()
	data, _ := os.ReadFile(path)
	if strings.Contains(string(data), "ghp_aB1") || !strings.Contains(string(data), "[REDACTED:github-token]") {
		t.Errorf("log not redacted: %s", data)
	}
}

// Redacting the encoded state must leave TOML that parses, whatever the texts hold.
func TestRedactedStateStillParses(t *testing.T) {
	key := "sk-ant-api03-" + strings.Repeat("Ab3", 31) + "AA"
	texts := []string{
		"-----BEGIN RSA PRIVATE KEY-----\nMIIEowIBAAKCAQEA" + strings.Repeat("x9Y", 20) + "\n",
		`"quoted" ` + key + `\` + "\n\ttab",
		"api_key='" + strings.Repeat("Q7w", 8) + "'\"",
		"Bearer " + strings.Repeat("z8", 12) + `"` + key + `"`,
		"postgres://u:p4ssw0rd@db/x and AKIA" + strings.Repeat("B", 16),
	}
	for _, text := range texts {
		root := t.TempDir()
		if err := SaveState(root, State{LastError: text, LimitMessage: text, Feedback: text}); err != nil {
			t.Fatal(err)
		}
		st, err := LoadState(root)
		if err != nil || !st.Exists() {
			t.Errorf("state with %q does not read back: %v", text, err)
		}
		if strings.Contains(st.LastError, key) {
			t.Errorf("key kept in %q", st.LastError)
		}
	}
}

func TestReplaceFileReplacesWithoutLeftovers(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "m.toml")
	for _, text := range []string{"old\n", "new\n"} {
		if err := ReplaceFile(path, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if data, err := os.ReadFile(path); err != nil || string(data) != "new\n" {
		t.Fatalf("after ReplaceFile: %q, %v", data, err)
	}
	if entries, _ := os.ReadDir(dir); len(entries) != 1 {
		t.Fatalf("ReplaceFile left %d files, want only m.toml", len(entries))
	}
}
