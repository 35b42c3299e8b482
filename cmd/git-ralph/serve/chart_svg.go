package serve

import (
	"html/template"
	"strconv"
	"strings"
)

// SVG writes the chart as the page's inline SVG, every text of it escaped here
// (template.HTMLEscapeString), the classes and numbers our own. It is not left to the
// template for the reason diffHTML is not: html/template's escaping of each mark's five
// attributes and title took most of the loop page's time once it drew six charts.
func (c chart) SVG() template.HTML {
	var b strings.Builder
	h := strconv.Itoa(c.H)
	b.WriteString(`<svg viewBox="0 0 ` + strconv.Itoa(chartW) + ` ` + h + `" role="img" aria-label="` + template.HTMLEscapeString(c.Label) + `">`)
	b.WriteString(`<line class="axis" x1="0" y1="` + h + `" x2="` + strconv.Itoa(chartW) + `" y2="` + h + `"/>` + "\n")
	for _, m := range c.Marks {
		b.WriteString(`<rect`)
		if m.Class != "" {
			b.WriteString(` class="` + m.Class + `"`)
		}
		b.WriteString(` x="` + svgNumber(m.X) + `" y="` + svgNumber(m.Y) + `" width="` + svgNumber(m.W) + `" height="` + svgNumber(m.H) + `">`)
		writeTitle(&b, m.Title)
		b.WriteString("</rect>")
	}
	if l := c.Line; l != nil {
		if l.BudgetY >= 0 {
			y := svgNumber(l.BudgetY)
			b.WriteString("\n" + `<line class="budget" x1="0" y1="` + y + `" x2="` + strconv.Itoa(chartW) + `" y2="` + y + `">`)
			writeTitle(&b, l.Budget)
			b.WriteString("</line>")
		}
		b.WriteString("\n" + `<polyline class="spent`)
		if l.Over {
			b.WriteString(" over")
		}
		b.WriteString(`" points="` + l.Points + `"/>` + "\n")
		for _, d := range l.Dots {
			b.WriteString(`<circle cx="` + svgNumber(d.X) + `" cy="` + svgNumber(d.Y) + `" r="3">`)
			writeTitle(&b, d.Title)
			b.WriteString("</circle>")
		}
	}
	b.WriteString("\n</svg>")
	return template.HTML(b.String()) // escaped above
}

// writeTitle writes a mark's <title>: what hovering it, or a screen reader, says.
func writeTitle(b *strings.Builder, title string) {
	b.WriteString("<title>" + template.HTMLEscapeString(title) + "</title>")
}

// svgNumber is a position in a chart's SVG: to a tenth, without a trailing ".0" (a
// page draws hundreds of them).
func svgNumber(v float64) string {
	return strings.TrimSuffix(strconv.FormatFloat(v, 'f', 1, 64), ".0")
}
