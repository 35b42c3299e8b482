package recording

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func TestParseTiming(t *testing.T) {
	out := []byte("hello world")
	for _, tc := range []struct {
		name, timing string
		want         []string // the chunks; nil: an error
		wantErr      string
	}{
		{name: "chunks", timing: "0 6\n250 5\n", want: []string{"hello ", "world"}},
		{name: "same instant", timing: "7 5\n7 6\n", want: []string{"hello", " world"}},
		{name: "not two numbers", timing: "0 6\nlater 5\n", wantErr: `line 2: "later 5" is not "MILLISECONDS BYTES"`},
		{name: "back in time", timing: "300 6\n250 5\n", wantErr: "line 2: time 250 ms is out of order"},
		{name: "negative size", timing: "0 -1\n", wantErr: "line 1: -1 bytes"},
		{name: "more than the output", timing: "0 6\n1 99\n", wantErr: "line 2: 99 bytes, but output.log has only 5 left"},
		{name: "less than the output", timing: "0 6\n", wantErr: "describes 6 bytes, but output.log holds 11"},
		{name: "beyond a week", timing: "999999999999 11\n", wantErr: "out of range"},
		{name: "no newline at the end", timing: "0 11", want: []string{"hello world"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			chunks, err := parseTiming("timing.txt", []byte(tc.timing), out)
			if tc.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tc.wantErr) || !strings.HasPrefix(err.Error(), "timing.txt: ") {
					t.Fatalf("err = %v, want one naming timing.txt with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, c := range chunks {
				got = append(got, string(c.Data))
			}
			if strings.Join(got, "|") != strings.Join(tc.want, "|") {
				t.Errorf("chunks %q, want %q", got, tc.want)
			}
		})
	}
	chunks, err := parseTiming("timing.txt", nil, nil)
	if err != nil || len(chunks) != 0 {
		t.Errorf("an empty output: %v, %v", chunks, err)
	}
	chunks, _ = parseTiming("timing.txt", []byte("0 6\n250 5\n"), out)
	if chunks[1].At != 250*time.Millisecond {
		t.Errorf("the second chunk comes at %s, want 250ms", chunks[1].At)
	}
}

func TestReadManifestRefusesWhatIsNotOne(t *testing.T) {
	good := `{"format":1,"git_ralph":"git-ralph dev","agent":"claude","repository":{"root_commits":["` + strings.Repeat("a", 40) + `"]},"created_at":"2026-01-01T00:00:00Z"}`
	for _, tc := range []struct{ name, text, want string }{
		{"good", good, ""},
		{"not JSON", "{not json", "not a valid recording file"},
		{"unknown field", strings.Replace(good, `"agent"`, `"agnet":"x","agent"`, 1), `unknown field "agnet"`},
		{"two objects", good + good, "data after the JSON object"},
		{"another format", strings.Replace(good, `"format":1`, `"format":2`, 1), "format 2, but this git-ralph reads format 1"},
		{"a root that is no hash", strings.Replace(good, strings.Repeat("a", 40), "HEAD", 1), `root commit "HEAD" is not a commit hash`},
		{"an agent that is no name", strings.Replace(good, `"claude"`, `"../../bin/sh"`, 1), "is not a preset name"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, ManifestFile)
			if err := os.WriteFile(path, []byte(tc.text), 0o644); err != nil {
				t.Fatal(err)
			}
			m, err := ReadManifest(dir)
			if tc.want == "" {
				if err != nil || m.Agent != "claude" || len(m.Repository.Roots) != 1 {
					t.Fatalf("ReadManifest = %+v, %v", m, err)
				}
				return
			}
			var fe *FileError
			if !errors.As(err, &fe) || fe.Path != path || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want a FileError for %s with %q", err, path, tc.want)
			}
		})
	}
}

