package redact

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// agentOutput is about size bytes of what agents print: stream-JSON lines with token
// counts (keywords of the assigned-secret rule on every line), prose, code with "key"
// and "token" in it, and now and then a secret.
func agentOutput(size int) []byte {
	var b strings.Builder
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, `{"type":"assistant","message":{"content":[{"type":"text","text":"Reading src/handler_%d.go to find where the session key is refreshed"}],"usage":{"input_tokens":%d,"output_tokens":%d}}}`+"\n", i, 1000+i, i%700)
		fmt.Fprintf(&b, "    func (s *Store) tokenFor(key string) (string, error) { return s.cache[key], nil } // line %d\n", i)
		if i%500 == 0 {
			fmt.Fprintf(&b, "export ANTHROPIC_API_KEY=%s\n", anthropicKey)
		}
	}
	return []byte(b.String())
}

// BenchmarkOutputLog compares writing a 10 MB agent output to a file in the 64 KiB
// pieces the agent's pipe delivers, plain and through a Writer (see docs/dev/benchmarks.md).
func BenchmarkOutputLog(b *testing.B) {
	out := agentOutput(10 << 20)
	for _, redacted := range []bool{false, true} {
		name := "plain"
		if redacted {
			name = "redacted"
		}
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(out)))
			path := filepath.Join(b.TempDir(), "output.log")
			for b.Loop() {
				f, err := os.Create(path)
				if err != nil {
					b.Fatal(err)
				}
				var w io.Writer = f
				var rw *Writer
				if redacted {
					rw = NewWriter(f)
					w = rw
				}
				for p := out; len(p) > 0; {
					k := min(64<<10, len(p))
					w.Write(p[:k])
					p = p[k:]
				}
				if rw != nil {
					rw.Flush()
				}
				f.Close()
			}
		})
	}
}
