package agentcli

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"
)

// assertPlain fails when rendered holds anything a terminal would act on: a control
// character other than the line breaks and tabs, or an invalid byte.
func assertPlain(t *testing.T, rendered string) {
	t.Helper()
	if !utf8.ValidString(rendered) {
		t.Fatalf("invalid UTF-8 in the rendering: %q", rendered)
	}
	for _, r := range rendered {
		if r != '\n' && r != '\t' && r != ' ' && !unicode.IsPrint(r) {
			t.Fatalf("%U reaches the terminal: %q", r, rendered)
		}
	}
}

func TestRenderNeutralisesControlCharacters(t *testing.T) {
	evil := "done\x1b]0;pwned\x07\r\x1b[2Kall good \u202eevil\xff"
	quoted, _ := json.Marshal(evil) // JSON spells \xff as \ufffd
	jsonEvil := string(quoted[1 : len(quoted)-1])
	for _, tc := range []struct {
		name   string
		format Format
		input  string
		want   string // a substring of the rendering: the escape spelled out
	}{
		{"claude text", ClaudeStream, `{"type":"assistant","message":{"content":[{"type":"text","text":"` + jsonEvil + `"}]}}`, `done\x1b]0;pwned\a\r\x1b[2Kall good \u202eevil`},
		{"claude tool target", ClaudeStream, `{"type":"assistant","message":{"content":[{"type":"tool_use","id":"t","name":"Bash","input":{"command":"` + jsonEvil + `"}}]}}`, `▸ Bash  done\x1b]0;pwned`},
		{"claude failed tool", ClaudeStream, `{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":"` + jsonEvil + `"}]}}`, `↳ error · 1 line`},
		{"codex error", CodexJSON, `{"type":"error","message":"` + jsonEvil + `"}`, `! done\x1b]0;pwned`},
		{"gemini delta", GeminiStream, `{"type":"message","role":"assistant","delta":true,"content":"` + jsonEvil + `"}`, `done\x1b]0;pwned`},
		{"not an event", ClaudeStream, evil, `done\x1b]0;pwned\a\r\x1b[2Kall good \u202eevil\xff`},
		{"plain text agent", Text, evil, `done\x1b]0;pwned\a\r\x1b[2Kall good \u202eevil\xff`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := renderAll([]byte(tc.input+"\n"), tc.format, 1<<20)
			assertPlain(t, got)
			if !strings.Contains(got, tc.want) {
				t.Errorf("want %q in the rendering, got %q", tc.want, got)
			}
		})
	}
}

func TestRenderMalformedAndPartialLines(t *testing.T) {
	input := strings.Join([]string{
		`{"type":"assistant","message":{"content":[{"type":"text","text":"first"}]}}`,
		`{"type":"assistant","message":`,            // cut short: shown raw
		`{"no_type":true}`,                          // JSON, but not an event
		`{"type":"assistant","message":"a string"}`, // an event of an unexpected shape: nothing to show
		`{"type":"never_heard_of_it","x":1}`,        // an event git-ralph does not know
		`[1,2,3]`,
		`plain stderr line`,
		`{"type":"assistant","message":{"content":[{"type":"text","text":"last"}]}}`,
		`{"type":"result","is_er`, // the stream ends mid-line, without a line break
	}, "\n")
	got := renderAll([]byte(input), ClaudeStream, 5)
	want := strings.Join([]string{
		"first",
		`{"type":"assistant","message":`,
		`{"no_type":true}`,
		`[1,2,3]`,
		"plain stderr line",
		"last",
		`{"type":"result","is_er`,
	}, "\n") + "\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderHugeToolOutputShowsItsSizeOnly(t *testing.T) {
	body := strings.Repeat("secret file contents line\n", 80_000) // 2.0 MiB
	event := []byte(`{"type":"user","message":{"content":[{"type":"tool_result","tool_use_id":"t","content":` +
		strings.ReplaceAll(`"`+strings.ReplaceAll(body, "\n", `\n`)+`"`, "\n", "") + `}]}}` + "\n")
	got := renderAll(event, ClaudeStream, 64<<10)
	if got != "  ↳ 80000 lines, 2.0 MiB\n" {
		t.Errorf("got %q", got)
	}

	// a line too long to hold is not parsed: its size shows, and the next line renders
	long := bytes.Repeat([]byte("x"), maxRenderLine+100)
	next := `{"type":"assistant","message":{"content":[{"type":"text","text":"after"}]}}`
	got = renderAll(append(append(long, '\n'), next+"\n"...), ClaudeStream, 1<<20)
	if got != "[a line of 8.0 MiB, too long to show]\nafter\n" {
		t.Errorf("got %q", got)
	}
}

