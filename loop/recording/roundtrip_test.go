package recording

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitsnap"
	"github.com/git-ralph/git-ralph/gitops/gittest"
)

func TestMain(m *testing.M) {
	gittest.Main(m, map[string]string{"GIT_AUTHOR_DATE": "2026-01-01T00:00:00Z", "GIT_COMMITTER_DATE": "2026-01-01T00:00:00Z"})
}

// git runs git in dir, failing the test on an error.
var git = gittest.Git

func writeFile(t *testing.T, dir, name, text string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
}

// repoAndClone makes a repository with one commit and a clone of it: the recording's
// repository and the replay's.
func repoAndClone(t *testing.T) (string, string) {
	dir := t.TempDir()
	if err := gitops.Init(context.Background(), dir, "main"); err != nil {
		t.Fatal(err)
	}
	writeFile(t, dir, "a.txt", "one\n")
	git(t, dir, "add", "-A")
	git(t, dir, "commit", "-q", "-m", "base")
	clone := filepath.Join(t.TempDir(), "clone")
	git(t, dir, "clone", "-q", dir, clone)
	return dir, clone
}

// recordOne records one attempt in dir: output with a secret, a commit, an untracked file.
func recordOne(t *testing.T, ctx context.Context, dir, rec string) {
	r, err := Create(ctx, rec, dir, Manifest{Agent: "claude", AgentCmd: "KEY=AKIAZ7FK4ZRI3R2WYOJF sh agent.sh"})
	if err != nil {
		t.Fatal(err)
	}
	take, err := r.Begin(ctx, "run-1", 1, 1, "the prompt\n")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(take.Output(), "working with AKIAZ7FK4ZRI3R2WYOJF\n")
	fmt.Fprintf(take.Output(), "<promise>SUC")
	fmt.Fprintf(take.Output(), "CESS</promise>\n")
	writeFile(t, dir, "a.txt", "two\n")
	git(t, dir, "commit", "-q", "-am", "the agent's commit")
	writeFile(t, dir, "notes.txt", "uncommitted\n")
	if err := take.End(ctx, Result{ExitCode: 3, Usage: Usage{InputTokens: 10, CostUSD: 0.5, HasCost: true}}); err != nil {
		t.Fatal(err)
	}
}

