package serve

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"html/template"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/history"
)

// diffLimit is the most of a diff one page shows: a browser chokes on more, and an
// agent can write a diff of any size.
const diffLimit = 4 << 20

func parsePages() (*template.Template, error) {
	funcs := template.FuncMap{
		"duration": func(ms int64) string { return display.Duration(time.Duration(ms) * time.Millisecond) },
		"short":    display.ShortHash,
		"plural":   display.Plural, // "1 file", "2 files"
		"dash":     orDash,
		"cost":     func(usd float64) string { return fmt.Sprintf("$%.2f", usd) },
		// seg is a loop's name as one segment of a path: html/template leaves '#' and '?'
		// as they are in a URL, and a worktree's directory can be named "feat#2"
		"seg": url.PathEscape,
		// sh is a word of a command the page suggests, quoted for a shell where it must be
		"sh": shellWord,
		// tone is the colour class of a state, an outcome or a validation (badge.go)
		"tone":      tone,
		"mergeText": mergeText,
		"shortRun":  shortRun,
	}
	t, err := template.New("").Funcs(funcs).ParseFS(assets, "assets/templates/*.html")
	if err != nil {
		return nil, fmt.Errorf("the dashboard's templates: %w", err)
	}
	return t, nil
}

// render writes the page whole or, on a template error, a 500: never half a page.
func (s *Server) render(w http.ResponseWriter, name string, data any) {
	var buf bytes.Buffer
	if err := s.pages.ExecuteTemplate(&buf, name, data); err != nil {
		http.Error(w, "500: rendering the page: "+err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	_, _ = buf.WriteTo(w)
}

// fail answers a Source's error: 404 for what does not exist, else 500 with the words.
func fail(w http.ResponseWriter, err error) {
	if errors.Is(err, ErrNotFound) {
		http.Error(w, "404: "+err.Error(), http.StatusNotFound)
		return
	}
	http.Error(w, "500: "+err.Error(), http.StatusInternalServerError)
}

// page is what the layout of every page reads (the repository's name, the page's title
// and where it is), with the page's own data.
func (s *Server) page(title, crumb string, data map[string]any) map[string]any {
	data["Title"], data["Crumb"], data["Repo"] = title, crumb, s.Repo
	if s.Repo == "" {
		data["Repo"] = "repository"
	}
	return data
}

func (s *Server) loopsPage(w http.ResponseWriter, r *http.Request) {
	// what became of the merges started here, read before the loops and the queue: a
	// merge seen ended here has written its end there, so that no row shows one ended
	// and still merging (the page, which reads itself again only while a merge it started
	// runs, would go on saying merging)
	var picked map[string]PickedMerge
	if src, ok := s.src.(BestOfs); ok {
		picked = src.Picked()
	}
	runs, err := s.src.Loops(r.Context())
	if err != nil {
		fail(w, err)
		return
	}
	var merges map[string]history.Merge
	if m, ok := s.src.(Merger); ok {
		merges, _ = m.Merges(r.Context()) // without them a card shows the queue's state alone
	}
	cards := make([]loopCard, 0, len(runs))
	for _, run := range runs {
		cards = append(cards, cardOf(run, merges))
	}
	groups, cards, bad := s.bestOfSections(r.Context(), cards, picked)
	s.render(w, "loops.html", s.page("Loops", "", map[string]any{"Loops": cards, "BestOf": groups, "BestOfBad": bad, "CSRF": s.csrf}))
}

func (s *Server) iterationsPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("loop")
	recs, bad, err := s.src.Iterations(r.Context(), name)
	if err != nil {
		fail(w, err)
		return
	}
	charts := chartsOf(recs, s.budgets(r.Context(), name)) // oldest first
	// newest first, as a person reads a log; a copy, the Source's own left as it is
	recs = slices.Clone(recs)
	slices.Reverse(recs)
	before, _ := strconv.Atoi(r.URL.Query().Get("before"))
	rows, older := timelinePage(recs, before)
	data := map[string]any{"Loop": name, "Records": rows, "Bad": bad, "Charts": charts, "Before": max(before, 0), "Older": older}
	if r.URL.Query().Get("part") == "timeline" { // the live page's refresh of its timeline
		s.render(w, "timeline", data)
		return
	}
	data["CSRF"], data["Flash"] = s.csrf, s.flashes.take(name)
	s.render(w, "iterations.html", s.page("Loop "+name, name, data))
}

// timelineRows is the most iterations the loop's page lists, the latest first, with a
// link to older ones: the page of a loop of thousands stays as small as one of a hundred.
const timelineRows = 100

// timelinePage is what the timeline lists of recs (newest first): the iterations before
// iteration before (0: from the newest), at most timelineRows; older is the iteration
// the next older page lists before (0: none older).
func timelinePage(recs []history.Record, before int) (rows []history.Record, older int) {
	start := 0
	if before > 0 {
		for start < len(recs) && recs[start].Iteration >= before {
			start++
		}
	}
	rows = recs[start:]
	if len(rows) > timelineRows {
		rows, older = rows[:timelineRows], rows[timelineRows-1].Iteration
	}
	return rows, older
}

func (s *Server) diffPage(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("loop")
	n, err := strconv.Atoi(r.PathValue("n"))
	if err != nil || n < 1 {
		http.Error(w, "404: no such iteration", http.StatusNotFound)
		return
	}
	diff, cut, err := s.src.Diff(r.Context(), name, n, diffLimit)
	if err != nil {
		fail(w, err)
		return
	}
	lines := diffLines(string(diff))
	markWords(lines)
	data := map[string]any{"Loop": name, "Iteration": n, "Diff": diffHTML(lines), "Files": diffFiles(lines), "Cut": cut,
		"Limit": display.Plural(diffLimit>>20, "MiB")}
	if recs, _, err := s.src.Iterations(r.Context(), name); err == nil { // without them: no links, no summary
		data["Record"], data["Prev"], data["Next"] = neighbours(recs, n)
	}
	s.render(w, "diff.html", s.page(fmt.Sprintf("Loop %s, iteration %d", name, n), name, data))
}

// act runs one of the loop's actions (behind sameOrigin) and goes back to the loop's page
// (303: the browser GETs it, and a reload does not post again), which then says what
// the action said, or its error.
func (s *Server) act(w http.ResponseWriter, r *http.Request) {
	actor, ok := s.src.(Actor)
	if !ok {
		http.Error(w, "404: this dashboard cannot steer loops", http.StatusNotFound)
		return
	}
	name := r.PathValue("loop")
	said, err := actor.Act(r.Context(), name, r.PathValue("action"), r.PostFormValue("text"))
	if errors.Is(err, ErrNotFound) {
		fail(w, err)
		return
	}
	f := flash{Said: said}
	if err != nil {
		f = flash{Said: strings.TrimSpace(said + " error: " + err.Error()), Failed: true}
	}
	s.flashes.put(name, f)
	http.Redirect(w, r, "/loops/"+url.PathEscape(name), http.StatusSeeOther)
}

// flash is what an action said, and whether it failed.
type flash struct {
	Said   string
	Failed bool
}

// flashes are what the last action on each loop said, shown once on its page.
type flashes struct {
	mu   sync.Mutex
	said map[string]flash
}

func (f *flashes) put(loop string, said flash) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.said == nil {
		f.said = map[string]flash{}
	}
	f.said[loop] = said
}

