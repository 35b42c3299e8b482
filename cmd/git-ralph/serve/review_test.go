package serve

import (
	"net/http"
	"strings"
	"testing"
)

// Browsers do not scope cookies by port: two dashboards on 127.0.0.1 (two repositories
// served at once) share one cookie jar, and one's cookie must not replace the other's.
func TestTwoDashboardsOnOneHostKeepTheirCookies(t *testing.T) {
	a, tsA, _ := newTestServer(t)
	b, tsB, _ := newTestServer(t)
	c := browser(t) // Go's cookie jar, as a browser's, ignores the port
	if code, _ := get(t, c, tsA.URL+"/?token="+a.token); code != http.StatusOK {
		t.Fatalf("first dashboard: %d", code)
	}
	if code, _ := get(t, c, tsB.URL+"/?token="+b.token); code != http.StatusOK {
		t.Fatalf("second dashboard: %d", code)
	}
	for name, u := range map[string]string{"first": tsA.URL, "second": tsB.URL} {
		if code, body := get(t, c, u+"/"); code != http.StatusOK {
			t.Errorf("the %s dashboard, after both were opened: %d %s", name, code, strings.TrimSpace(body))
		}
	}
}