func TestRecordThenPlayInAClone(t *testing.T) {
	ctx := context.Background()
	dir, clone := repoAndClone(t)
	rec := filepath.Join(t.TempDir(), "rec")
	recordOne(t, ctx, dir, rec)
	want, err := gitsnap.CheckpointNow(ctx, dir)
	if err != nil {
		t.Fatal(err)
	}
	manifest, _ := os.ReadFile(filepath.Join(rec, ManifestFile))
	if strings.Contains(string(manifest), "AKIAZ7FK4ZRI3R2WYOJF") {
		t.Errorf("the manifest keeps the agent command's secret:\n%s", manifest)
	}

	var out strings.Builder
	p := Player{Dir: rec, Root: clone, Cursor: filepath.Join(t.TempDir(), "cursor.json"), Run: "replay-1", Out: &out, Own: ".ralph"}
	code, sig, err := p.Play(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if code != 3 || sig != 0 {
		t.Errorf("exit %d, signal %v; want 3, none", code, sig)
	}
	if strings.Contains(out.String(), "AKIAZ7FK4ZRI3R2WYOJF") || !strings.Contains(out.String(), "<promise>SUCCESS</promise>\n") {
		t.Errorf("output %q: want the key redacted and the promise whole", out.String())
	}
	got, err := gitsnap.CheckpointNow(ctx, clone)
	if err != nil {
		t.Fatal(err)
	}
	if got != want {
		t.Errorf("the clone is at %+v after the replay, want the recorded %+v", got, want)
	}
	if log := git(t, clone, "log", "-1", "--format=%s"); log != "the agent's commit" {
		t.Errorf("HEAD is %q", log)
	}
	// the wrapper commit of the change is not left for `git log --all` to show
	if refs := git(t, clone, "for-each-ref", "--format=%(refname)", "refs/ralph/"); refs != "" {
		t.Errorf("the replay left refs behind: %s", refs)
	}

	// the same run asks for the next attempt: there is none
	_, _, err = p.Play(ctx)
	if !errors.Is(err, ErrRanOut) || !strings.Contains(err.Error(), "holds 1 attempts, and this run asks for attempt 2") {
		t.Errorf("err = %v, want ErrRanOut", err)
	}
	// a new run starts over, and finds the repository where attempt 1 ended: nothing to do
	p.Run = "replay-2"
	if _, _, err := p.Play(ctx); err != nil {
		t.Errorf("played again on its own result: %v", err)
	}
}

// On another state than the recorded one (a prompt edited, a commit made since), the
// attempt's change is carried over: its commit made again on HEAD, its work tree merged
// with what is there; a change that conflicts is refused.
func TestPlayCarriesTheChangeOverOrRefuses(t *testing.T) {
	ctx := context.Background()
	dir, clone := repoAndClone(t)
	rec := filepath.Join(t.TempDir(), "rec")
	recordOne(t, ctx, dir, rec)
	play := func(run string) error {
		p := Player{Dir: rec, Root: clone, Cursor: filepath.Join(t.TempDir(), "cursor.json"), Run: run, Out: io.Discard, Own: ".ralph"}
		_, _, err := p.Play(ctx)
		return err
	}
	writeFile(t, clone, "PROMPT.md", "committed prompt\n")
	git(t, clone, "add", "PROMPT.md")
	git(t, clone, "commit", "-q", "-m", "a prompt")
	writeFile(t, clone, "PROMPT.md", "edited prompt\n")
	if err := play("carry"); err != nil {
		t.Fatal(err)
	}
	if log := git(t, clone, "log", "--format=%s"); log != "the agent's commit\na prompt\nbase" {
		t.Errorf("history after the replay:\n%s", log)
	}
	for name, want := range map[string]string{"a.txt": "two\n", "notes.txt": "uncommitted\n", "PROMPT.md": "edited prompt\n"} {
		if got, _ := os.ReadFile(filepath.Join(clone, name)); string(got) != want {
			t.Errorf("%s = %q, want %q", name, got, want)
		}
	}

	_, other := repoAndClone(t)
	clone = other
	writeFile(t, clone, "a.txt", "three\n")
	err := play("conflict")
	if err == nil || !strings.Contains(err.Error(), "its change does not apply to this repository") || !strings.Contains(err.Error(), "conflicts in a.txt") {
		t.Errorf("err = %v, want a conflict in a.txt", err)
	}
	if got, _ := os.ReadFile(filepath.Join(clone, "a.txt")); string(got) != "three\n" {
		t.Errorf("a refused replay changed a.txt to %q", got)
	}
}

func TestCreateGoesOnOrRefuses(t *testing.T) {
	ctx := context.Background()
	dir, _ := repoAndClone(t)
	rec := filepath.Join(t.TempDir(), "rec")
	recordOne(t, ctx, dir, rec)
	r, err := Create(ctx, rec, dir, Manifest{Agent: "claude"})
	if err != nil {
		t.Fatal(err)
	}
	if r.next != 2 {
		t.Errorf("a continued recording's next attempt is %d, want 2", r.next)
	}
	if _, err := Create(ctx, rec, dir, Manifest{Agent: "codex"}); err == nil || !strings.Contains(err.Error(), `agent "claude"`) {
		t.Errorf("another agent: err = %v", err)
	}
	other := t.TempDir()
	if err := gitops.Init(ctx, other, "main"); err != nil {
		t.Fatal(err)
	}
	git(t, other, "commit", "-q", "--allow-empty", "-m", "another project")
	if _, err := Create(ctx, rec, other, Manifest{Agent: "claude"}); !errors.Is(err, ErrOtherRepository) {
		t.Errorf("another repository: err = %v", err)
	}
	full := t.TempDir()
	writeFile(t, full, "thesis.tex", "keep me")
	if _, err := Create(ctx, full, dir, Manifest{}); !errors.Is(err, ErrNotRecording) {
		t.Errorf("a directory of something else: err = %v", err)
	}
}

// A take that is discarded (an interrupted attempt) leaves no attempt and no number used.
func TestDiscardedTakeLeavesNothing(t *testing.T) {
	ctx := context.Background()
	dir, _ := repoAndClone(t)
	rec := filepath.Join(t.TempDir(), "rec")
	r, err := Create(ctx, rec, dir, Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	take, err := r.Begin(ctx, "run", 1, 1, "p")
	if err != nil {
		t.Fatal(err)
	}
	take.Discard()
	entries, _ := os.ReadDir(filepath.Join(rec, attemptsDir))
	if len(entries) != 0 || Count(rec) != 0 {
		t.Errorf("a discarded take left %v", entries)
	}
}

func TestSignalsOfRecordings(t *testing.T) {
	if signalOf("SIGKILL") != syscall.SIGKILL || signalOf("SIGWINCH") != 0 {
		t.Error("signalOf")
	}
}

// A runaway agent's output is kept up to what a replay reads, and the recording still reads.
func TestRecordingKeepsOutputWithinItsBound(t *testing.T) {
	defer func(old int64) { maxOutput = old }(maxOutput)
	maxOutput = 10
	ctx := context.Background()
	dir, _ := repoAndClone(t)
	rec := filepath.Join(t.TempDir(), "rec")
	r, err := Create(ctx, rec, dir, Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	take, err := r.Begin(ctx, "run", 1, 1, "p")
	if err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(take.Output(), "0123456\n")
	fmt.Fprintf(take.Output(), "789abcdef\n")
	if err := take.End(ctx, Result{}); err != nil {
		t.Fatal(err)
	}
	chunks, err := ReadOutput(rec, 1)
	if err != nil {
		t.Fatal(err)
	}
	var got string
	for _, c := range chunks {
		got += string(c.Data)
	}
	if got != "0123456\n78" {
		t.Errorf("kept %q, want the first 10 bytes", got)
	}
}

// A take whose output could not be written whole (a full disk) is not kept as a complete
// attempt: its timing would not describe its output, and a replay would refuse it later.
func TestTakeThatFailedToWriteItsOutputIsNotKept(t *testing.T) {
	ctx := context.Background()
	dir, _ := repoAndClone(t)
	rec := filepath.Join(t.TempDir(), "rec")
	r, err := Create(ctx, rec, dir, Manifest{})
	if err != nil {
		t.Fatal(err)
	}
	take, err := r.Begin(ctx, "run", 1, 1, "p")
	if err != nil {
		t.Fatal(err)
	}
	// every write to timing.txt fails from now on (its close does not)
	take.timing.Close()
	if take.timing, err = os.Open(filepath.Join(take.tmp, timingFile)); err != nil {
		t.Fatal(err)
	}
	fmt.Fprintf(take.Output(), "some output\n")
	if err := take.End(ctx, Result{}); err == nil {
		t.Error("End kept an attempt whose timing.txt could not be written")
	}
	if Count(rec) != 0 {
		t.Errorf("a take that failed to write left attempt %d", Count(rec))
	}
}
