package ledger

import (
	"strings"
	"testing"
	"time"
)

var sample = Entry{Run: "20261121T210017Z-13bbdd78", Iteration: 3, Record: 17, Mode: "build", Agent: "claude",
	Model: "claude-sonnet-4-5", Started: time.Date(2026, 11, 21, 21, 0, 17, 0, time.UTC),
	Duration: 83456 * time.Millisecond, Outcome: "success", Validation: "passed", Input: 12345, Output: 678,
	CacheRead: 9000, CacheWrite: 100, CostUSD: 0.4213, CostReported: true, Before: strings.Repeat("ab", 20), Commits: 2,
	SimilarMessage: 93, SimilarValidation: 100, Repeats: 2, Judge: "FAIL", JudgeTokens: 1280, JudgeCostUSD: 0.012}

func TestFormatReadsWell(t *testing.T) {
	want := `git-ralph ledger v1
run: 20261121T210017Z-13bbdd78
iteration: 3
record: 17
mode: build
agent: claude
model: claude-sonnet-4-5
started: 2026-11-21T21:00:17Z
duration: 1m23.456s
outcome: success
validation: passed
input_tokens: 12345
output_tokens: 678
cache_read_tokens: 9000
cache_write_tokens: 100
cost_usd: 0.4213
before: abababababababababababababababababababab
commits: 2
similarity_message: 93
similarity_validation: 100
repeats: 2
judge: FAIL
judge_tokens: 1280
judge_cost_usd: 0.012
`
	if got := Format(sample); got != want {
		t.Fatalf("Format:\n%s\nwant:\n%s", got, want)
	}
}

func TestRoundTrip(t *testing.T) {
	minimal := Entry{Run: "r", Iteration: 1, Mode: "plan", Outcome: "failure"}
	for name, e := range map[string]Entry{"full": sample, "minimal": minimal} {
		t.Run(name, func(t *testing.T) {
			got, bad := Parse(Format(e))
			if len(bad) != 0 || len(got) != 1 || got[0] != e {
				t.Fatalf("Parse(Format(e)) = %+v, %v; want %+v", got, bad, e)
			}
		})
	}
}

func TestFormatCleansValues(t *testing.T) {
	e := sample
	e.Model = "evil\n\x1b[2Jmodel\u202e"
	e.Validation = strings.Repeat("é", 400)
	got, bad := Parse(Format(e))
	if len(bad) != 0 || len(got) != 1 {
		t.Fatalf("Parse: %v %v", got, bad)
	}
	if got[0].Model != "evil??[2Jmodel?" {
		t.Errorf("model = %q", got[0].Model)
	}
	if len(got[0].Validation) > maxValue || !strings.HasPrefix(got[0].Validation, "éé") {
		t.Errorf("validation = %q", got[0].Validation)
	}
}

func TestParseSeveralEntriesAndRepeats(t *testing.T) {
	other := sample
	other.Run, other.Iteration = "other", 1
	note := Format(sample) + "\n" + Format(other) + "\n" + Format(sample)
	got, bad := Parse(note)
	if len(bad) != 0 || len(got) != 2 || got[0].Run != sample.Run || got[1].Run != "other" {
		t.Fatalf("Parse = %+v, %v", got, bad)
	}
}

