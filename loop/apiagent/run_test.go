package apiagent

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/gitops/gittest"
)

var protocols = []string{Anthropic, Responses, Chat}

// everyTool is a task done with every tool: a file written, listed, read, edited,
// found, searched, then committed with bash, and the promise said.
func everyTool() []step {
	return []step{
		{thinking: "I should look first.", text: "Writing the file.", in: 1000, out: 50, cacheWrite: 200, calls: []call{
			{toolWrite, obj{"path": "docs/hello.txt", "content": "hello\nworld\n"}},
			{toolList, obj{"path": "docs"}},
		}},
		{in: 100, out: 40, cacheRead: 1200, calls: []call{
			{toolRead, obj{"path": "docs/hello.txt", "offset": 2, "limit": 1}},
			{toolEdit, obj{"path": "docs/hello.txt", "old_text": "world", "new_text": "git-ralph"}},
			{toolGlob, obj{"pattern": "**/*.txt"}},
			{toolGrep, obj{"pattern": "RALPH", "ignore_case": true}},
		}},
		{in: 80, out: 30, cacheRead: 1400, calls: []call{
			{toolBash, obj{"command": "git add docs/hello.txt && git commit -qm 'Add hello' && git log --format=%s -1"}},
		}},
		{text: "Committed hello.txt. <promise>SUCCESS</promise>", in: 60, out: 20, cacheRead: 1500},
	}
}

func TestRunDoesATaskWithEveryToolAndCommits(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			dir := gittest.NewRepo(t)
			m := newMock(t, proto, everyTool()...)
			res, err, recs, _ := runMock(t, m, dir, nil)
			if err != nil {
				t.Fatalf("Run: %v", err)
			}
			if got := gittest.Git(t, dir, "log", "--format=%s", "-1"); got != "Add hello" {
				t.Errorf("the last commit is %q, want the one the model made through bash", got)
			}
			if got := gittest.Git(t, dir, "show", "HEAD:docs/hello.txt"); got != "hello\ngit-ralph" {
				t.Errorf("the committed file is %q, want it written and edited", got)
			}
			if res.Turns != 4 || !strings.Contains(res.Said, "<promise>SUCCESS</promise>") || !strings.HasPrefix(res.Said, "Writing the file.") {
				t.Errorf("turns %d, said %q", res.Turns, res.Said)
			}
			if strings.Contains(res.Said, "look first") || strings.Contains(res.Said, "hello\nworld") {
				t.Errorf("Said has the thinking or a tool's result: %q", res.Said)
			}
			if res.Final != "Committed hello.txt. <promise>SUCCESS</promise>" {
				t.Errorf("Final = %q", res.Final)
			}
			want := Usage{Input: 1240, Output: 140, CacheRead: 4100}
			if proto == Anthropic {
				want.CacheWrite = 200
			}
			if res.Usage != want {
				t.Errorf("usage %+v, want %+v (the cache apart from the input)", res.Usage, want)
			}
			checkResults(t, recs)
			checkRequests(t, m, proto)
		})
	}
}

// checkResults checks what the tools told the model, as the exchange records it.
func checkResults(t *testing.T, recs []Record) {
	t.Helper()
	results := ofType(recs, RecToolResult)
	calls := ofType(recs, RecToolCall)
	if len(results) != 7 || len(calls) != 7 {
		t.Fatalf("%d tool calls and %d results recorded, want 7 of each", len(calls), len(results))
	}
	for i, want := range []string{
		"created docs/hello.txt (12 bytes)", "hello.txt (12 bytes)", "     2\tworld", "replaced 1 occurrence in docs/hello.txt",
		"docs/hello.txt", "docs/hello.txt:2: git-ralph", "exit code 0\nAdd hello",
	} {
		if results[i].IsError || !strings.Contains(results[i].Output, want) || results[i].ID != calls[i].ID {
			t.Errorf("result %d (%s): %q (error %v), want %q", i, results[i].Name, results[i].Output, results[i].IsError, want)
		}
	}
	if th := ofType(recs, RecThinking); len(th) != 1 || th[0].Text != "I should look first." {
		t.Errorf("thinking records: %+v", th)
	}
	if len(ofType(recs, RecUsage)) != 4 || len(ofType(recs, RecEnd)) != 1 || recs[0].Type != RecStart {
		t.Errorf("the exchange lacks its start, a turn's usage or its end: %+v", recs)
	}
}

