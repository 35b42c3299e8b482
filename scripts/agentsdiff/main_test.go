package main

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
)

// Two runs of the same scenario differ in ids, times, durations, token counts and
// paths; their shapes must not.
func TestShapeIgnoresWhatChangesFromRunToRun(t *testing.T) {
	run1 := `{"type":"assistant.turn_start","data":{"turnId":"0","interactionId":"8dcc4fc8-12bc-4566-ad0d-006c0527407b"},"id":"7b1132e8-4998-4b40-b9d9-e5c738a90437","timestamp":"2026-11-23T04:59:41.219Z"}
{"type":"assistant.message_delta","data":{"deltaContent":"Add"},"ephemeral":true}
{"type":"assistant.message_delta","data":{"deltaContent":"ing"},"ephemeral":true}
{"type":"session.error","data":{"errorType":"rate_limit","message":"Failed to get response from the AI model; retried 5 times (total retry wait time: 53.94 seconds) Last error: 429 You exceeded your current quota","statusCode":429}}
Package extraction took 6936ms in /root/.cache/copilot/pkg
{"type":"result","sessionId":"e84e6da2-6bad-4cdd-9c64-08b65c85a6d2","exitCode":1,"usage":{"premiumRequests":0,"totalApiDurationMs":28}}
`
	run2 := `{"type":"assistant.turn_start","data":{"turnId":"0","interactionId":"11111111-2222-4333-8444-555555555555"},"id":"a3648f40-0ae8-4200-acb9-79deaa3163de","timestamp":"2026-11-24T10:00:00.001Z"}
{"type":"assistant.message_delta","data":{"deltaContent":"Adding"},"ephemeral":true}
{"type":"session.background_tasks_changed","data":{},"ephemeral":true}
{"type":"session.error","data":{"errorType":"rate_limit","message":"Failed to get response from the AI model; retried 5 times (total retry wait time: 60.2 seconds) Last error: 429 You exceeded your current quota","statusCode":429}}
Package extraction took 512ms in /home/u/.cache/copilot/pkg
{"type":"result","sessionId":"00000000-6bad-4cdd-9c64-08b65c85a6d2","exitCode":1,"usage":{"premiumRequests":0,"totalApiDurationMs":9000}}
`
	a, b := shape([]byte(run1)), shape([]byte(run2))
	if !slices.Equal(a, b) {
		t.Errorf("the shapes of two runs that behaved alike differ:\n%s\n---\n%s", strings.Join(a, "\n"), strings.Join(b, "\n"))
	}
	want := []string{
		"assistant.turn_start",
		"assistant.message_delta",
		"session.error errorType=rate_limit: Failed to get response from the AI model; retried N times (total retry wait time: N seconds) Last error: N You exceeded your current quota",
		"text: Package extraction took Nms in PATH",
		"result",
	}
	if !slices.Equal(a, want) {
		t.Errorf("shape:\n%s\nwant:\n%s", strings.Join(a, "\n"), strings.Join(want, "\n"))
	}
}

// What a new version does differently shows: a renamed event, a changed message.
func TestShapeShowsChangedBehaviour(t *testing.T) {
	before := shape([]byte(`{"type":"error","message":"Reconnecting... 2/5"}` + "\n" + `{"type":"turn.failed","error":{"message":"stream disconnected"}}` + "\n"))
	for _, after := range []string{
		`{"type":"error","message":"Reconnecting... 2/5"}` + "\n" + `{"type":"turn.error","error":{"message":"stream disconnected"}}`,
		`{"type":"error","message":"Reconnecting... 2/5"}` + "\n" + `{"type":"turn.failed","error":{"message":"connection lost"}}`,
		`{"type":"error","message":"Reconnecting... 2/5"}`,
	} {
		if slices.Equal(before, shape([]byte(after))) {
			t.Errorf("the change to %q does not show", after)
		}
	}
}

func TestWriteVersionsKeepsTheFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "versions.txt")
	orig := "# pinned\nclaude    @anthropic-ai/claude-code  2.1.197\ncopilot   @github/copilot            1.0.102\n"
	if err := os.WriteFile(path, []byte(orig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := writeVersions(path, map[string]string{"claude": "2.1.330", "copilot": "1.0.102"}); err != nil {
		t.Fatal(err)
	}
	got, _ := os.ReadFile(path)
	want := "# pinned\nclaude    @anthropic-ai/claude-code  2.1.330\ncopilot   @github/copilot            1.0.102\n"
	if string(got) != want {
		t.Errorf("versions.txt:\n%s\nwant:\n%s", got, want)
	}
}

func TestReadResults(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.log")
	log := `=== RUN   TestRealAgents/copilot/success
    --- PASS: TestRealAgents/copilot/success (9.26s)
        --- SKIP: TestRealAgents/copilot/limit-reset (0.00s)
        --- FAIL: TestRealAgents/claude-subscriber/quota (64.01s)
--- FAIL: TestRealAgents (0.00s)
`
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := readResults(path)
	if err != nil {
		t.Fatal(err)
	}
	if res["copilot"]["success"] != "PASS" || res["copilot"]["limit-reset"] != "SKIP" ||
		res["claude-subscriber"]["quota"] != "FAIL" || len(res) != 2 {
		t.Errorf("results: %v", res)
	}
}

func TestCopyRecordingsReplacesTheFixtures(t *testing.T) {
	src, dst := t.TempDir(), t.TempDir()
	t.Setenv("RALPH_AGENT_CACHE", "/cache/agent-clis")
	write := func(dir, name, content string) {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(src, "success-1-1.out", `{"path":"/cache/agent-clis/x@1/pkg"}`+"\n")
	write(src, "exits.txt", "success-1-1.out 0\nquota-1-1.out 1\n")
	write(src, "quota-1-1.out", "no quota\n")
	write(dst, "gone-1-1.out", "an old scenario\n")
	if err := copyRecordings(src, dst); err != nil {
		t.Fatal(err)
	}
	files, _ := filepath.Glob(filepath.Join(dst, "*"))
	for i := range files {
		files[i] = filepath.Base(files[i])
	}
	if !slices.Equal(files, []string{"exits.txt", "quota-1-1.out", "success-1-1.out"}) {
		t.Errorf("files: %v", files)
	}
	got, _ := os.ReadFile(filepath.Join(dst, "success-1-1.out"))
	if string(got) != `{"path":"$CACHE/x@1/pkg"}`+"\n" {
		t.Errorf("the cache path is not replaced: %s", got)
	}
	exits, _ := os.ReadFile(filepath.Join(dst, "exits.txt"))
	if string(exits) != "quota-1-1.out 1\nsuccess-1-1.out 0\n" {
		t.Errorf("exits.txt not sorted: %q", exits)
	}
}

// A CLI that retries while an error lasts prints a cycle of events as many times as
// timing allows: the shape keeps the cycle once.
func TestShapeKeepsARetryCycleOnce(t *testing.T) {
	cycle := `{"type":"model.call_start"}
{"type":"model.call_failure","data":{"errorType":"server_error","errorMessage":"500"}}
{"type":"assistant.turn_retry","data":{"reason":"api_error"}}
`
	end := `{"type":"assistant.message","data":{"content":"done"}}` + "\n"
	twice, thrice := shape([]byte(cycle+cycle+end)), shape([]byte(cycle+cycle+cycle+end))
	if !slices.Equal(twice, thrice) || len(twice) != 4 {
		t.Errorf("two and three retries differ:\n%s\n---\n%s", strings.Join(twice, "\n"), strings.Join(thrice, "\n"))
	}
}

// A failed scenario's own messages are shown, not the routine log lines nor what the
// other scenarios running beside it said.
func TestReadFailures(t *testing.T) {
	path := filepath.Join(t.TempDir(), "run.log")
	log := `=== CONT  TestRealAgents/copilot/quota
=== NAME  TestRealAgents/copilot/success
    scenarios_test.go:88: git-ralph loop --agent copilot --max 2: exit 0 after 3.9s
    scenarios_test.go:99: unrelated log of a scenario that passed
=== NAME  TestRealAgents/amp/success
    install_test.go:97: installing @ampcode/cli@latest from npm: npm installed it but there is no amp program
=== NAME  TestRealAgents/copilot/quota
    install_test.go:134: installing @github/copilot@1.0.92 into /cache
    scenarios_test.go:175: git-ralph loop --agent copilot --max 3 did not end in 4 minutes
        exit 0 after 4m0.009s
    scenarios_test.go:77: the mock served: [{...}]
--- FAIL: TestRealAgents (0.00s)
    --- FAIL: TestRealAgents/copilot (0.00s)
        --- PASS: TestRealAgents/copilot/success (3.60s)
        --- FAIL: TestRealAgents/copilot/quota (240.66s)
    --- FAIL: TestRealAgents/amp (0.00s)
        --- FAIL: TestRealAgents/amp/success (9.00s)
`
	if err := os.WriteFile(path, []byte(log), 0o644); err != nil {
		t.Fatal(err)
	}
	res, err := readResults(path)
	if err != nil {
		t.Fatal(err)
	}
	why, err := readFailures(path, res)
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"scenarios_test.go:175: git-ralph loop --agent copilot --max 3 did not end in 4 minutes", "exit 0 after 4m0.009s"}
	amp := []string{"install_test.go:97: installing @ampcode/cli@latest from npm: npm installed it but there is no amp program"}
	if !slices.Equal(why["copilot/quota"], want) || !slices.Equal(why["amp/success"], amp) || len(why) != 2 {
		t.Errorf("failures: %q", why)
	}
}

// npm without a network: its own words reach the user, and a hung npm is given up on.
func TestNpmNewestWithoutANetwork(t *testing.T) {
	bin := t.TempDir()
	npm := "#!/bin/sh\nif [ \"$2\" = hang ]; then sleep 30; fi\n" +
		"echo 'npm error code ENOTFOUND' >&2; echo 'npm error network request failed' >&2; exit 1\n"
	if err := os.WriteFile(filepath.Join(bin, "npm"), []byte(npm), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+":"+os.Getenv("PATH"))
	if _, err := npmNewest("@openai/codex"); err == nil || !strings.Contains(err.Error(), "ENOTFOUND") {
		t.Errorf("want npm's own words in the error, got %v", err)
	}
	defer func(d time.Duration) { npmTimeout = d }(npmTimeout)
	npmTimeout = 200 * time.Millisecond
	start := time.Now()
	if _, err := npmNewest("hang"); err == nil || !strings.Contains(err.Error(), "no answer") {
		t.Errorf("want an error for a hung npm, got %v", err)
	}
	if took := time.Since(start); took >= 30*time.Second { // what the hung npm takes
		t.Errorf("a hung npm held the report for %s, past its 200ms bound", took)
	}
}