// take returns the loop's message and forgets it.
func (f *flashes) take(loop string) flash {
	f.mu.Lock()
	defer f.mu.Unlock()
	said := f.said[loop]
	delete(f.said, loop)
	return said
}

// budgets are the loop's latest run's max_cost and max_tokens, none when it has none or
// they cannot be read.
func (s *Server) budgets(ctx context.Context, loop string) budgets {
	runs, err := s.src.Loops(ctx)
	if err != nil {
		return budgets{}
	}
	for _, r := range runs {
		if r.Name == loop && r.Spend != nil {
			return budgets{cost: r.Spend.MaxCost, tokens: r.Spend.MaxTokens}
		}
	}
	return budgets{}
}

// neighbours are iteration n's record (nil when none) and the iterations before and
// after it that have a diff to show (0: none).
func neighbours(recs []history.Record, n int) (rec *history.Record, prev, next int) {
	for i := range recs {
		r := &recs[i]
		switch {
		case r.Iteration == n:
			rec = r
		case r.Pruned || r.FilesChanged == 0:
		case r.Iteration < n && r.Iteration > prev:
			prev = r.Iteration
		case r.Iteration > n && (next == 0 || r.Iteration < next):
			next = r.Iteration
		}
	}
	return rec, prev, next
}

// stateText is the state with its reason: "finished (success)".
func stateText(r status.Run) string {
	if r.Reason != "" {
		return r.State + " (" + r.Reason + ")"
	}
	return r.State
}

// shortRun is a run's id as the timeline shows it, the page giving it whole on hover:
// its start ("Nov 28 18:56", UTC, as the id has it) for an id of the loop's making
// (20261128T185600Z-1a2b3c4d), else its first 8 characters.
func shortRun(id string) string {
	stamp, _, _ := strings.Cut(id, "-")
	if t, err := time.Parse("20060102T150405Z", stamp); err == nil {
		return t.Format("Jan 2 15:04")
	}
	if r := []rune(id); len(r) > 8 {
		return string(r[:8]) + "…"
	}
	return id
}

// shellWord is s as one word for sh: as it is when that is safe, else quoted.
func shellWord(s string) string {
	safe := s != "" && !strings.ContainsFunc(s, func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || strings.ContainsRune("._-/+=:,@", r))
	})
	if safe {
		return s
	}
	return display.ShellQuote(s)
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