// checkRequests checks what the model was sent: the key in the vendor's header, the
// system prompt, the tools, and each tool's result going back under its call's id.
func checkRequests(t *testing.T, m *mock, proto string) {
	t.Helper()
	h := m.heads[0]
	if proto == Anthropic && (h.Get("x-api-key") != testKey || h.Get("anthropic-version") == "") ||
		proto != Anthropic && h.Get("Authorization") != "Bearer "+testKey {
		t.Errorf("the request's headers do not carry the key as %s takes it: %v", proto, h)
	}
	first, last := m.body(0), m.body(3)
	for _, want := range []string{"<promise>SUCCESS</promise>", `"name":"bash"`, `"name":"edit_file"`, "Add hello.txt and commit it.", `"stream":true`} {
		if !strings.Contains(first, want) {
			t.Errorf("the first request lacks %s: %s", want, first)
		}
	}
	callID := map[string]string{Anthropic: `"tool_use_id":"toolu_2_0"`, Responses: `"call_id":"call_2_0"`, Chat: `"tool_call_id":"call_2_0"`}[proto]
	if !strings.Contains(last, callID) || !strings.Contains(last, `exit code 0\nAdd hello`) {
		t.Errorf("the last request lacks the bash call's result under its id %s: %s", callID, last)
	}
	if strings.Contains(last, `"id":"fc_`) || strings.Contains(last, `"id":"msg_`) {
		t.Errorf("the conversation sends back ids of items the server did not store: %s", last)
	}
	if proto == Responses && !strings.Contains(last, `"encrypted_content":"ZW5j"`) {
		t.Errorf("the encrypted reasoning is not sent back: %s", last)
	}
	if proto == Anthropic && strings.Count(last, `"cache_control"`) != 2 {
		t.Errorf("the request does not mark the system prompt and the last block, and only them, for the cache: %s", last)
	}
	if proto == Anthropic && !strings.Contains(last, `"signature":"c2ln"`) {
		t.Errorf("the signed thinking is not sent back: %s", last)
	}
}

// A path the file tools refuse is the model's to hear about, not the iteration's end.
func TestRefusedPathsAreToldToTheModel(t *testing.T) {
	for _, proto := range protocols {
		t.Run(proto, func(t *testing.T) {
			dir := gittest.NewRepo(t)
			outside := filepath.Join(filepath.Dir(dir), "outside.txt")
			os.WriteFile(outside, []byte("secret"), 0o644)
			m := newMock(t, proto,
				step{calls: []call{
					{toolRead, obj{"path": "../outside.txt"}},
					{toolWrite, obj{"path": ".git/hooks/pre-commit", "content": "#!/bin/sh\n"}},
					{"rm_rf", obj{"path": "."}},
					{toolEdit, `{"path": "a.txt", "old_te`},
				}},
				step{text: "I cannot."})
			res, err, recs, _ := runMock(t, m, dir, nil)
			if err != nil || res.Turns != 2 {
				t.Fatalf("Run: %v after %d turns, want the iteration to go on after refusals", err, res.Turns)
			}
			results := ofType(recs, RecToolResult)
			for i, want := range []string{"outside the work tree", "inside .git", `there is no tool "rm_rf"`, "not the JSON object it takes"} {
				if !results[i].IsError || !strings.Contains(results[i].Output, want) {
					t.Errorf("result %d: %q (error %v), want a refusal saying %q", i, results[i].Output, results[i].IsError, want)
				}
				if !strings.Contains(m.body(1), jsonText(want)) {
					t.Errorf("the model was not told %q", want)
				}
			}
			if _, err := os.Stat(filepath.Join(dir, ".git/hooks/pre-commit")); err == nil {
				t.Errorf("a hook was written into .git")
			}
		})
	}
}

