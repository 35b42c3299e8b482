package agentcli

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// What the real qwen-code printed in each scenario of the realagents tests (against a
// mock of the Chat Completions API, RALPH_REALAGENTS_RECORD), read with the qwen preset,
// whose reader is Claude Code's: qwen-code's stream-json has its shape (system/init,
// assistant, user, result). The exit codes are the recorded ones (exits.txt).
var recordedQwen = []struct {
	file  string
	want  want
	usage *Usage
}{
	// The result's usage is the session's: unlike claude's, its input_tokens include
	// the cached ones (the mock's prompt_tokens, 1000 + 1100), which it also reports as
	// cache_read_input_tokens. No cost: qwen-code prints none.
	{"success-1-1.out", want{structured: true,
		saidExactly: ptr("Adding agent.txt.\nI added agent.txt and committed it.\n<promise>SUCCESS</promise>")},
		&Usage{InputTokens: 1000 + 1100, OutputTokens: 40 + 41, CacheReadTokens: 100 + 110, Model: "mock-coder"}},
	// The tags are in the thinking, the tool's input and its output only.
	{"tags-not-in-words-1-1.out", want{structured: true,
		saidExactly: ptr("I wrote a note. The work is not finished yet."), notSaid: []string{"<promise>"}},
		&Usage{InputTokens: 1000 + 1100, OutputTokens: 40 + 41, CacheReadTokens: 100 + 110, Model: "mock-coder"}},
	// A 401: an assistant message and an error result with the provider's words, exit 1.
	{"bad-credentials-1-1.out", want{structured: true, isError: true,
		fatal: "[API Error: 401 Incorrect API key provided: sk-mock-**********6789.", err: "Incorrect API key provided"},
		&Usage{Model: "mock-coder"}},
	// 500, then 503: qwen-code retried them itself, silently, and went on.
	{"server-errors-1-1.out", want{structured: true, said: []string{"<promise>SUCCESS</promise>"}},
		&Usage{InputTokens: 1200 + 1300, OutputTokens: 42 + 43, CacheReadTokens: 120 + 130, Model: "mock-coder"}},
	// The stream never ended and the timeout killed qwen-code: no words, no verdict.
	{"hung-stream-1-1.out", want{structured: true, saidExactly: ptr("")}, &Usage{Model: "mock-coder"}},
}

func TestReadRecordedQwen(t *testing.T) {
	dir := filepath.Join("testdata", "recorded", "qwen")
	exits := recordedExits(t, dir)
	if len(exits) != len(recordedQwen) {
		t.Errorf("%s/exits.txt has %d recordings, the table %d", dir, len(exits), len(recordedQwen))
	}
	for _, f := range recordedQwen {
		t.Run(strings.TrimSuffix(f.file, ".out"), func(t *testing.T) {
			output, err := os.ReadFile(filepath.Join(dir, f.file))
			if err != nil {
				t.Fatal(err)
			}
			exit, ok := exits[f.file]
			if !ok {
				t.Fatalf("%s/exits.txt has no exit code for %s", dir, f.file)
			}
			got := read(t, "qwen", output, exit)
			check(t, got, f.want)
			if got.Usage != *f.usage {
				t.Errorf("Usage = %+v, want %+v", got.Usage, *f.usage)
			}
		})
	}
}
