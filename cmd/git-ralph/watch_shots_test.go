//go:build linux

package main

import (
	"fmt"
	"html"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/mattn/go-runewidth"
)

// The tmux tests' screenshots of `git ralph watch` for the docs: a terminal has no
// picture, so the pane is captured with its escapes (capture-pane -e), turned into an
// HTML page drawn like a terminal (dark, monospace, one cell per character) and that page
// rendered to PNG by headless Chromium. RALPH_SCREENSHOTS=1 saves them in docs/images.

// The terminal's look: a dark theme's 16 colours, and its cell. DejaVu Sans Mono's
// advance is 1233/2048 of its size, so a row of cols cells is cols·cellWidth wide.
var termPalette = [16]string{
	"#1b1f23", "#f85149", "#3fb950", "#d29922", "#58a6ff", "#bc8cff", "#39c5cf", "#b1bac4",
	"#6e7681", "#ff7b72", "#56d364", "#e3b341", "#79c0ff", "#d2a8ff", "#56d4dd", "#f0f6fc",
}

const (
	termBackground = "#0d1117"
	termForeground = "#c9d1d9"
	termFontSize   = 15.0
	termLineHeight = 19 // px: block characters (█ ░) meet from row to row
	termPad        = 14 // px around the cells
)

var termCellWidth = termFontSize * 1233 / 2048

// cellStyle is one cell's SGR attributes; a colour is "" (the default), a palette index
// as "p3", or a CSS colour.
type cellStyle struct {
	fg, bg                         string
	bold, faint, italic, under, rv bool
}

// sgr applies one Select Graphic Rendition sequence's parameters.
func (s *cellStyle) sgr(params string) {
	ps := strings.Split(params, ";")
	for i := 0; i < len(ps); i++ {
		n, _ := strconv.Atoi(ps[i]) // "" is 0, a reset, as terminals read it
		switch {
		case n == 0:
			*s = cellStyle{}
		case n == 1:
			s.bold = true
		case n == 2:
			s.faint = true
		case n == 3:
			s.italic = true
		case n == 4:
			s.under = true
		case n == 7:
			s.rv = true
		case n == 22:
			s.bold, s.faint = false, false
		case n == 23:
			s.italic = false
		case n == 24:
			s.under = false
		case n == 27:
			s.rv = false
		case n >= 30 && n <= 37:
			s.fg = "p" + strconv.Itoa(n-30)
		case n >= 90 && n <= 97:
			s.fg = "p" + strconv.Itoa(n-90+8)
		case n == 39:
			s.fg = ""
		case n >= 40 && n <= 47:
			s.bg = "p" + strconv.Itoa(n-40)
		case n >= 100 && n <= 107:
			s.bg = "p" + strconv.Itoa(n-100+8)
		case n == 49:
			s.bg = ""
		case n == 38 || n == 48:
			c, used := extendedColour(ps[i+1:])
			i += used
			if n == 38 {
				s.fg = c
			} else {
				s.bg = c
			}
		}
	}
}

// extendedColour reads 5;N (256 colours) or 2;R;G;B after a 38 or 48, and says how
// many parameters it used.
func extendedColour(ps []string) (string, int) {
	num := func(i int) int {
		if i >= len(ps) {
			return 0
		}
		n, _ := strconv.Atoi(ps[i])
		return n
	}
	if len(ps) == 0 {
		return "", 0
	}
	switch ps[0] {
	case "5":
		n := num(1)
		switch {
		case n < 16:
			return "p" + strconv.Itoa(n), 2
		case n < 232:
			n -= 16
			level := func(v int) int {
				if v == 0 {
					return 0
				}
				return 55 + 40*v
			}
			return fmt.Sprintf("rgb(%d,%d,%d)", level(n/36), level(n/6%6), level(n%6)), 2
		default:
			g := 8 + 10*(n-232)
			return fmt.Sprintf("rgb(%d,%d,%d)", g, g, g), 2
		}
	case "2":
		return fmt.Sprintf("rgb(%d,%d,%d)", num(1), num(2), num(3)), 4
	}
	return "", 0
}