// jsonText is s as it appears inside a JSON string.
func jsonText(s string) string {
	b := mustJSON(s)
	return string(b[1 : len(b)-1])
}

// A Responses server that streams no output items still lists them in
// response.completed: the reply is read from there.
func TestResponsesOutputFromTheCompletedResponse(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"type":"response.completed","response":{"status":"completed","output":[{"type":"message","role":"assistant","content":[{"type":"output_text","text":"<promise>SUCCESS</promise>"}]}],"usage":{"input_tokens":10,"output_tokens":3}}}`+"\n\n")
	}))
	defer srv.Close()
	res, err := Run(t.Context(), Request{Protocol: Responses, Model: "m", BaseURL: srv.URL, WorkTree: gittest.NewRepo(t), Prompt: "p"})
	if err != nil || res.Said != "<promise>SUCCESS</promise>" || res.Usage.Input != 10 {
		t.Errorf("Run: %v, said %q, usage %+v", err, res.Said, res.Usage)
	}
}

// The exchange's lines carry the whole result: read back, they give what Run returned.
func TestReadExchangeGivesRunsResult(t *testing.T) {
	for _, tc := range []struct {
		proto string
		steps []step
	}{
		{Anthropic, everyTool()},
		{Chat, append(everyTool()[:2], step{status: 401, body: `{"error":{"message":"Incorrect API key provided","code":"invalid_api_key"}}`})},
		{Responses, []step{{status: 429, headers: map[string]string{"retry-after": "60"}, body: openAIRateLimit}}},
	} {
		m := newMock(t, tc.proto, tc.steps...)
		res, _, _, text := runMock(t, m, gittest.NewRepo(t), func(r *Request) { r.Retries = -1 })
		got, err := ReadExchange(strings.NewReader(text))
		if err != nil {
			t.Fatalf("ReadExchange: %v", err)
		}
		if got.Said != res.Said || got.Final != res.Final || got.Turns != res.Turns || got.Usage != res.Usage || got.Model != res.Model ||
			(got.Err == nil) != (res.Err == nil) || got.Err != nil && (got.Err.Kind != res.Err.Kind || got.Err.Message != res.Err.Message || !got.Err.ResetAt.Equal(res.Err.ResetAt)) {
			t.Errorf("%s: read back %+v (err %v), Run returned %+v (err %v)", tc.proto, got, got.Err, res, res.Err)
		}
	}
	if _, err := ReadExchange(strings.NewReader("{\"type\":\"start\"}\nnot json\n")); err == nil || !strings.Contains(err.Error(), "line 2") {
		t.Errorf("a bad line: %v", err)
	}
}

func TestTheExchangeShowsNoPasswordOfTheURL(t *testing.T) {
	if got := redactedURL("https://user:hunter22@proxy.example/v1"); strings.Contains(got, "hunter22") || !strings.Contains(got, "proxy.example") {
		t.Errorf("redactedURL: %q", got)
	}
}

// A compatible server that ends its stream right after the finish reason, even within
// its last event ("data: [DONE]" without the blank line), has answered whole.
func TestChatStreamEndingAfterItsFinishReason(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{"content":"<promise>SUCCESS</promise>"},"finish_reason":null}]}`+"\n\n")
		io.WriteString(w, `data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}`+"\n\n")
		io.WriteString(w, "data: [DONE]")
	}))
	defer srv.Close()
	res, err := Run(t.Context(), Request{Protocol: Chat, Model: "m", BaseURL: srv.URL, WorkTree: gittest.NewRepo(t), Prompt: "p", Retries: -1})
	if err != nil || res.Said != "<promise>SUCCESS</promise>" {
		t.Errorf("Run: %v, said %q", err, res.Said)
	}
}