func TestParseIsStrict(t *testing.T) {
	good := Format(Entry{Run: "r", Iteration: 1, Mode: "build", Outcome: "success"})
	for name, tc := range map[string]struct{ note, reason string }{
		"not ours":          {"LGTM, reviewed by Bob\n", `not a git-ralph ledger entry (it starts "LGTM, reviewed by Bob")`},
		"newer version":     {strings.Replace(good, "v1", "v2", 1), "ledger format v2 is newer"},
		"bad version":       {strings.Replace(good, "v1", "v1x", 1), "not a git-ralph ledger entry"},
		"no colon":          {good + "oops\n", `line 7: not a ` + "`key: value`" + ` line: "oops"`},
		"upper-case key":    {good + "Cost: 3\n", "not a `key: value` line"},
		"twice":             {good + "run: s\n", "line 7: run is given twice"},
		"missing":           {strings.Replace(good, "mode: build\n", "", 1), "the entry has no mode"},
		"negative tokens":   {good + "input_tokens: -5\n", `input_tokens: "-5" is not a whole number`},
		"huge count":        {strings.Replace(good, "iteration: 1", "iteration: 99999999999999999999", 1), "iteration"},
		"zero iteration":    {strings.Replace(good, "iteration: 1", "iteration: 0", 1), "out of range"},
		"bad cost":          {good + "cost_usd: NaN\n", `cost_usd: "NaN" is not an amount`},
		"exp cost":          {good + "cost_usd: 1e300\n", "not an amount"},
		"bad duration":      {strings.Replace(good, "duration: 0s", "duration: -3s", 1), "not a duration"},
		"bad time":          {good + "started: yesterday\n", "not a time"},
		"bad hash":          {good + "before: HEAD\n", "not a commit hash"},
		"escape in value":   {strings.Replace(good, "mode: build", "mode: bu\x1b[2Jild", 1), "does not print"},
		"bidi in value":     {strings.Replace(good, "mode: build", "mode: bu\u202eild", 1), "does not print"},
		"carriage return":   {strings.ReplaceAll(good, "\n", "\r\n"), `it starts "git-ralph ledger v1\r"`},
		"spaces":            {strings.Replace(good, "mode: build", "mode:  build", 1), "spaces around it"},
		"invalid utf-8":     {good + "model: \xff\n", "not valid UTF-8"},
		"too large":         {strings.Repeat("x", MaxNote+1), "more than the 65536"},
		"long value":        {good + "model: " + strings.Repeat("m", maxValue+1) + "\n", "longer than 500"},
		"empty value":       {good + "model: \n", "the value is empty"},
		"header only":       {"git-ralph ledger v1\n", "the entry has no run"},
		"leading zero plus": {strings.Replace(good, "iteration: 1", "iteration: +1", 1), "not a whole number"},
		"percent over 100":  {good + "similarity_message: 101\n", "out of range"},
		"percent zero":      {good + "similarity_validation: 0\n", "out of range"},
	} {
		t.Run(name, func(t *testing.T) {
			got, bad := Parse(tc.note)
			if len(got) != 0 || len(bad) != 1 || !strings.Contains(bad[0].Reason, tc.reason) {
				t.Fatalf("Parse = %+v, %+v; want one unreadable with %q", got, bad, tc.reason)
			}
		})
	}
}

func TestParseSkipsUnknownKeys(t *testing.T) {
	// a field added later in v1 (say, similarity) must not make older readers refuse the entry
	got, bad := Parse(Format(sample) + "similarity: 0.87\n")
	if len(bad) != 0 || len(got) != 1 || got[0] != sample {
		t.Fatalf("Parse = %+v, %v", got, bad)
	}
}

func TestParseKeepsGoodEntriesBesideBadOnes(t *testing.T) {
	got, bad := Parse("free text\n\n" + Format(sample))
	if len(got) != 1 || len(bad) != 1 {
		t.Fatalf("Parse = %+v, %v", got, bad)
	}
}

func TestParseBoundsEntries(t *testing.T) {
	var b strings.Builder
	for i := range maxEntries + 5 {
		b.WriteString("x" + strings.Repeat("y", i%7) + string(rune('a'+i%26)) + string(rune('a'+i/26%26)) + "\n\n")
	}
	got, bad := Parse(b.String())
	if len(got)+len(bad) > maxEntries+1 || !strings.Contains(bad[len(bad)-1].Reason, "the rest is not read") {
		t.Fatalf("%d entries, %d unreadable, last %v", len(got), len(bad), bad[len(bad)-1])
	}
}

