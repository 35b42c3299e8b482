package serve

import (
	"html"
	"regexp"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/history"
)

// figureOf is the chart of the given id on a loop page, from its <figure> to its end.
func figureOf(t *testing.T, page, id string) string {
	t.Helper()
	start := strings.Index(page, `<figure class="chart`)
	for start >= 0 && !strings.HasPrefix(page[start:], `<figure class="chart"`+` id="`+id+`"`) && !strings.HasPrefix(page[start:], `<figure class="chart wide" id="`+id+`"`) {
		next := strings.Index(page[start+1:], `<figure class="chart`)
		if next < 0 {
			start = -1
			break
		}
		start += 1 + next
	}
	if start < 0 {
		t.Fatalf("the page has no chart %q:\n%s", id, page)
	}
	end := strings.Index(page[start:], "</figure>")
	return page[start : start+end]
}

// mark is one drawn mark of a chart: its class, its height (a bar's; a dot's y) and its title.
type mark struct {
	class, title string
	size         string
}

var (
	rects   = regexp.MustCompile(`<rect(?: class="([^"]*)")? x="[^"]*" y="[^"]*" width="[^"]*" height="([^"]*)"><title>([^<]*)</title>`)
	circles = regexp.MustCompile(`<circle()? cx="[^"]*" cy="([^"]*)" r="3"><title>([^<]*)</title>`)
)

// marksOf are the figure's bars or cells (rects) or its line's dots (circles), in order.
func marksOf(figure string, shape *regexp.Regexp) []mark {
	var out []mark
	for _, m := range shape.FindAllStringSubmatch(figure, -1) {
		out = append(out, mark{class: m[1], size: m[2], title: html.UnescapeString(m[3])})
	}
	return out
}

// TestTheChartsOfTokensDurationsAndOutcomes: what a person checks on each chart — its
// last bar or point is the last iteration's value, the tallest the largest, an iteration
// without the figure has no mark; the run's tokens summed against its max_tokens; and the
// outcomes strip a cell per iteration, in its outcome's colour, named in its title and in
// a legend with the counts, so that the colour is not the only thing that says it.
func TestTheChartsOfTokensDurationsAndOutcomes(t *testing.T) {
	s, ts, src := newTestServer(t)
	src.maxTokens = 10000
	src.runs = []history.Record{
		{Iteration: 1, Run: "a", Outcome: "success", InputTokens: 1000, OutputTokens: 500, DurationMS: 60_000},
		{Iteration: 2, Run: "b", Outcome: "failure", InputTokens: 2000, DurationMS: 30_000},
		{Iteration: 3, Run: "b", Outcome: "success", DurationMS: 90_000},
		{Iteration: 4, Run: "b", Outcome: "halted", InputTokens: 400, OutputTokens: 100, DurationMS: 45_000},
		{Iteration: 5, Run: "b", Outcome: "done", InputTokens: 3000, OutputTokens: 1000, DurationMS: 120_000},
	}
	_, page := get(t, browser(t), ts.URL+"/loops/main?token="+s.token)
	page = html.UnescapeString(page)

	tokens := marksOf(figureOf(t, page, "tokens-chart"), rects)
	if len(tokens) != 4 || tokens[3] != (mark{"", "iteration 5: 4,000 tokens", "96"}) || tokens[2].title != "iteration 4: 500 tokens" {
		t.Errorf("the tokens' bars: %q; want 4 (none for iteration 3), the last iteration 5's 4,000 tokens, the tallest", tokens)
	}
	run := figureOf(t, page, "run-tokens-chart")
	dots := marksOf(run, circles)
	// run b: 2,000 + 0 + 500 + 4,000 of 10,000, the top of the chart at 96
	if len(dots) != 4 || dots[3] != (mark{"", "after iteration 5: 6,500 tokens", "37.6"}) {
		t.Errorf("the run's tokens: %q; want 4 points, the last 6,500 tokens after iteration 5", dots)
	}
	for _, want := range []string{"The latest run's tokens: 6,500 of 10,000 (max_tokens)", `<line class="budget" x1="0" y1="4" x2="600" y2="4"><title>max_tokens 10,000 tokens</title>`} {
		if !strings.Contains(run, want) {
			t.Errorf("the run's tokens chart lacks %q:\n%s", want, run)
		}
	}
	durations := marksOf(figureOf(t, page, "duration-chart"), rects)
	if len(durations) != 5 || durations[4] != (mark{"", "iteration 5: 2m0s", "96"}) || durations[1] != (mark{"", "iteration 2: 30.0s", "24"}) {
		t.Errorf("the durations' bars: %q; want 5, the last iteration 5's 2m0s, the tallest", durations)
	}

	// each chart says in words (its aria-label) what a glance at it tells
	for id, label := range map[string]string{
		"outcome-chart":    "the outcomes of iterations 1 to 5: success 2, failure 1, halted 1, done 1; iteration 5: done",
		"tokens-chart":     "tokens per iteration, up to 4,000 tokens; iteration 5: 4,000 tokens",
		"run-tokens-chart": "the latest run's tokens, summed iteration by iteration: after iteration 5: 6,500 tokens, against max_tokens 10,000 tokens",
		"duration-chart":   "duration of each iteration, up to 2m0s; iteration 5: 2m0s",
	} {
		if fig := figureOf(t, page, id); !strings.Contains(fig, `aria-label="`+label+`"`) {
			t.Errorf("%s does not say %q:\n%s", id, label, fig)
		}
	}
	strip := figureOf(t, page, "outcome-chart")
	want := []mark{{"cell ok", "iteration 1: success", "20"}, {"cell fail", "iteration 2: failure", "20"}, {"cell ok", "iteration 3: success", "20"},
		{"cell warn", "iteration 4: halted", "20"}, {"cell ok", "iteration 5: done", "20"}}
	if got := marksOf(strip, rects); !equalMarks(got, want) {
		t.Errorf("the outcomes strip: %q\nwant %q", got, want)
	}
	if !strings.Contains(strip, `<ul class="legend">`) || !regexp.MustCompile(`(?s)"cell ok".*success 2.*"cell fail".*failure 1.*"cell warn".*halted 1.*"cell ok".*done 1`).MatchString(strip) {
		t.Errorf("the strip's legend does not name each outcome with its colour and count:\n%s", strip)
	}
}

