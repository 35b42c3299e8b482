package agentcli

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// renderedFixtures are the recorded outputs the rendering is checked on, with the
// preset each is read with: the realagents recordings of the real CLIs, then the older
// single fixtures of the structured formats.
func renderedFixtures(t *testing.T) map[string]string {
	t.Helper()
	dirs := map[string]string{"claude": "claude", "claude-subscriber": "claude", "codex": "codex",
		"copilot": "copilot", "copilot-anthropic": "copilot", "gemini": "gemini", "opencode": "opencode",
		"pi": "pi", "qwen": "qwen", "api": "openai-chat"}
	files := map[string]string{}
	for dir, preset := range dirs {
		outs, _ := filepath.Glob(filepath.Join("testdata", "recorded", dir, "*.out"))
		for _, f := range outs {
			files[f] = preset
		}
	}
	singles, _ := filepath.Glob(filepath.Join("testdata", "*.jsonl"))
	for _, f := range singles {
		name := filepath.Base(f)
		for _, preset := range []string{"claude", "codex", "gemini", "opencode", "copilot", "amp", "cursor"} {
			if strings.HasPrefix(name, preset+"-") {
				files[f] = preset
			}
		}
	}
	if len(files) < 60 {
		t.Fatalf("found %d fixtures to render; the testdata moved?", len(files))
	}
	return files
}

// renderAll renders output as a stream would bring it, in pieces of size bytes.
func renderAll(output []byte, f Format, size int) string {
	var b bytes.Buffer
	rw := NewRenderWriter(&b, f)
	for len(output) > 0 {
		n := min(size, len(output))
		rw.Write(output[:n])
		output = output[n:]
	}
	rw.Flush()
	return b.String()
}

// TestRenderRecorded renders every recorded output and compares it with its golden file
// under testdata/rendered (UPDATE_RENDERED=1 writes them). The rendering must not depend
// on how the stream was cut into writes.
func TestRenderRecorded(t *testing.T) {
	for file, preset := range renderedFixtures(t) {
		t.Run(file, func(t *testing.T) {
			p, ok := Lookup(preset)
			if !ok {
				t.Fatalf("no preset %q", preset)
			}
			output, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			got := renderAll(output, p.Format, len(output)+1)
			if other := renderAll(output, p.Format, 7); other != got {
				t.Fatalf("rendered in 7-byte writes:\n%s\nin one write:\n%s", other, got)
			}
			golden := filepath.Join("testdata", "rendered", strings.TrimPrefix(file, "testdata"+string(filepath.Separator))+".txt")
			if os.Getenv("UPDATE_RENDERED") == "1" {
				os.MkdirAll(filepath.Dir(golden), 0o755)
				if err := os.WriteFile(golden, []byte(got), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("%v (UPDATE_RENDERED=1 writes it)", err)
			}
			if got != string(want) {
				t.Errorf("rendering of %s differs from %s (UPDATE_RENDERED=1 rewrites it):\n%s", file, golden, got)
			}
			if strings.Contains("\n"+got, "\n"+`{"type"`) {
				t.Errorf("raw JSON in the rendering:\n%s", got)
			}
		})
	}
}

// BenchmarkRenderClaude measures the rendering of a claude stream, against copying it raw:
// the live copy's goroutine does this work, off the capture path.
func BenchmarkRenderClaude(b *testing.B) {
	one, err := os.ReadFile(filepath.Join("testdata", "recorded", "claude", "success-1-1.out"))
	if err != nil {
		b.Fatal(err)
	}
	stream := bytes.Repeat(one, 200) // ~1 MiB
	b.Run("raw", func(b *testing.B) {
		b.SetBytes(int64(len(stream)))
		for b.Loop() {
			var out bytes.Buffer
			for rest := stream; len(rest) > 0; {
				n := min(64<<10, len(rest))
				out.Write(rest[:n])
				rest = rest[n:]
			}
		}
	})
	b.Run("rendered", func(b *testing.B) {
		b.SetBytes(int64(len(stream)))
		for b.Loop() {
			renderAll(stream, ClaudeStream, 64<<10)
		}
	})
}