func TestReadManifestRefusesOddFiles(t *testing.T) {
	dir := t.TempDir()
	if _, err := ReadManifest(dir); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("no manifest: err = %v, want not exist", err)
	}
	if err := os.Mkdir(filepath.Join(dir, ManifestFile), 0o755); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(dir); err == nil || !strings.Contains(err.Error(), "not a regular file") {
		t.Errorf("a directory: err = %v", err)
	}
	big := t.TempDir()
	if err := os.WriteFile(filepath.Join(big, ManifestFile), make([]byte, maxJSON+1), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := ReadManifest(big); err == nil || !strings.Contains(err.Error(), "more than a recording's file may hold") {
		t.Errorf("a huge file: err = %v", err)
	}
}

func TestIdentityMatches(t *testing.T) {
	a, b, c := strings.Repeat("a", 40), strings.Repeat("b", 40), strings.Repeat("c", 40)
	for _, tc := range []struct {
		name           string
		recorded, here Identity
		want           bool
	}{
		{"same root", Identity{Roots: []string{a}}, Identity{Roots: []string{a}, Origin: "x"}, true},
		{"one shared root of two (a merged history)", Identity{Roots: []string{a, b}}, Identity{Roots: []string{b, c}}, true},
		{"other roots, same origin", Identity{Roots: []string{a}, Origin: "u"}, Identity{Roots: []string{b}, Origin: "u"}, false},
		{"no commits, same origin", Identity{Origin: "u"}, Identity{Roots: []string{a}, Origin: "u"}, true},
		{"no commits, other origin", Identity{Origin: "u"}, Identity{Origin: "v"}, false},
		{"no commits, no origin", Identity{}, Identity{}, true},
	} {
		if got := tc.recorded.Matches(tc.here); got != tc.want {
			t.Errorf("%s: Matches = %v, want %v", tc.name, got, tc.want)
		}
	}
}

func TestPublicURLDropsCredentials(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:ghp_secret@github.com/o/r.git": "https://github.com/o/r.git",
		"git@github.com:o/r.git":                     "git@github.com:o/r.git",
		"/srv/git/r.git":                             "/srv/git/r.git",
	} {
		if got := PublicURL(in); got != want {
			t.Errorf("PublicURL(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestAttemptChecks(t *testing.T) {
	h := strings.Repeat("1", 40)
	good := Attempt{Number: 3, Change: h, Before: Checkpoint{Head: h, Tree: h}, After: Checkpoint{Tree: h}}
	if err := good.check(3); err != nil {
		t.Fatalf("a good attempt: %v", err)
	}
	for name, bad := range map[string]func(a *Attempt){
		"another number":    func(a *Attempt) { a.Number = 4 },
		"exit code 300":     func(a *Attempt) { a.ExitCode = 300 },
		"unknown signal":    func(a *Attempt) { a.Signal = "SIGWINCH" },
		"negative cost":     func(a *Attempt) { a.Usage.CostUSD = -1 },
		"change not a hash": func(a *Attempt) { a.Change = "HEAD~1" },
		"head an option":    func(a *Attempt) { a.Before.Head = "--output=/etc/passwd" },
	} {
		a := good
		bad(&a)
		if err := a.check(3); err == nil {
			t.Errorf("%s: accepted", name)
		}
	}
}

func TestFailureReadsWhatWriteFailurePrinted(t *testing.T) {
	var out strings.Builder
	out.WriteString("some output\n")
	WriteFailure(&out, Hinted(errors.New("it ran\nout"), "record more"))
	msg, hint := Failure([]byte(out.String()))
	if msg != "it ran out" || hint != "record more" {
		t.Errorf("Failure = %q, %q", msg, hint)
	}
	out.Reset()
	WriteFailure(&out, &FileError{Path: "x/attempt.json", Err: errors.New("bad")})
	if msg, hint := Failure([]byte(out.String())); msg != "x/attempt.json: bad" || !strings.Contains(hint, "record the run again") {
		t.Errorf("Failure = %q, %q", msg, hint)
	}
	if msg, _ := Failure([]byte("nothing said")); !strings.Contains(msg, "exit code 87") {
		t.Errorf("Failure of silence = %q", msg)
	}
}