func TestTotals(t *testing.T) {
	var tot Totals
	tot.Add(sample)
	tot.Add(Entry{Duration: time.Second})
	if tot.Iterations != 2 || tot.Tokens() != sample.Tokens() || tot.CostUSD != sample.CostUSD ||
		tot.Duration != sample.Duration+time.Second || tot.WithoutCost != 1 {
		t.Fatalf("totals = %+v", tot)
	}
}

// A codex iteration: its input_tokens count the cached part already, so its tokens are
// input + output, 2,300 as the run says, not 2,700 with the cache added again.
func TestTokensAreInputAndOutput(t *testing.T) {
	codex := Entry{Run: "r", Iteration: 1, Mode: "build", Outcome: "success", Input: 2000, CacheRead: 400, Output: 300}
	var tot Totals
	tot.Add(codex)
	if codex.Tokens() != 2300 || tot.Tokens() != 2300 || tot.Cache() != 400 {
		t.Fatalf("tokens %d, totals %d (cache %d); want 2300 (cache 400)", codex.Tokens(), tot.Tokens(), tot.Cache())
	}
}

// An agent that reported no cost (codex, gemini) leaves cost_usd out; one that reported
// 0 writes it. A note written before a reported 0 was kept reads as it did: a cost above
// 0 is reported, no line is none.
func TestCostReported(t *testing.T) {
	base := "git-ralph ledger v1\nrun: r\niteration: 1\nmode: build\nduration: 1s\noutcome: success\n"
	for name, tc := range map[string]struct {
		note     string
		reported bool
		cost     float64
	}{
		"older note with a cost":    {base + "cost_usd: 0.25\n", true, 0.25},
		"older note without a cost": {base + "input_tokens: 2000\n", false, 0},
		"a reported zero":           {base + "cost_usd: 0\n", true, 0},
	} {
		t.Run(name, func(t *testing.T) {
			got, bad := Parse(tc.note)
			if len(bad) != 0 || len(got) != 1 || got[0].CostReported != tc.reported || got[0].CostUSD != tc.cost {
				t.Fatalf("Parse = %+v, %v; want reported %v, cost %v", got, bad, tc.reported, tc.cost)
			}
			if again := Format(got[0]); again != tc.note {
				t.Fatalf("formats back as %q, want %q", again, tc.note)
			}
		})
	}
	free := Entry{Run: "r", Iteration: 1, Mode: "build", Outcome: "success", CostReported: true}
	if !strings.Contains(Format(free), "\ncost_usd: 0\n") {
		t.Fatalf("a reported zero is not written: %q", Format(free))
	}
}

func TestParseNamesTheLineOfTheNote(t *testing.T) {
	_, bad := Parse(Format(sample) + "\n\n" + strings.Replace(Format(sample), "mode: build", "mode: bu\x07ild", 1))
	if len(bad) != 1 || bad[0].Reason != "line 31: mode: the value holds a character that does not print" {
		t.Fatalf("unreadable = %+v", bad)
	}
}

// FuzzParse: whatever a remote puts in a note, Parse neither panics nor returns an entry
// that does not format back to itself.
func FuzzParse(f *testing.F) {
	f.Add(Format(sample))
	f.Add(Format(sample) + "\n" + Format(Entry{Run: "r", Iteration: 1, Mode: "m", Outcome: "o"}))
	f.Add("git-ralph ledger v1\nrun: x\n\n\nLGTM")
	f.Add("git-ralph ledger v99999999999999999999\n")
	f.Add(strings.Replace(Format(sample), "started: 2026-11-21T21:00:17Z", "started: 2026-11-21T22:00:17.25+01:00", 1))
	f.Fuzz(func(t *testing.T, note string) {
		entries, _ := Parse(note)
		for _, e := range entries {
			again, bad := Parse(Format(e))
			if len(bad) != 0 || len(again) != 1 || again[0] != e {
				t.Fatalf("entry %+v formats to %q, which reads as %+v %v", e, Format(e), again, bad)
			}
		}
	})
}