func equalMarks(a, b []mark) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

// A long loop's charts draw its latest 60 iterations: the last mark of each is the
// loop's last iteration, and the strip says it shows the latest 60.
func TestALongLoopsChartsEndAtItsLastIteration(t *testing.T) {
	recs := longLoop(1000)
	for i := range recs {
		recs[i].InputTokens, recs[i].OutputTokens = int64(1000+i), 100
	}
	recs[999].DurationMS = 75_000
	s, ts := startTestServer(t, &fakeSource{runs: recs})
	_, page := get(t, browser(t), ts.URL+"/loops/main?token="+s.token)
	page = html.UnescapeString(page)
	for id, last := range map[string]string{"cost-chart": "iteration 1000: $0.10", "tokens-chart": "iteration 1000: 2,099 tokens",
		"duration-chart": "iteration 1000: 1m15s", "outcome-chart": "iteration 1000: failure"} {
		marks := marksOf(figureOf(t, page, id), rects)
		if len(marks) != chartBars || marks[len(marks)-1].title != last || marks[0].title[:14] != "iteration 941:" {
			t.Errorf("%s: %d marks, from %q to %q; want %d, iteration 941's to %q", id, len(marks), marks[0].title, marks[len(marks)-1].title, chartBars, last)
		}
	}
	// the latest run, iterations 951 to 1000, summed: 50 × 1,100 + (950 + … + 999)
	dots := marksOf(figureOf(t, page, "run-tokens-chart"), circles)
	if len(dots) != 50 || dots[49].title != "after iteration 1000: 103,725 tokens" {
		t.Errorf("the run's tokens: %d points, the last %q", len(dots), dots[len(dots)-1].title)
	}
	if !strings.Contains(page, "Outcomes of the latest 60 iterations") {
		t.Error("the strip does not say it shows the latest 60 iterations")
	}
}

// A record's outcome is the record file's word, which anything may have written: in the
// strip's titles and legend it is text, never markup, and its cell is of no tone.
func TestTheChartsEscapeARecordsWords(t *testing.T) {
	s, ts, src := newTestServer(t)
	src.runs = []history.Record{{Iteration: 1, Outcome: `<script>alert(1)</script>"`, DurationMS: 1000}}
	_, page := get(t, browser(t), ts.URL+"/loops/main?token="+s.token)
	strip := figureOf(t, page, "outcome-chart")
	if strings.Contains(strip, "<script>") || !strings.Contains(strip, `<rect class="cell other" x="3" y="4" width="54" height="20"><title>iteration 1: &lt;script&gt;alert(1)&lt;/script&gt;&#34;</title></rect>`) ||
		!strings.Contains(strip, "&lt;script&gt;alert(1)&lt;/script&gt;&#34; 1</li>") {
		t.Errorf("the strip of a hostile outcome:\n%s", strip)
	}
}
