package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// fakeCLIs are programs named like the real agent CLIs, on PATH in every story, so that
// `git ralph loop --agent claude` runs the preset's real command line against them.
var fakeCLIs = []string{"claude", "codex", "gemini", "opencode", "aider", "cursor-agent", "copilot", "amp", "kiro-cli"}

// fakeCLI plays back recorded output. FAKE_<NAME> (FAKE_CURSOR_AGENT for cursor-agent)
// lists one fixture per attempt, comma-separated; the last one repeats. A fixture is a
// file in agents/testdata or an absolute path; "name:CODE" exits with CODE (default 0,
// or 1 for a name with "limit", "error" or "not-logged-in" in it). In a fixture,
// {{now+N}} becomes the epoch second N seconds from now, so reset times lie ahead.
// Each run appends its arguments to $TMPDIR/fake-NAME.args and saves its stdin (the
// prompt) to $TMPDIR/fake-NAME.prompt.N.
func fakeCLI(name string, args []string) int {
	tmp := os.TempDir()
	n := nextAttempt(filepath.Join(tmp, "fake-"+name+".count"))
	prompt, _ := io.ReadAll(os.Stdin)
	os.WriteFile(filepath.Join(tmp, fmt.Sprintf("fake-%s.prompt.%d", name, n)), prompt, 0o644)
	appendLine(filepath.Join(tmp, "fake-"+name+".args"), strings.Join(args, " "))
	list := os.Getenv("FAKE_" + strings.ToUpper(strings.ReplaceAll(name, "-", "_")))
	if list == "" {
		fmt.Fprintf(os.Stderr, "fake %s: set FAKE_%s to the fixtures to play\n", name, strings.ToUpper(name))
		return 2
	}
	fixtures := strings.Split(list, ",")
	fixture := fixtures[min(n, len(fixtures))-1]
	file, code := fixtureAndCode(fixture)
	data, err := os.ReadFile(file)
	if err != nil {
		fmt.Fprintf(os.Stderr, "fake %s: %v\n", name, err)
		return 2
	}
	os.Stdout.Write(expandNow(data))
	return code
}

func fixtureAndCode(fixture string) (string, int) {
	code := 0
	if strings.Contains(fixture, "limit") || strings.Contains(fixture, "error") || strings.Contains(fixture, "not-logged-in") {
		code = 1
	}
	if i := strings.LastIndexByte(fixture, ':'); i > 0 {
		if c, err := strconv.Atoi(fixture[i+1:]); err == nil {
			fixture, code = fixture[:i], c
		}
	}
	if !filepath.IsAbs(fixture) {
		fixture = filepath.Join(os.Getenv("AGENT_FIXTURES"), fixture)
	}
	return fixture, code
}

var nowPlus = regexp.MustCompile(`\{\{now\+(\d+)\}\}`)

func expandNow(data []byte) []byte {
	return nowPlus.ReplaceAllFunc(data, func(m []byte) []byte {
		secs, _ := strconv.Atoi(string(nowPlus.FindSubmatch(m)[1]))
		return []byte(strconv.FormatInt(time.Now().Unix()+int64(secs), 10))
	})
}

// nextAttempt counts the runs of one fake program in a story.
func nextAttempt(path string) int {
	data, _ := os.ReadFile(path)
	n, _ := strconv.Atoi(strings.TrimSpace(string(data)))
	os.WriteFile(path, []byte(strconv.Itoa(n+1)), 0o644)
	return n + 1
}

func appendLine(path, line string) {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err == nil {
		fmt.Fprintln(f, line)
		f.Close()
	}
}
