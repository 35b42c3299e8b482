package agentcli

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// FuzzRead feeds arbitrary output to every preset's reader: whatever an agent prints,
// reading it must not panic (the loop would die mid-run), and at most one verdict comes
// back.
func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.json*"))
	for _, name := range files {
		if data, err := os.ReadFile(name); err == nil {
			f.Add(data, 1)
		}
	}
	f.Add([]byte(`{"type":"result","result":null,"usage":{"input_tokens":"x"}}`), 0)
	f.Add([]byte(`{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":1e308}}`), 1)
	now := time.Date(2026, 11, 21, 12, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, output []byte, exit int) {
		done := make(chan struct{})
		defer close(done)
		go func() {
			// A hang, not a slow machine: a 17 KB seed read by all nine presets took
			// 1.8 s under -race on two loaded cores, where it takes 0.15 s alone.
			select {
			case <-done:
			case <-time.After(15 * time.Second):
				panic(fmt.Sprintf("reading took over 15s: exit %d, output %q", exit, output))
			}
		}()
		for _, name := range Names() {
			p, _ := Lookup(name)
			r := p.Read(output, exit, now)
			verdicts := 0
			for _, set := range []bool{r.Limit != nil, r.Transient != "", r.Fatal != ""} {
				if set {
					verdicts++
				}
			}
			if verdicts > 1 {
				t.Fatalf("%s: more than one verdict: %+v", name, r)
			}
		}
		ReadText(output, exit, now)
	})
}