// css is the style as CSS, colours resolved (reverse swaps them).
func (s cellStyle) css() string {
	colour := func(c, def string) string {
		if strings.HasPrefix(c, "p") {
			n, _ := strconv.Atoi(c[1:])
			return termPalette[n]
		}
		if c == "" {
			return def
		}
		return c
	}
	fg, bg := colour(s.fg, termForeground), colour(s.bg, "")
	if s.rv {
		fg, bg = colour(s.bg, termBackground), colour(s.fg, termForeground)
	}
	var b strings.Builder
	if fg != termForeground {
		b.WriteString("color:" + fg + ";")
	}
	if bg != "" {
		b.WriteString("background:" + bg + ";")
	}
	if s.bold {
		b.WriteString("font-weight:bold;")
	}
	if s.faint {
		b.WriteString("opacity:.6;")
	}
	if s.italic {
		b.WriteString("font-style:italic;")
	}
	if s.under {
		b.WriteString("text-decoration:underline;")
	}
	return b.String()
}

// ansiHTML draws a pane captured with `tmux capture-pane -e -p` as an HTML page of cols
// by rows cells. Each character outside ASCII sits in a box of its cells' width, so a
// glyph the font lacks (drawn by a fallback font of another width) keeps the grid.
func ansiHTML(pane string, cols, rows int) string {
	var body strings.Builder
	var st cellStyle
	lines := strings.Split(strings.TrimSuffix(pane, "\n"), "\n")
	for len(lines) < rows {
		lines = append(lines, "")
	}
	for _, line := range lines[:rows] {
		body.WriteString(`<div class="row">`)
		open := false
		span := func() {
			if open {
				body.WriteString("</span>")
			}
			body.WriteString(`<span style="` + st.css() + `">`)
			open = true
		}
		span()
		for i := 0; i < len(line); {
			if line[i] == 0x1b {
				end, params, ok := csi(line[i:])
				if ok {
					st.sgr(params)
					span()
				}
				i += end
				continue
			}
			r, size := decodeRune(line[i:])
			i += size
			switch w := runewidth.RuneWidth(r); {
			case r < 0x80:
				body.WriteString(html.EscapeString(string(r)))
			case w > 0:
				glyph, ok := termGlyphs[r]
				if !ok {
					glyph = html.EscapeString(string(r))
				}
				fmt.Fprintf(&body, `<span class="c" style="width:%.2fpx">%s</span>`, float64(w)*termCellWidth, glyph)
			}
		}
		body.WriteString("</span></div>\n")
		// tmux ends each line's styles (it starts the next with its own)
		st = cellStyle{}
	}
	w, h := termSize(cols, rows)
	return fmt.Sprintf(`<!doctype html><meta charset="utf-8"><style>
html, body { margin: 0; background: %s; }
body { width: %dpx; height: %dpx; overflow: hidden; box-sizing: border-box; padding: %dpx;
  color: %s; font: %.0fpx/%dpx "DejaVu Sans Mono", "Liberation Mono", monospace; }
.row { white-space: pre; height: %dpx; overflow: hidden; }
.c { display: inline-block; text-align: center; overflow: hidden; vertical-align: top; }
.c svg { vertical-align: -3px; }
</style><body>
%s</body>`, termBackground, w, h, termPad, termForeground, termFontSize, termLineHeight, termLineHeight, body.String())
}

// termGlyphs draws the emoji the view shows, which a machine without a colour emoji
// font (a CI runner's) would draw as empty boxes: ⏳ running, ⏸ interrupted.
var termGlyphs = map[rune]string{
	'⏳': `<svg width="12" height="15" viewBox="0 0 12 15"><path d="M2 1.5h8M2 13.5h8" stroke="#b1bac4" stroke-width="1.6"/>` +
		`<path d="M3 2.5h6l-2.4 5 2.4 5h-6l2.4-5z" fill="none" stroke="#b1bac4"/><path d="M4 12h4l-2-3z" fill="#d29922"/></svg>`,
	'⏸': `<svg width="12" height="15" viewBox="0 0 12 15"><path d="M3.5 3v9M8.5 3v9" stroke="#58a6ff" stroke-width="2.4"/></svg>`,
}

