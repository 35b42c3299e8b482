package realagents

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// ralphBin is the git-ralph binary under test, built once by TestMain.
var ralphBin string

func TestMain(m *testing.M) {
	flag.Parse()
	if skipReason() != "" {
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "realagents-bin-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ralphBin = filepath.Join(dir, "git-ralph")
	build := exec.Command("go", "build", "-o", ralphBin, "../cmd/git-ralph")
	build.Stdout, build.Stderr = os.Stdout, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "building git-ralph:", err)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// skipReason says why the real CLIs are not run: -short, or RALPH_REAL_AGENTS=skip for
// a machine that cannot reach npm.
func skipReason() string {
	switch {
	case testing.Short():
		return "-short"
	case os.Getenv("RALPH_REAL_AGENTS") == "skip":
		return "RALPH_REAL_AGENTS=skip"
	}
	return ""
}

// run is one `git ralph loop` of a real CLI against its mock, in a repository and a
// HOME of its own.
type run struct {
	t      *testing.T
	cli    agentCLI
	mock   *mock
	root   string // the temporary directory holding home and repo
	home   string
	repo   string
	env    []string
	marker string // in the environment of every process of this run: see leftovers
}

// newRun installs the CLI if needed, starts its mock with script, and makes a fresh
// repository with one commit and a PROMPT_build.md.
func newRun(t *testing.T, c agentCLI, script []turn) *run {
	t.Helper()
	bin, _ := installed(t, c.preset)
	root := t.TempDir()
	r := &run{t: t, cli: c, root: root, home: filepath.Join(root, "home"), repo: filepath.Join(root, "repo")}
	r.marker = fmt.Sprintf("REALAGENTS_RUN=%s-%d", strings.ReplaceAll(t.Name(), "/", "-"), time.Now().UnixNano())
	r.mock = startMock(t, script, c.api)
	for _, d := range []string{r.home, r.repo, filepath.Join(r.home, "tmp")} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	gitconfig := filepath.Join(r.home, ".gitconfig")
	writeFile(t, gitconfig, "[user]\n\tname = Ralph Test\n\temail = ralph@example.com\n[init]\n\tdefaultBranch = main\n")
	r.env = []string{
		"PATH=" + bin + ":" + filepath.Dir(ralphBin) + ":" + os.Getenv("PATH"),
		"HOME=" + r.home,
		"TMPDIR=" + filepath.Join(r.home, "tmp"),
		"XDG_CONFIG_HOME=" + filepath.Join(r.home, ".config"),
		"XDG_CACHE_HOME=" + filepath.Join(r.home, ".cache"),
		"XDG_DATA_HOME=" + filepath.Join(r.home, ".local", "share"),
		"XDG_STATE_HOME=" + filepath.Join(r.home, ".local", "state"),
		"GIT_CONFIG_GLOBAL=" + gitconfig,
		"GIT_CONFIG_NOSYSTEM=1",
		"GIT_CEILING_DIRECTORIES=" + root,
		"LANG=C.UTF-8",
		"TERM=dumb",
		"NO_COLOR=1",
		// a limit's stated reset is a few seconds away: wait for it without the usual
		// 30 s margin; back off quickly after errors
		"RALPH_BACKOFF_BASE=200ms",
		"RALPH_BACKOFF_MAX=1s",
		r.marker,
	}
	r.env = append(r.env, c.configure(t, r.home, r.mock.URL())...)
	r.git("init", "-q")
	writeFile(t, filepath.Join(r.repo, "PROMPT_build.md"), buildPrompt)
	writeFile(t, filepath.Join(r.repo, "README.md"), "# a project\n")
	r.git("add", "-A")
	r.git("commit", "-q", "-m", "start")
	t.Cleanup(func() { r.checkNoLeftovers() })
	return r
}

const buildPrompt = `Add a file agent.txt and commit it.
When the work is done, print <promise>SUCCESS</promise> on its own line.
`

// result is what one git-ralph command did.
type result struct {
	code           int
	stdout, stderr string
	took           time.Duration
}

func (res result) String() string {
	return fmt.Sprintf("exit %d after %s\n--- stdout\n%s--- stderr\n%s", res.code, res.took.Round(time.Millisecond), res.stdout, res.stderr)
}

// ralph runs git-ralph with args in the repository, as a user would, and returns what
// it did; a run that has not ended after 4 minutes is a failure of the test.
func (r *run) ralph(args ...string) result {
	r.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, ralphBin, args...)
	cmd.Dir = r.repo
	cmd.Env = r.env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	start := time.Now()
	err := cmd.Run()
	res := result{stdout: stdout.String(), stderr: stderr.String(), took: time.Since(start)}
	var exit *exec.ExitError
	switch {
	case ctx.Err() != nil:
		r.t.Fatalf("git-ralph %s did not end in 4 minutes\n%s", strings.Join(args, " "), res)
	case errors.As(err, &exit):
		res.code = exit.ExitCode()
	case err != nil:
		r.t.Fatalf("git-ralph %s: %v", strings.Join(args, " "), err)
	}
	r.t.Logf("git-ralph %s: exit %d after %s", strings.Join(args, " "), res.code, res.took.Round(time.Millisecond))
	return res
}

