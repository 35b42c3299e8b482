package realagents

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// pinned is one line of versions.txt: which package and version the tests install for
// a preset.
type pinned struct {
	preset, pkg, version string
}

// versionsFile is the one place the CLIs' versions are pinned.
const versionsFile = "versions.txt"

// readVersions reads versions.txt. With RALPH_AGENT_VERSIONS=latest every version is
// replaced by the newest one npm knows (scripts/agents-latest.sh).
func readVersions() (map[string]pinned, error) {
	data, err := os.ReadFile(versionsFile)
	if err != nil {
		return nil, err
	}
	out := map[string]pinned{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want 'preset package version', got %q", versionsFile, n, line)
		}
		out[f[0]] = pinned{preset: f[0], pkg: f[1], version: f[2]}
	}
	return out, sc.Err()
}

// cacheDir is where the CLIs are installed, outside the repository and kept between
// runs: $RALPH_AGENT_CACHE, else the user's cache directory.
func cacheDir() (string, error) {
	if dir := os.Getenv("RALPH_AGENT_CACHE"); dir != "" {
		return dir, nil
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(base, "git-ralph", "agent-clis"), nil
}

var (
	installMu sync.Mutex
	installs  = map[string]*installation{}
)

type installation struct {
	once   sync.Once
	binDir string
	err    error
}

// installed returns the directory holding the CLI's program, installing the pinned
// version from npm first when the cache does not have it. Every test of one CLI waits
// for the same installation.
func installed(t *testing.T, preset string) (string, pinned) {
	t.Helper()
	versions, err := readVersions()
	if err != nil {
		t.Fatal(err)
	}
	p, ok := versions[preset]
	if !ok {
		t.Fatalf("%s has no line for %s", versionsFile, preset)
	}
	if os.Getenv("RALPH_AGENT_VERSIONS") == "latest" {
		p.version = "latest"
	}
	installMu.Lock()
	in := installs[preset]
	if in == nil {
		in = &installation{}
		installs[preset] = in
	}
	installMu.Unlock()
	in.once.Do(func() { in.binDir, in.err = install(t, p) })
	if in.err != nil {
		t.Fatalf("installing %s@%s from npm: %v", p.pkg, p.version, in.err)
	}
	return in.binDir, p
}

// install puts p into the cache with npm, into a fresh directory renamed into place
// when complete, so an interrupted install is never taken for a finished one.
func install(t *testing.T, p pinned) (string, error) {
	cache, err := cacheDir()
	if err != nil {
		return "", err
	}
	if err := os.MkdirAll(cache, 0o755); err != nil {
		return "", err
	}
	unlock, err := lockDir(cache)
	if err != nil {
		return "", err
	}
	defer unlock()
	clearInterrupted(t, cache)
	if p.version == "latest" {
		if p.version, err = newest(p.pkg); err != nil {
			return "", err
		}
	}
	dir := filepath.Join(cache, strings.NewReplacer("/", "+", "@", "").Replace(p.pkg)+"@"+p.version)
	bin := filepath.Join(dir, "node_modules", ".bin")
	if _, err := os.Stat(filepath.Join(bin, p.preset)); err == nil {
		return bin, nil
	}
	tmp, err := os.MkdirTemp(cache, ".installing-")
	if err != nil {
		return "", err
	}
	defer os.RemoveAll(tmp)
	t.Logf("installing %s@%s into %s", p.pkg, p.version, dir)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "install", "--prefix", tmp, "--no-audit", "--no-fund",
		"--loglevel=error", p.pkg+"@"+p.version)
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("%v\n%s", err, out)
	}
	os.RemoveAll(dir) // a leftover without the program
	if err := os.Rename(tmp, dir); err != nil {
		return "", err
	}
	if _, err := os.Stat(filepath.Join(bin, p.preset)); err != nil {
		return "", fmt.Errorf("npm installed %s@%s but there is no %s program: %v", p.pkg, p.version, p.preset, err)
	}
	return bin, nil
}

// clearInterrupted removes what installs killed before their end left in the cache
// (hundreds of MB each; a Ctrl+C during npm install skips the deferred removal). Called
// with the cache locked: no other install is under way.
func clearInterrupted(t *testing.T, cache string) {
	left, _ := filepath.Glob(filepath.Join(cache, ".installing-*"))
	for _, dir := range left {
		if err := os.RemoveAll(dir); err != nil {
			t.Logf("removing an interrupted install: %v", err)
		}
	}
}

// newest asks npm for the newest published version of pkg. It is asked with the cache
// locked, so it is bounded: without a network npm retries for minutes.
func newest(pkg string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "view", pkg, "version")
	cmd.WaitDelay = time.Second
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("npm view %s version: %v\n%s", pkg, err, stderr.Bytes())
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("npm view %s version: no version", pkg)
	}
	return v, nil
}

// lockDir holds an exclusive lock on dir's .lock file: two test processes (this
// package's tests and scripts/agents-latest.sh, say) never install into it at once.
func lockDir(dir string) (func(), error) {
	f, err := os.OpenFile(filepath.Join(dir, ".lock"), os.O_CREATE|os.O_RDWR, 0o644)
	if err != nil {
		return nil, err
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX); err != nil {
		f.Close()
		return nil, err
	}
	return func() { f.Close() }, nil
}