// termSize is the picture's size in pixels for cols by rows cells.
func termSize(cols, rows int) (int, int) {
	return int(math.Ceil(float64(cols)*termCellWidth)) + 2*termPad, rows*termLineHeight + 2*termPad
}

// csi reads an escape sequence at the start of s: its length, and its parameters when
// it is an SGR (ESC [ … m). Other sequences are skipped.
func csi(s string) (n int, params string, sgr bool) {
	if len(s) < 2 || s[1] != '[' {
		return min(2, len(s)), "", false
	}
	for i := 2; i < len(s); i++ {
		if c := s[i]; c >= 0x40 && c <= 0x7e {
			return i + 1, s[2:i], c == 'm'
		}
	}
	return len(s), "", false
}

func decodeRune(s string) (rune, int) {
	for _, r := range s {
		return r, len(string(r))
	}
	return 0, 1
}

// shot saves the pane in docs/images (watch- and the name, .png) when
// RALPH_SCREENSHOTS=1; other runs skip it, as drawing it needs Chromium.
func (tm *tmuxView) shot(name string, cols, rows int) {
	tm.t.Helper()
	if os.Getenv("RALPH_SCREENSHOTS") != "1" {
		return
	}
	exe, err := exec.LookPath("chromium")
	if err != nil {
		tm.t.Fatal("RALPH_SCREENSHOTS=1 needs chromium (apt-get install chromium) to draw the terminal's screenshots")
	}
	dir := tm.t.TempDir()
	page := filepath.Join(dir, name+".html")
	if err := os.WriteFile(page, []byte(ansiHTML(tm.capture("-e"), cols, rows)), 0o644); err != nil {
		tm.t.Fatal(err)
	}
	if err := os.MkdirAll(docsImages, 0o755); err != nil {
		tm.t.Fatal(err)
	}
	png := filepath.Join(docsImages, "watch-"+name+".png")
	w, h := termSize(cols, rows)
	// --no-sandbox: a test machine or container often runs as root or without user
	// namespaces, where Chromium's sandbox cannot start; the page is the test's own.
	out, err := exec.Command(exe, "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
		"--no-first-run", "--hide-scrollbars", "--force-device-scale-factor=1", "--user-data-dir="+filepath.Join(dir, "profile"),
		fmt.Sprintf("--window-size=%d,%d", w, h), "--screenshot="+png, "file://"+page).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("chromium --screenshot: %v\n%s", err, out)
	}
	tm.t.Logf("screenshot: %s", png)
}

// TestTerminalPictureHTML: the converter draws what the terminal would: the 16 colours,
// bold, reverse video swapping them, a wide character in
// two cells, escapes and markup never shown as text.
func TestTerminalPictureHTML(t *testing.T) {
	page := ansiHTML("\x1b[1m\x1b[30m\x1b[42m RUNNING \x1b[0m a<b\n\x1b[31mfailed\x1b[39m ok\n\x1b[7mkeys\x1b[27m 界 3\n", 20, 4)
	for _, want := range []string{
		`<span style="color:#1b1f23;background:#3fb950;font-weight:bold;"> RUNNING </span>`, // bold black on green
		`<span style=""> a&lt;b</span>`,
		`<span style="color:#f85149;">failed</span><span style=""> ok</span>`,
		`<span style="color:#0d1117;background:#c9d1d9;">keys</span>`,
		fmt.Sprintf(`<span class="c" style="width:%.2fpx">界</span>`, 2*termCellWidth),
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
	if n := strings.Count(page, `<div class="row">`); n != 4 {
		t.Errorf("%d rows drawn, want the terminal's 4", n)
	}
	if strings.Contains(page, "\x1b") || strings.Contains(page, "[0m") {
		t.Errorf("an escape left in the page:\n%s", page)
	}
}
