package serve

import (
	"fmt"
	"strconv"
	"strings"

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

// costCharts are the loop page's two charts, server-drawn as inline SVG (no script):
// each iteration's reported cost as bars, and the latest run's spend summed iteration by
// iteration against its max_cost. Nil when no iteration reported a cost.
type costCharts struct {
	Bars                   []chartBar
	MaxBar                 string // the tallest bar's cost, the bar chart's top
	Points                 string // the cumulative line's polyline points
	Dots                   []chartBar
	BudgetY                float64 // the max_cost line's height; -1: no budget
	Budget, Spent, TopText string
	Run                    string // the run the cumulative chart is of
	Over                   bool   // the run spent its budget
}

// chartBar is one mark of a chart: where, how tall, and what it says on hover.
type chartBar struct {
	X, Y, W, H float64
	Title      string
}

// chartsOf draws the charts of recs (oldest first), with the latest run's max_cost (0:
// none).
func chartsOf(recs []history.Record, maxCost float64) *costCharts {
	if len(recs) > chartBars {
		recs = recs[len(recs)-chartBars:]
	}
	top := 0.0
	for _, r := range recs {
		if r.CostKnown() {
			top = max(top, r.CostUSD)
		}
	}
	if top == 0 {
		return nil
	}
	c := &costCharts{MaxBar: display.Dollars(top), BudgetY: -1}
	slot := float64(chartW) / float64(max(len(recs), chartSlots))
	for i, r := range recs {
		if !r.CostKnown() {
			continue
		}
		h := r.CostUSD / top * (chartH - chartPad)
		c.Bars = append(c.Bars, chartBar{X: float64(i)*slot + slot*chartBarGap/2, Y: chartH - h, W: slot * (1 - chartBarGap), H: h,
			Title: fmt.Sprintf("iteration %d: %s", r.Iteration, display.Dollars(r.CostUSD))})
	}
	c.cumulative(recs, maxCost)
	return c
}

// cumulative draws the latest run's spend, summed iteration by iteration, and its budget.
func (c *costCharts) cumulative(recs []history.Record, maxCost float64) {
	c.Run = recs[len(recs)-1].Run
	var run []history.Record
	for _, r := range recs {
		if r.Run == c.Run {
			run = append(run, r)
		}
	}
	sums := make([]float64, len(run))
	total := 0.0
	for i, r := range run {
		if r.CostKnown() {
			total += r.CostUSD
		}
		sums[i] = total
	}
	top := max(total, maxCost)
	if top == 0 {
		top = 1
	}
	scale := (chartH - chartPad) / top
	step := float64(chartW) / float64(max(len(run), chartSlots))
	pts := []string{"0," + strconv.Itoa(chartH)}
	for i, s := range sums {
		x, y := float64(i+1)*step, chartH-s*scale
		pts = append(pts, fmt.Sprintf("%.1f,%.1f", x, y))
		c.Dots = append(c.Dots, chartBar{X: x, Y: y, Title: fmt.Sprintf("after iteration %d: %s", run[i].Iteration, display.Dollars(s))})
	}
	c.Points = strings.Join(pts, " ")
	c.Spent, c.TopText = display.Dollars(total), display.Dollars(top)
	if maxCost > 0 {
		c.BudgetY, c.Budget, c.Over = chartH-maxCost*scale, display.Dollars(maxCost), total >= maxCost
	}
}
