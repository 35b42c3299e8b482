package githooks

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// hookRig is a hooks directory with the hook script and a fake git-ralph that records its
// arguments and stdin, for running the script as git would.
type hookRig struct {
	dir, bin, record string
}

// newHookRig writes hookScript(program, chained) as dir/pre-push; program "fake" is the
// recording fake, anything else is used as it is.
func newHookRig(t *testing.T, program string, chained bool) hookRig {
	t.Helper()
	base := t.TempDir()
	r := hookRig{dir: filepath.Join(base, "hooks"), bin: filepath.Join(base, "bin"), record: filepath.Join(base, "record")}
	for _, d := range []string{r.dir, r.bin} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	recorder := "#!/bin/sh\necho \"$(basename \"$0\") $*\" >> \"$RECORD\"\ncat >> \"$RECORD\"\nexit ${FAKE_EXIT:-0}\n"
	writeExec(t, filepath.Join(r.bin, "git-ralph"), recorder)
	writeExec(t, filepath.Join(r.bin, "git"), recorder) // for the fallback to `git ralph`
	if program == "fake" {
		program = filepath.Join(r.bin, "git-ralph")
	}
	writeExec(t, filepath.Join(r.dir, "pre-push"), hookScript(program, chained))
	return r
}

func writeExec(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o755); err != nil {
		t.Fatal(err)
	}
}

// run runs the hook as git does: a relative $0 from the directory above the hooks, the
// remote's name and URL as arguments, the ref lines on stdin. PATH holds the fake git
// (never git-ralph) and the system's tools.
func (r hookRig) run(t *testing.T, stdin string, env ...string) (int, string) {
	t.Helper()
	cmd := exec.Command("hooks/pre-push", "origin", "/srv/remote.git")
	cmd.Dir = filepath.Dir(r.dir)
	cmd.Stdin = strings.NewReader(stdin)
	pathDir := filepath.Join(filepath.Dir(r.dir), "path")
	os.MkdirAll(pathDir, 0o755)
	os.Link(filepath.Join(r.bin, "git"), filepath.Join(pathDir, "git"))
	cmd.Env = append([]string{"PATH=" + pathDir + ":/usr/bin:/bin", "RECORD=" + r.record}, env...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatal(err)
	}
	return exitCodeOf(err), stderr.String()
}

func (r hookRig) recorded(t *testing.T) string {
	t.Helper()
	data, err := os.ReadFile(r.record)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(data)
}

const refLines = "refs/heads/main 1111111111111111111111111111111111111111 refs/heads/main 2222222222222222222222222222222222222222\n" +
	"refs/tags/v1 3333333333333333333333333333333333333333 refs/tags/v1 0000000000000000000000000000000000000000\n"

func TestHookScriptRunsTheRecordedProgram(t *testing.T) {
	r := newHookRig(t, "fake", false)
	if code, stderr := r.run(t, refLines); code != 0 {
		t.Fatalf("hook exited %d: %s", code, stderr)
	}
	if got, want := r.recorded(t), "git-ralph pre-push origin /srv/remote.git\n"+refLines; got != want {
		t.Errorf("git-ralph got:\n%s\nwant:\n%s", got, want)
	}
	if code, _ := r.run(t, refLines, "FAKE_EXIT=1"); code != 1 {
		t.Errorf("hook exited %d when git-ralph failed, want 1", code)
	}
}

func TestHookScriptFallsBackToGitRalph(t *testing.T) {
	for _, program := range []string{"", "/nowhere/git-ralph"} {
		r := newHookRig(t, program, false)
		if code, stderr := r.run(t, refLines); code != 0 {
			t.Fatalf("program %q: hook exited %d: %s", program, code, stderr)
		}
		if got, want := r.recorded(t), "git ralph pre-push origin /srv/remote.git\n"+refLines; got != want {
			t.Errorf("program %q: git got:\n%s\nwant:\n%s", program, got, want)
		}
	}
}

func TestHookScriptQuotesTheProgramPath(t *testing.T) {
	r := newHookRig(t, "fake", false)
	odd := filepath.Join(r.bin, "it's $HOME `x`")
	if err := os.Mkdir(odd, 0o755); err != nil {
		t.Fatal(err)
	}
	program := filepath.Join(odd, "git-ralph")
	writeExec(t, program, "#!/bin/sh\necho odd \"$*\" >> \"$RECORD\"\n")
	writeExec(t, filepath.Join(r.dir, "pre-push"), hookScript(program, false))
	if code, stderr := r.run(t, refLines); code != 0 {
		t.Fatalf("hook exited %d: %s", code, stderr)
	}
	if got := r.recorded(t); got != "odd pre-push origin /srv/remote.git\n" {
		t.Errorf("recorded %q", got)
	}
}

func TestHookScriptChainsTheKeptHook(t *testing.T) {
	tests := []struct {
		name     string
		stdin    string
		keptExit string
		wantCode int
		want     string
	}{
		{"both get the same arguments and refs", refLines, "0", 0,
			"kept origin /srv/remote.git\n" + refLines + "git-ralph pre-push origin /srv/remote.git\n" + refLines},
		{"no refs: no blank line either", "", "0", 0,
			"kept origin /srv/remote.git\ngit-ralph pre-push origin /srv/remote.git\n"},
		{"the kept hook's failure stops the push", refLines, "7", 7,
			"kept origin /srv/remote.git\n" + refLines},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newHookRig(t, "fake", true)
			kept := "#!/bin/sh\necho \"kept $*\" >> \"$RECORD\"\ncat >> \"$RECORD\"\nexit " + tt.keptExit + "\n"
			writeExec(t, filepath.Join(r.dir, "pre-push"+keptSuffix), kept)
			code, stderr := r.run(t, tt.stdin)
			if code != tt.wantCode {
				t.Fatalf("hook exited %d, want %d: %s", code, tt.wantCode, stderr)
			}
			if got := r.recorded(t); got != tt.want {
				t.Errorf("recorded:\n%s\nwant:\n%s", got, tt.want)
			}
			if tt.wantCode != 0 && !strings.Contains(stderr, "pre-push.before-ralph failed (exit 7)") {
				t.Errorf("stderr does not say which hook failed: %q", stderr)
			}
		})
	}
}

func TestHookScriptSkipsAKeptHookThatIsNotExecutable(t *testing.T) {
	r := newHookRig(t, "fake", true)
	if err := os.WriteFile(filepath.Join(r.dir, "pre-push"+keptSuffix), []byte("#!/bin/sh\nexit 9\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if code, stderr := r.run(t, refLines); code != 0 {
		t.Fatalf("hook exited %d: %s (git skips a hook that is not executable; so does the chain)", code, stderr)
	}
}

// exitCodeOf is the exit code of a finished command; -1 when it did not run.
func exitCodeOf(err error) int {
	if err == nil {
		return 0
	}
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		return exit.ExitCode()
	}
	return -1
}