// loop runs `git ralph loop --agent PRESET` with extra args.
func (r *run) loop(args ...string) result {
	r.t.Helper()
	return r.ralph(append([]string{"loop", "--agent", r.cli.preset}, args...)...)
}

// git runs git in the repository and returns its output.
func (r *run) git(args ...string) string {
	r.t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = r.repo
	cmd.Env = r.env
	out, err := cmd.CombinedOutput()
	if err != nil {
		r.t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// record is the part of an iteration's history record the scenarios check.
type record struct {
	Iteration      int     `json:"iteration"`
	Outcome        string  `json:"outcome"`
	Signal         string  `json:"signal"`
	ExitCode       int     `json:"exit_code"`
	TimedOut       bool    `json:"timed_out"`
	RateLimitWaits int     `json:"rate_limit_waits"`
	Retries        int     `json:"retries"`
	InputTokens    int64   `json:"input_tokens"`
	OutputTokens   int64   `json:"output_tokens"`
	CacheRead      int64   `json:"cache_read_tokens"`
	CacheWrite     int64   `json:"cache_write_tokens"`
	CostUSD        float64 `json:"cost_usd"`
	CommitBefore   string  `json:"commit_before"`
	CommitAfter    string  `json:"commit_after"`
	FilesChanged   int     `json:"files_changed"`
	Error          string  `json:"error"`
	Until          string  `json:"until"`
	Judge          *struct {
		Verdict      string  `json:"verdict"`
		Reasons      string  `json:"reasons"`
		Error        string  `json:"error"`
		InputTokens  int64   `json:"input_tokens"`
		OutputTokens int64   `json:"output_tokens"`
		CostUSD      float64 `json:"cost_usd"`
	} `json:"judge"`
	Attempts []struct {
		Attempt      int     `json:"attempt"`
		ExitCode     int     `json:"exit_code"`
		Retried      string  `json:"retried"`
		InputTokens  int64   `json:"input_tokens"`
		OutputTokens int64   `json:"output_tokens"`
		CostUSD      float64 `json:"cost_usd"`
		Error        string  `json:"error"`
	} `json:"attempts"`
}

// history returns `git ralph history --json`.
func (r *run) history() []record {
	r.t.Helper()
	res := r.ralph("history", "--json")
	if res.code != 0 {
		r.t.Fatalf("git ralph history --json:\n%s", res)
	}
	var recs []record
	if err := json.Unmarshal([]byte(res.stdout), &recs); err != nil {
		r.t.Fatalf("git ralph history --json: %v\n%s", err, res.stdout)
	}
	return recs
}

// output returns what the agent printed in iteration n, as `git ralph logs N` shows it.
func (r *run) output(n int) []byte {
	r.t.Helper()
	res := r.ralph("logs", strconv.Itoa(n))
	if res.code != 0 {
		r.t.Fatalf("git ralph logs %d:\n%s", n, res)
	}
	return []byte(res.stdout)
}

// leftovers returns the processes of this run still alive: those whose environment
// holds the run's marker (every process the CLI starts inherits it).
func (r *run) leftovers() []string {
	var out []string
	procs, _ := filepath.Glob("/proc/[0-9]*/environ")
	for _, p := range procs {
		env, err := os.ReadFile(p)
		if err != nil || !bytes.Contains(env, []byte(r.marker+"\x00")) {
			continue
		}
		pid := filepath.Base(filepath.Dir(p))
		cmdline, _ := os.ReadFile(filepath.Join("/proc", pid, "cmdline"))
		out = append(out, pid+" "+strings.ReplaceAll(strings.TrimRight(string(cmdline), "\x00"), "\x00", " "))
	}
	return out
}

// checkNoLeftovers fails the test when a process of the run outlived it; git-ralph's
// grace period for a stopped agent is a few seconds, so it is given that long.
func (r *run) checkNoLeftovers() {
	deadline := time.Now().Add(8 * time.Second)
	for {
		left := r.leftovers()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			r.t.Errorf("processes of the run are still alive after git-ralph ended:\n%s", strings.Join(left, "\n"))
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}
