package serve

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/history"
)

// The charts' size in the SVG's own units; the page scales them to its width.
const (
	chartW, chartH = 600, 100
	chartPad       = 4   // above the tallest mark
	chartBars      = 60  // the most iterations a chart draws: the latest
	chartBarGap    = 0.2 // of a bar's slot, left empty between bars
	chartSlots     = 10  // the fewest slots a chart is divided in: a bar of few iterations is not a wall
)

// chart is one of the loop page's charts, server-drawn as inline SVG (no script): one
// figure of each iteration as bars, a run's figure summed iteration by iteration against
// its budget as a line, or the iterations' outcomes as a strip of cells. Every mark has a
// <title>, so that hovering it (or a screen reader) says its iteration and value.
type chart struct {
	ID      string // the figure's id
	Caption string
	Note    string // after the caption, muted: the scale
	Label   string // the SVG's aria-label: what the chart shows, in words (its marks' titles are for hovering)
	H       int    // the SVG's height in its units (it is chartW wide)
	Wide    bool   // the charts' whole width
	Marks   []chartBar
	Line    *chartLine
	Legend  []legendItem
}

// chartBar is one mark of a chart: where, how tall, its class (none: a bar or a dot, in
// the accent colour), and what it says on hover.
type chartBar struct {
	X, Y, W, H float64
	Class      string
	Title      string
}

// chartLine is a run's figure summed iteration by iteration, a dot per iteration, and the
// run's budget for it as a dashed line.
type chartLine struct {
	Points  string
	Dots    []chartBar
	BudgetY float64 // the budget line's height; -1: no budget
	Budget  string  // what the budget line says on hover
	Over    bool    // the run reached its budget
}

// legendItem is one entry of a chart's legend: a swatch of the marks' class, and its words.
type legendItem struct{ Class, Text string }

// series is a figure of each iteration, and how a person reads it.
type series struct {
	value func(history.Record) (float64, bool) // false: the iteration has none
	say   func(float64) string
}

var (
	costSeries  = series{func(r history.Record) (float64, bool) { return r.CostUSD, r.CostKnown() }, display.Dollars}
	tokenSeries = series{
		// as the run's max_tokens counts them: input and output
		func(r history.Record) (float64, bool) { t := r.InputTokens + r.OutputTokens; return float64(t), t > 0 },
		func(v float64) string { return display.Count(int64(v)) + " tokens" }}
	durationSeries = series{
		func(r history.Record) (float64, bool) { return float64(r.DurationMS), r.DurationMS > 0 },
		func(v float64) string { return display.Duration(time.Duration(v) * time.Millisecond) }}
)

// budgets are the latest run's limits the cumulative charts are drawn against (0: none).
type budgets struct {
	cost   float64
	tokens int64
}

// chartsOf draws the charts of recs (oldest first) that have something to show: the
// outcomes, the cost, the tokens and the durations of the latest chartBars iterations,
// and the latest run's spend and tokens against its budgets.
func chartsOf(recs []history.Record, b budgets) []chart {
	if len(recs) == 0 {
		return nil
	}
	if len(recs) > chartBars {
		recs = recs[len(recs)-chartBars:]
	}
	var out []chart
	if c, ok := outcomeStrip(recs); ok {
		out = append(out, c)
	}
	run := latestRun(recs)
	var lines []chart // after the bars: the page lays them out two by two, larger
	if c, ok := costSeries.bars("cost-chart", "Cost per iteration", recs); ok {
		line, total := costSeries.sums(run, b.cost, "max_cost")
		out = append(out, c)
		lines = append(lines, chart{ID: "spend-chart", Caption: "The latest run's spend: " + display.Dollars(total) + ofBudget(b.cost > 0, display.Dollars(b.cost), "max_cost"),
			Label: "the latest run's spend, summed iteration by iteration: " + lastDot(line), H: chartH, Line: line})
	}
	if c, ok := tokenSeries.bars("tokens-chart", "Tokens per iteration", recs); ok {
		line, total := tokenSeries.sums(run, float64(b.tokens), "max_tokens")
		out = append(out, c)
		lines = append(lines, chart{ID: "run-tokens-chart", Caption: "The latest run's tokens: " + display.Count(int64(total)) + ofBudget(b.tokens > 0, display.Count(b.tokens), "max_tokens"),
			Label: "the latest run's tokens, summed iteration by iteration: " + lastDot(line), H: chartH, Line: line})
	}
	if c, ok := durationSeries.bars("duration-chart", "Duration of each iteration", recs); ok {
		out = append(out, c)
	}
	out = append(out, lines...)
	return out
}

func ofBudget(set bool, budget, key string) string {
	if !set {
		return ""
	}
	return " of " + budget + " (" + key + ")"
}

// latestRun is the iterations of recs' last run.
func latestRun(recs []history.Record) []history.Record {
	id := recs[len(recs)-1].Run
	var run []history.Record
	for _, r := range recs {
		if r.Run == id {
			run = append(run, r)
		}
	}
	return run
}

