package serve

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// longLoop is n iterations as a long loop records them: a run per 50, most with a diff,
// a cost, tokens, a validation, some failing with an error.
func longLoop(n int) []history.Record {
	recs := make([]history.Record, n)
	start := time.Date(2026, 11, 28, 18, 0, 0, 0, time.UTC)
	for i := range recs {
		r := history.Record{Iteration: i + 1, Run: fmt.Sprintf("20261128T%02d0000Z-1a2b3c4d", i/50%24), RunIteration: i%50 + 1,
			StartedAt: start.Add(time.Duration(i) * time.Minute), EndedAt: start.Add(time.Duration(i)*time.Minute + 50*time.Second),
			DurationMS: 50_000, Outcome: "success", Validation: "passed", CostUSD: 0.05 + float64(i%7)/100, CostReported: true,
			InputTokens: int64(20_000 + i%13*1_000), OutputTokens: int64(1_500 + i%5*100),
			CommitBefore: "0123456789abcdef0123456789abcdef01234567", CommitAfter: "89abcdef0123456789abcdef0123456789abcdef",
			FilesChanged: 1 + i%4, Insertions: 10 + i%30, Deletions: i % 9}
		if i%10 == 9 {
			r.Outcome, r.Validation, r.Error = "failure", "failed: exit code 1", "the agent exited with code 1"
		}
		recs[i] = r
	}
	return recs
}

// pageOf is the loop page of a loop of n iterations, as a browser with the cookie gets it.
func pageOf(b *testing.B, n int) (*Server, http.Handler, *http.Request) {
	b.Helper()
	s, err := New(&fakeSource{runs: longLoop(n)}, "")
	if err != nil {
		b.Fatal(err)
	}
	addr := localAddr(b)
	h := s.Handler(addr)
	req := httptest.NewRequest("GET", s.Base(addr)+"/loops/main", nil)
	req.AddCookie(&http.Cookie{Name: cookieName(req), Value: s.token})
	return s, h, req
}

// BenchmarkPages renders the overview and the loop page of a loop of 10 and of 1,000
// iterations: bytes per page (before the live log, which streams after it) and the time
// per recorded iteration, which must not grow with the loop's length.
func BenchmarkPages(b *testing.B) {
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("loop/iterations=%d", n), func(b *testing.B) {
			_, h, req := pageOf(b, n)
			var size int
			for b.Loop() {
				w := httptest.NewRecorder()
				h.ServeHTTP(w, req)
				if w.Code != http.StatusOK {
					b.Fatalf("the loop's page: %d %s", w.Code, w.Body)
				}
				size = w.Body.Len()
			}
			b.ReportMetric(float64(size), "bytes/page")
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N)/float64(n), "ns/iteration")
		})
	}
	b.Run("overview", func(b *testing.B) {
		s, h, _ := pageOf(b, 10)
		req := httptest.NewRequest("GET", s.Base(localAddr(b))+"/", nil)
		req.AddCookie(&http.Cookie{Name: cookieName(req), Value: s.token})
		var size int
		for b.Loop() {
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			size = w.Body.Len()
		}
		b.ReportMetric(float64(size), "bytes/page")
	})
}

// localAddr is where the benchmark's dashboard listens: loopback, a fixed port.
func localAddr(testing.TB) net.Addr { return &net.TCPAddr{IP: net.IPv4(127, 0, 0, 1), Port: 8080} }

// A loop of a thousand iterations has a page under 100 KB: the latest 100 iterations,
// newest first, and a link to the older ones, page by page down to the first; the live
// page's refresh of an older page's timeline stays on it.
func TestALongLoopsPageIsPaged(t *testing.T) {
	s, ts := startTestServer(t, &fakeSource{runs: longLoop(1000)})
	c := browser(t)
	code, body := get(t, c, ts.URL+"/loops/main?token="+s.token)
	if code != http.StatusOK || len(body) > 100<<10 {
		t.Fatalf("the page of a loop of 1,000 iterations: %d, %d bytes; want 200 and at most 100 KB", code, len(body))
	}
	rows := regexp.MustCompile(`id="iteration-(\d+)"`)
	for before, want := range map[string][2]string{"": {"1000", "901"}, "901": {"900", "801"}, "101": {"100", "1"}} {
		page := ts.URL + "/loops/main"
		if before != "" {
			page += "?before=" + before
		}
		_, body := get(t, c, page)
		got := rows.FindAllStringSubmatch(body, -1)
		if len(got) != 100 || got[0][1] != want[0] || got[99][1] != want[1] {
			t.Errorf("%s lists %d iterations, %v…; want %s down to %s", page, len(got), got[:min(len(got), 1)], want[0], want[1])
		}
		older := `href="/loops/main?before=` + want[1] + `" id="older"`
		if hasOlder := strings.Contains(body, older); hasOlder != (want[1] != "1") {
			t.Errorf("%s: a link to older iterations %v, want %v", page, hasOlder, want[1] != "1")
		}
		if before != "" && (!strings.Contains(body, `<a href="/loops/main">Newest iterations</a>`) ||
			!strings.Contains(body, `data-timeline="/loops/main?part=timeline&before=`+before+`"`)) {
			t.Errorf("%s: no link to the newest, or its refresh leaves the page", page)
		}
	}
}
