package agentcli

import (
	"runtime"
	"strings"
	"testing"
	"time"
)

func TestUsageLines(t *testing.T) {
	for _, tc := range []struct {
		name   string
		output string
		want   Usage
		ok     bool
	}{
		{"none", "working\n<promise>SUCCESS</promise>\n", Usage{}, false},
		{"one", "working\n{\"ralph_usage\":{\"input_tokens\":120,\"output_tokens\":45,\"cost_usd\":0.0123,\"model\":\"m1\"}}\n",
			Usage{InputTokens: 120, OutputTokens: 45, CostUSD: 0.0123, HasCost: true, Model: "m1"}, true},
		{"summed, spaces and CRLF", "  {\"ralph_usage\": {\"cost_usd\": 0.5}}\r\nx\n{\"ralph_usage\":{\"cost_usd\":0.25,\"input_tokens\":10}}",
			Usage{InputTokens: 10, CostUSD: 0.75, HasCost: true}, true},
		{"tokens only", `{"ralph_usage":{"output_tokens":7}}`, Usage{OutputTokens: 7}, true},
		{"negative ignored", `{"ralph_usage":{"cost_usd":-5}}` + "\n" + `{"ralph_usage":{"cost_usd":1}}`, Usage{CostUSD: 1, HasCost: true}, true},
		{"negative tokens ignored", `{"ralph_usage":{"input_tokens":-5}}`, Usage{}, false},
		{"another key beside it", `{"ralph_usage":{"cost_usd":1},"x":1}`, Usage{}, false},
		{"unknown field", `{"ralph_usage":{"cost":1}}`, Usage{}, false},
		{"trailing text", `{"ralph_usage":{"cost_usd":1}} and more`, Usage{}, false},
		{"inside other text", `echo {"ralph_usage":{"cost_usd":1}}`, Usage{}, false},
		{"wrong type", `{"ralph_usage":{"cost_usd":"1"}}`, Usage{}, false},
		{"huge", `{"ralph_usage":{"cost_usd":1e300}}`, Usage{}, false},
		// two lines that would wrap the sum around to a negative count and lower the spend
		{"huge tokens ignored", `{"ralph_usage":{"input_tokens":1000}}` + "\n" +
			`{"ralph_usage":{"input_tokens":5000000000000000000}}` + "\n" + `{"ralph_usage":{"input_tokens":5000000000000000000}}`,
			Usage{InputTokens: 1000}, true},
		{"null", `{"ralph_usage":null}`, Usage{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := UsageLines([]byte(tc.output))
			if got != tc.want || ok != tc.ok {
				t.Errorf("UsageLines = %+v, %v; want %+v, %v", got, ok, tc.want, tc.ok)
			}
		})
	}
}

// A custom command reports usage whatever its exit code; a preset's reader ignores the line.
func TestUsageLineOnlyForCustomCommands(t *testing.T) {
	out := []byte("{\"ralph_usage\":{\"cost_usd\":0.5}}\nerror: something broke\n")
	for _, code := range []int{0, 1} {
		if rep := ReadText(out, code, time.Now()); rep.Usage.CostUSD != 0.5 {
			t.Errorf("ReadText, exit %d: usage %+v", code, rep.Usage)
		}
	}
	for _, name := range []string{"claude", "aider", "kiro-cli"} {
		p, _ := Lookup(name)
		if rep := p.Read(out, 0, time.Now()); rep.Usage.HasCost {
			t.Errorf("preset %s took the ralph_usage line: %+v", name, rep.Usage)
		}
	}
}

// Reading a plain-text agent's kept output (10 MiB by default) does not copy it: a copy
// (once two) came on top of the kept output in git-ralph's peak memory.
func TestReadTextDoesNotCopyTheOutput(t *testing.T) {
	output := []byte(strings.Repeat("a line of agent output\n", 1<<16) + "<promise>SUCCESS</promise>\n")
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	rep := ReadText(output, 0, time.Now())
	runtime.ReadMemStats(&after)
	if !strings.HasSuffix(rep.Said, "<promise>SUCCESS</promise>\n") || len(rep.Final) != len(output) {
		t.Fatalf("ReadText lost the output: said %d bytes, final %d, of %d", len(rep.Said), len(rep.Final), len(output))
	}
	if grew := after.TotalAlloc - before.TotalAlloc; grew > uint64(len(output))/4 {
		t.Errorf("reading %d bytes of output allocated %d bytes", len(output), grew)
	}
}
