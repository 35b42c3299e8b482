package watch

import (
	"io"

	"github.com/charmbracelet/lipgloss"
	"github.com/muesli/termenv"
)

// styles are the view's colours: the terminal's 16 ANSI colours, which every terminal
// has and its theme tunes, or none at all under NO_COLOR.
type styles struct {
	color                       bool
	bold, dim, ok, bad, warn    lipgloss.Style
	info, review, bar, selected lipgloss.Style
	badge                       map[State]lipgloss.Style
	match                       lipgloss.Style
}

func newStyles(color bool) styles {
	r := lipgloss.NewRenderer(io.Discard)
	r.SetColorProfile(termenv.Ascii)
	if color {
		r.SetColorProfile(termenv.ANSI)
	}
	fg := func(c string) lipgloss.Style { return r.NewStyle().Foreground(lipgloss.Color(c)) }
	badge := func(bg string) lipgloss.Style {
		return r.NewStyle().Bold(true).Foreground(lipgloss.Color("0")).Background(lipgloss.Color(bg))
	}
	return styles{
		color:    color,
		bold:     r.NewStyle().Bold(true),
		dim:      r.NewStyle().Faint(true),
		ok:       fg("2"),
		bad:      fg("1"),
		warn:     fg("3"),
		info:     fg("6"),
		review:   r.NewStyle().Bold(true).Foreground(lipgloss.Color("5")),
		bar:      r.NewStyle().Reverse(true),
		selected: r.NewStyle().Reverse(true),
		match:    r.NewStyle().Foreground(lipgloss.Color("0")).Background(lipgloss.Color("3")),
		badge: map[State]lipgloss.Style{
			Running:     badge("2"),
			Pausing:     badge("3"),
			Paused:      badge("3"),
			Waiting:     badge("6"),
			NeedsReview: badge("5"),
			Failed:      badge("1"),
			Done:        badge("4"),
			Stopped:     badge("7"),
			NotRun:      badge("7"),
		},
	}
}