// slotOf is the width of an iteration's slot when a chart draws n of them.
func slotOf(n int) float64 { return float64(chartW) / float64(max(n, chartSlots)) }

// bars draws the series' value of each iteration of recs as a bar as tall as its share
// of the largest; false when no iteration has a value.
func (s series) bars(id, caption string, recs []history.Record) (chart, bool) {
	top := 0.0
	for _, r := range recs {
		if v, ok := s.value(r); ok {
			top = max(top, v)
		}
	}
	if top == 0 {
		return chart{}, false
	}
	c := chart{ID: id, Caption: caption, Note: "up to " + s.say(top), H: chartH}
	slot := slotOf(len(recs))
	for i, r := range recs {
		v, ok := s.value(r)
		if !ok {
			continue
		}
		h := v / top * (chartH - chartPad)
		c.Marks = append(c.Marks, chartBar{X: float64(i)*slot + slot*chartBarGap/2, Y: chartH - h, W: slot * (1 - chartBarGap), H: h,
			Title: fmt.Sprintf("iteration %d: %s", r.Iteration, s.say(v))})
	}
	c.Label = fmt.Sprintf("%s, up to %s; %s", strings.ToLower(caption), s.say(top), c.Marks[len(c.Marks)-1].Title)
	return c, true
}

// lastDot is what a cumulative line's last point says, and the budget's line.
func lastDot(l *chartLine) string {
	said := "none yet"
	if len(l.Dots) > 0 {
		said = l.Dots[len(l.Dots)-1].Title
	}
	if l.Budget != "" {
		said += ", against " + l.Budget
	}
	return said
}

// sums draws the series' values of the run summed iteration by iteration, against its
// budget (0: none) of the given key, up to the larger of the two; with the sum.
func (s series) sums(run []history.Record, budget float64, key string) (line *chartLine, total float64) {
	sums := make([]float64, len(run))
	for i, r := range run {
		if v, ok := s.value(r); ok {
			total += v
		}
		sums[i] = total
	}
	top := max(total, budget)
	if top == 0 {
		top = 1
	}
	scale := (chartH - chartPad) / top
	step := slotOf(len(run))
	line = &chartLine{BudgetY: -1}
	pts := []string{"0," + strconv.Itoa(chartH)}
	for i, v := range sums {
		x, y := float64(i+1)*step, chartH-v*scale
		pts = append(pts, svgNumber(x)+","+svgNumber(y))
		line.Dots = append(line.Dots, chartBar{X: x, Y: y, Title: fmt.Sprintf("after iteration %d: %s", run[i].Iteration, s.say(v))})
	}
	line.Points = strings.Join(pts, " ")
	if budget > 0 {
		line.BudgetY, line.Budget, line.Over = chartH-budget*scale, key+" "+s.say(budget), total >= budget
	}
	return line, total
}

// The outcomes strip's height, and its cells' (the rest is the gap above the axis).
const stripH, stripCell = 24, 20

// outcomeStrip draws a cell per iteration of recs, in the colour of its outcome (the
// badges' tone), with a legend of the outcomes it shows and their counts; false when no
// iteration has an outcome.
func outcomeStrip(recs []history.Record) (chart, bool) {
	c := chart{ID: "outcome-chart", Caption: "Outcomes", Label: "each iteration's outcome", H: stripH, Wide: true}
	if len(recs) == chartBars {
		c.Caption = fmt.Sprintf("Outcomes of the latest %d iterations", chartBars)
	}
	counts := map[string]int{}
	var order []string // the outcomes in the order they first appear
	slot := slotOf(len(recs))
	for i, r := range recs {
		if r.Outcome == "" {
			continue
		}
		if counts[r.Outcome] == 0 {
			order = append(order, r.Outcome)
		}
		counts[r.Outcome]++
		c.Marks = append(c.Marks, chartBar{X: float64(i)*slot + slot*chartBarGap/4, Y: stripH - stripCell, W: slot * (1 - chartBarGap/2), H: stripCell,
			Class: cellClass(r.Outcome), Title: fmt.Sprintf("iteration %d: %s", r.Iteration, r.Outcome)})
	}
	if len(order) == 0 {
		return chart{}, false
	}
	var said []string
	for _, o := range order {
		c.Legend = append(c.Legend, legendItem{Class: cellClass(o), Text: fmt.Sprintf("%s %d", o, counts[o])})
		said = append(said, fmt.Sprintf("%s %d", o, counts[o]))
	}
	c.Label = fmt.Sprintf("the outcomes of iterations %d to %d: %s; %s", recs[0].Iteration, recs[len(recs)-1].Iteration,
		strings.Join(said, ", "), c.Marks[len(c.Marks)-1].Title)
	return c, true
}

// cellClass is the class of an outcome's cell: its badge's tone, "other" for none.
func cellClass(outcome string) string {
	t, _, _ := strings.Cut(tone(outcome), " ")
	if t == "" {
		t = "other"
	}
	return "cell " + t
}