func TestRenderGeminiChunksJoinIntoLines(t *testing.T) {
	input := `{"type":"message","role":"assistant","delta":true,"content":"Adding a"}
{"type":"message","role":"assistant","delta":true,"content":"gent.txt.\nThen com"}
{"type":"message","role":"assistant","delta":true,"content":"mitting"}
{"type":"tool_use","tool_name":"run_shell_command","tool_id":"t1","parameters":{"command":"git commit"}}
{"type":"tool_result","tool_id":"t1","status":"error","output":"","error":{"type":"x","message":"nothing to commit"}}
{"type":"message","role":"assistant","delta":true,"content":"no newline at the end"}
`
	got := renderAll([]byte(input), GeminiStream, 3)
	want := "Adding agent.txt.\nThen committing\n▸ run_shell_command  git commit\n  ↳ error · 1 line, 17 B: nothing to commit\nno newline at the end\n"
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

func TestRenderTextPassesThrough(t *testing.T) {
	got := renderAll([]byte("line one\n\n{\"type\":\"assistant\"}\ntail"), Text, 4)
	if got != "line one\n\n{\"type\":\"assistant\"}\ntail\n" {
		t.Errorf("got %q", got)
	}
}

// FuzzRender feeds arbitrary output to every format's renderer, cut at an arbitrary
// place: it must not panic, and what it renders must be plain.
func FuzzRender(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json*"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data, 7)
		}
	}
	f.Add([]byte(`{"type":"user","message":{"content":[{"type":"tool_result","content":[{"text":1}]}]}}`), 3)
	f.Add([]byte(`{"type":"item.completed","item":{"type":"command_execution","exit_code":"x"}}`), 1)
	f.Add([]byte(`{"type":"tool_call","name":"bash\u001b[2J","input":"rm -rf /\r"}`+"\n"+`{"type":"end","usage":{"input_tokens":-1},"cost_usd":1e308}`), 5)
	f.Fuzz(func(t *testing.T, output []byte, size int) {
		size = max(1, size%4096)
		for _, format := range []Format{Text, ClaudeStream, CodexJSON, GeminiStream, OpencodeJSON, CopilotJSON, QwenStream, PiJSON, APIExchange} {
			assertPlain(t, renderAll(output, format, size))
		}
	})
}

// Each run's output is rendered afresh after Flush: its own usage (opencode's is summed
// over steps), its own errors (a repeated error is shown once per run, not once ever).
func TestRenderWriterFlushStartsANewRun(t *testing.T) {
	run, err := os.ReadFile(filepath.Join("testdata", "recorded", "opencode", "success-1-1.out"))
	if err != nil {
		t.Fatal(err)
	}
	run = append(run, `{"type":"error","error":{"name":"APIError","data":{"message":"boom"}}}`+"\n"...)
	var b bytes.Buffer
	rw := NewRenderWriter(&b, OpencodeJSON)
	rw.Write(run)
	rw.Flush()
	first := b.String()
	rw.Write(run)
	rw.Flush()
	if b.String() != first+first {
		t.Errorf("the second run rendered differently:\n%s", b.String()[len(first):])
	}
	if !strings.Contains(first, "= tokens: 1,890 in, 81 out") || !strings.Contains(first, "! boom") {
		t.Errorf("first run:\n%s", first)
	}
}

// codex's items that take a while show when they start, their result when they end;
// those that come only finished show both at once.
func TestRenderCodexItems(t *testing.T) {
	input := `{"type":"item.started","item":{"id":"i1","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"query":"kong flags"},"status":"in_progress"}}
{"type":"item.completed","item":{"id":"i1","type":"mcp_tool_call","server":"docs","tool":"search","arguments":{"query":"kong flags"},"status":"completed"}}
{"type":"item.completed","item":{"id":"i2","type":"command_execution","command":"bash -lc 'go vet ./...'","aggregated_output":"vet: x.go:1: bad\n","exit_code":1,"status":"failed"}}
{"type":"item.completed","item":{"id":"i3","type":"file_change","changes":[{"path":"a.go","kind":"update"},{"path":"b.go","kind":"add"}],"status":"completed"}}
{"type":"turn.failed","error":{"message":"stream disconnected"}}
`
	got := renderAll([]byte(input), CodexJSON, 11)
	want := `▸ docs.search  kong flags
  ↳ completed
▸ shell  go vet ./...
  ↳ exit 1 · 1 line, 17 B: vet: x.go:1: bad
▸ edit  update a.go, add b.go
  ↳ completed
! stream disconnected
`
	if got != want {
		t.Errorf("got:\n%s\nwant:\n%s", got, want)
	}
}

// A long line that is not an event (an event cut short by a crash or a dropped chunk,
// often a tool's output) shows its beginning and its size, not all of it.
func TestRenderCutsALongBrokenLine(t *testing.T) {
	broken := `{"type":"user","message":{"content":[{"type":"tool_result","content":"` + strings.Repeat("é", 100_000)
	got := renderAll([]byte(broken+"\n"), ClaudeStream, 4096)
	if len(got) > 1100 || !strings.HasPrefix(got, `{"type":"user"`) || !strings.HasSuffix(got, " KiB more]\n") {
		t.Errorf("got %d bytes: %.200q…%q", len(got), got, got[max(0, len(got)-40):])
	}
	assertPlain(t, got)
	if !utf8.ValidString(got) {
		t.Error("cut in the middle of a character")
	}
}
