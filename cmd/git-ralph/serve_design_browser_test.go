//go:build linux

package main

import (
	"encoding/base64"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestTheDashboardAsAPersonSeesIt drives the dashboard in headless Chromium beside a
// loop whose first iteration fails its validation and whose second passes it, and checks
// what a person would look for: the repository's name, the loop's card, the timeline
// gaining a row as each iteration ends without the page being reloaded, the failed
// validation drawn in the failure colour and the passed one in the success colour, the
// charts of outcomes, cost and tokens ending at the last iteration, the live output in
// one section per iteration, the diff's file list, line numbers, changed words and links
// to the other iterations, and no page wider than a phone's 390 px screen, in light and
// dark.
// With RALPH_SCREENSHOTS=1 it saves the screenshots of docs/images.
func TestTheDashboardAsAPersonSeesIt(t *testing.T) {
	b := startChromium(t)
	scratchRepo(t)
	// the repository under a name of a project's, as the screenshots show it
	here, _ := os.Getwd()
	const repo = "greeter"
	moved := filepath.Join(filepath.Dir(here), repo)
	if err := os.Rename(here, moved); err != nil {
		t.Fatal(err)
	}
	t.Chdir(moved)
	home := t.TempDir() // the user's spend is kept there, out of the work tree
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", filepath.Join(home, ".config"))
	t.Setenv("XDG_STATE_HOME", filepath.Join(home, ".local", "state"))
	// two worktree loops whose merges need review: one conflicts with the user's commit,
	// the other's merged result fails its validation
	for _, v := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
		t.Setenv(v, "T")
	}
	for _, v := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
		t.Setenv(v, "t@example.com")
	}
	t.Setenv("PATH", installSelf(t)+string(os.PathListSeparator)+os.Getenv("PATH"))
	ralph(t, "loop", "--worktree", "clash", "--max", "1", "--idle-threshold", "0", "--agent-cmd", "echo loop > shared.txt; git add shared.txt; git commit -qm 'loop side'")
	ralph(t, "loop", "--worktree", "tests", "--max", "1", "--idle-threshold", "0", "--agent-cmd", "echo hi > hi.txt; git add hi.txt; git commit -qm hi")
	if out, err := exec.Command("sh", "-c", "echo user > shared.txt && git add shared.txt && git commit -qm 'user side'").CombinedOutput(); err != nil {
		t.Fatalf("the user's commit: %v\n%s", err, out)
	}
	ralph(t, "merge", "clash")
	ralph(t, "merge", "tests", "--validate", `echo "--- FAIL: TestGreet (0.00s)"; echo "    greet_test.go:9: got hello, want hi"; exit 1`)
	if runs := ralph(t, "runs"); strings.Count(runs, "needs-review") != 2 {
		t.Fatalf("the two merges do not need review:\n%s", runs)
	}

	// a claude of the test's: it writes greet.go, says so in claude's stream-json, waits
	// for the test's word and reports a cost of $0.30, $0.45, $0.60 …
	bin := t.TempDir()
	claude := `#!/bin/sh
i=$RALPH_ITERATION
printf 'package greet\n\n// Greet says hello, %s times.\nfunc Greet() string {\n\treturn "hello"\n}\n' $i > greet.go
echo '{"type":"system","subtype":"init","model":"claude-sonnet-4-5","apiKeySource":"none","session_id":"s"}'
echo '{"type":"assistant","message":{"role":"assistant","content":[{"type":"text","text":"working on iteration '$i'"}]},"session_id":"s"}'
while [ ! -e .git/next$i ]; do sleep 0.1; done
echo '{"type":"result","subtype":"success","is_error":false,"result":"done with '$i'","total_cost_usd":0.'$((15 + 15 * i))',"usage":{"input_tokens":1000,"output_tokens":500},"session_id":"s"}'
`
	if err := os.WriteFile(filepath.Join(bin, "claude"), []byte(claude), 0o755); err != nil {
		t.Fatal(err)
	}
	t.Setenv("PATH", bin+string(os.PathListSeparator)+os.Getenv("PATH"))
	startFakeLoopWith(t, "3", "", "--agent", "claude", "--max-cost", "2", "--validate", "test -e .git/passes")
	waitFor(t, "the agent to run", func() bool {
		out, _ := os.ReadFile(".ralph/history/1/output.log")
		return strings.Contains(string(out), "working on iteration 1")
	})
	base, token := startServe(t)

	b.open(base + "/?token=" + token)
	b.waitFor("the loop's card", `document.querySelector('.card[data-loop="main"] .badge.state').innerText.startsWith("running")`)
	if got := b.text("#repo"); got != repo {
		t.Errorf("the header names %q, want the repository's name %q", got, repo)
	}
	if title, _ := b.eval("document.title").(string); !strings.Contains(title, repo) {
		t.Errorf("the title %q lacks the repository's name %q", title, repo)
	}

	b.click(`a[href="/loops/main"]`)
	b.eval("window.__same = true") // gone if the page reloads
	b.waitFor("the first iteration's section", `[...document.querySelectorAll("#live details summary")].some(s => s.innerText.startsWith("Iteration 1"))`)
	b.waitFor("its output", `document.getElementById("live").innerText.includes("working on iteration 1")`)
	b.waitFor("the state's controls", `document.getElementById("resume").disabled && !document.getElementById("pause").disabled`)
	if n := b.eval(`document.querySelectorAll("#timeline tbody tr").length`); n != float64(0) {
		t.Errorf("the timeline has %v rows before an iteration ended, want 0", n)
	}
	touch(t, ".git/next1")
	b.waitFor("the timeline's row of iteration 1, without a reload", `window.__same && document.querySelector("#iteration-1") !== null`)
	b.waitFor("the second iteration's section", `[...document.querySelectorAll("#live details summary")].some(s => s.innerText.startsWith("Iteration 2"))`)
	fail := b.style("#iteration-1 .badge.validation", "color")
	if got := b.text("#iteration-1 .badge.validation"); got != "failed: exit code 1" || !sameColour(b, fail, "--fail") {
		t.Errorf("iteration 1's validation says %q in %s, want failed in the failure colour (%s)", got, fail, b.style("body", "--fail"))
	}
	touch(t, ".git/passes")
	touch(t, ".git/next2")
	b.waitFor("the timeline's row of iteration 2, without a reload", `window.__same && document.querySelector("#iteration-2") !== null`)
	if pass := b.style("#iteration-2 .badge.validation", "color"); b.text("#iteration-2 .badge.validation") != "passed" || !sameColour(b, pass, "--ok") {
		t.Errorf("iteration 2's validation says %q in %s, want passed in the success colour", b.text("#iteration-2 .badge.validation"), pass)
	}
	// iteration 3 starts as soon as 2 ends, so its section may be there already: the
	// latest section is open, every earlier one closed
	open, _ := b.eval(`[...document.querySelectorAll("#live details")].map(d => d.open).join()`).(string)
	if sections := strings.Split(open, ","); len(sections) < 2 || sections[len(sections)-1] != "true" || strings.Contains(strings.Join(sections[:len(sections)-1], ","), "true") {
		t.Errorf("the live output's sections open: %v, want the last only (false,…,true)", open)
	}
	// the charts, drawn again with the timeline: a cell of the outcomes strip per row, with
	// the row's outcome in its title and its colour; the last bars the last iteration's
	b.waitFor("the charts of two iterations", `document.querySelectorAll("#outcome-chart > svg > rect.cell").length === 2`)
	strip, _ := b.eval(`[...document.querySelectorAll("#outcome-chart > svg > rect.cell")].map(r => r.querySelector("title").textContent + " " + getComputedStyle(r).fill).join("; ")`).(string)
	rows, _ := b.eval(`[...document.querySelectorAll("#timeline tbody tr")].reverse().map(r => "iteration " + r.id.slice(10) + ": " + r.querySelector(".badge.outcome").innerText).join("; ")`).(string)
	if cells := strings.Split(strip, "; "); len(cells) != 2 || !strings.HasPrefix(strip, strings.Split(rows, "; ")[0]+" ") || !strings.Contains(cells[1], strings.Split(rows, "; ")[1]+" ") ||
		!sameColour(b, strings.SplitN(cells[1], " ", 4)[3], "--ok") {
		t.Errorf("the outcomes strip says %q; the timeline %q, the success colour %s", strip, rows, b.style("body", "--ok"))
	}
	for chart, want := range map[string]string{"#cost-chart": "iteration 2: $0.45", "#tokens-chart": "iteration 2: 1,500 tokens"} {
		if got := b.eval(`[...document.querySelectorAll("` + chart + ` rect")].pop().querySelector("title").textContent`); got != want {
			t.Errorf("the last bar of %s says %v, want %q", chart, got, want)
		}
	}
	if got := b.text("#spend-chart figcaption"); !strings.HasPrefix(got, "The latest run's spend: $0.75 of $2.00 (max_cost)") {
		t.Errorf("the spend chart says %q", got)
	}
	b.waitFor("a line of the open section", `document.querySelector("#live details[open] pre .line time") !== null`)
	if stamp := b.text("#live details[open] pre .line time"); len(stamp) != 8 || stamp[2] != ':' {
		t.Errorf("a live line's time is %q, want HH:MM:SS", stamp)
	}
	b.save("dashboard-loop")

	b.click(`a[href="/loops/main/iterations/2/diff"]`)
	b.waitFor("the diff's file list", `document.querySelector(".files a").innerText === "greet.go"`)
	if got := b.text("pre.diff .add .ln-new"); got != "3" {
		t.Errorf("the added line's number is %q, want 3 (the comment's line in greet.go)", got)
	}
	if got := b.text("pre.diff .del .ln-old"); got != "3" {
		t.Errorf("the deleted line's number is %q, want 3", got)
	}
	if h := b.eval(`document.querySelector("pre.diff .add").getBoundingClientRect().height < 2 * parseFloat(getComputedStyle(document.querySelector("pre.diff")).lineHeight)`); h != true {
		t.Error("a diff's line takes more than one line's height (the newlines between lines drawn as blank lines)")
	}
	if prev := b.eval(`(document.querySelector("a[rel=prev]") || {}).pathname`); prev != "/loops/main/iterations/1/diff" {
		t.Errorf("the previous iteration's link goes to %v", prev)
	}
	if w := b.eval(`document.querySelector("pre.diff .add").getBoundingClientRect().width >= document.querySelector(".diff-wrap").clientWidth - 2`); w != true {
		t.Error("an added line's tint does not run the diff's full width")
	}
	// the comment's one changed word marked on each side, in a tint of its own
	if del, add := b.text("pre.diff .del mark"), b.text("pre.diff .add mark"); del != "1" || add != "2" {
		t.Errorf("the changed words marked: %q removed, %q added; want 1 and 2 (\"hello, 1 times\" to \"hello, 2 times\")", del, add)
	}
	if bg := b.style("pre.diff .add mark", "background-color"); !sameColour(b, bg, "--add-word") || sameColour(b, bg, "--add-bg") {
		t.Errorf("an added word's tint is %s, want --add-word's, apart from the line's", bg)
	}
	b.save("dashboard-diff")

	// the overview again, with two iterations' spend and outcome
	b.open(base + "/")
	if got := b.text(`.card[data-loop="main"] .spend`); !strings.HasPrefix(got, "$0.75 of $2.00 (max_cost)") {
		t.Errorf("the card's spend says %q, want $0.75 of $2.00 (max_cost)", got)
	}
	if got := b.text(`.card[data-loop="clash"] .conflicts`); got != "shared.txt" {
		t.Errorf("the conflicting loop's card lists %q, want shared.txt", got)
	}
	if got := b.text(`.card[data-loop="tests"] .merge-output`); !strings.Contains(got, "--- FAIL: TestGreet") {
		t.Errorf("the failed validation's card shows %q, want its output", got)
	}
	if c := b.style(`.card[data-loop="tests"] .badge.state`, "color"); !sameColour(b, c, "--fail") || !strings.HasPrefix(b.text(`.card[data-loop="tests"] .badge.state`), "needs-review") {
		t.Errorf("the loop needing review is drawn in %s, not the failure colour", c)
	}
	b.save("dashboard-overview")

	// a phone: nothing wider than its screen, on every page
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true})
	for _, p := range []struct{ path, name string }{{"/", "dashboard-overview-phone"}, {"/loops/main", "dashboard-loop-phone"}, {"/loops/main/iterations/2/diff", "dashboard-diff-phone"}} {
		b.open(base + p.path)
		if w := b.eval("document.documentElement.scrollWidth"); w.(float64) > 390 {
			t.Errorf("%s on a 390 px phone is %v px wide: it scrolls sideways", p.path, w)
		}
		b.save(p.name)
	}
	// the dark scheme, when the system prefers it
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 1200, "height": 800, "deviceScaleFactor": 1, "mobile": false})
	b.call("Emulation.setEmulatedMedia", map[string]any{"features": []map[string]string{{"name": "prefers-color-scheme", "value": "dark"}}})
	b.open(base + "/loops/main")
	if bg := b.style("body", "background-color"); bg != "rgb(13, 17, 23)" {
		t.Errorf("the page's background in the dark scheme is %s, want rgb(13, 17, 23)", bg)
	}
	b.save("dashboard-loop-dark")
	b.open(base + "/")
	b.save("dashboard-overview-dark")
	b.open(base + "/loops/main/iterations/2/diff")
	if bg := b.style("pre.diff .add mark", "background-color"); !sameColour(b, bg, "--add-word") || bg == "rgb(171, 242, 188)" {
		t.Errorf("an added word's tint in the dark scheme is %s, want the dark --add-word", bg)
	}
	b.save("dashboard-diff-dark")
	// a phone in the dark
	b.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": 390, "height": 844, "deviceScaleFactor": 2, "mobile": true})
	for _, p := range []struct{ path, name string }{{"/", ""}, {"/loops/main", "dashboard-loop-phone-dark"}, {"/loops/main/iterations/2/diff", ""}} {
		b.open(base + p.path)
		if w := b.eval("document.documentElement.scrollWidth"); w.(float64) > 390 {
			t.Errorf("%s on a 390 px phone in the dark is %v px wide: it scrolls sideways", p.path, w)
		}
		if bg := b.style("body", "background-color"); bg != "rgb(13, 17, 23)" {
			t.Errorf("%s on a phone in the dark: the background is %s", p.path, bg)
		}
		if p.name != "" {
			b.save(p.name)
		}
	}
	touch(t, ".git/next3")
}

// docsImages is where RALPH_SCREENSHOTS=1 saves the screenshots the docs show.
var docsImages, _ = filepath.Abs(filepath.Join("..", "..", "docs", "images"))

// style is the element's computed style property (a custom property too).
func (b *chromium) style(selector, prop string) string {
	b.t.Helper()
	v, _ := b.eval(`getComputedStyle(document.querySelector(` + jsString(selector) + `)).getPropertyValue(` + jsString(prop) + `).trim()`).(string)
	return v
}

// sameColour says whether the colour css (rgb(…)) is the stylesheet's custom property
// v, as the browser resolves it.
func sameColour(b *chromium, css, v string) bool {
	got, _ := b.eval(`(function () { var e = document.createElement("i"); e.style.color = "var(` + v + `)"; document.body.appendChild(e);` +
		` var c = getComputedStyle(e).color; e.remove(); return c; })()`).(string)
	return got != "" && got == css
}

func jsString(s string) string {
	q, _ := json.Marshal(s)
	return string(q)
}

func touch(t *testing.T, name string) {
	t.Helper()
	if err := os.WriteFile(name, nil, 0o644); err != nil {
		t.Fatal(err)
	}
}

// save saves a screenshot into docs/images, as NAME with .png added, when RALPH_SCREENSHOTS=1, else among
// the test's screenshots.
func (b *chromium) save(name string) {
	b.t.Helper()
	if os.Getenv("RALPH_SCREENSHOTS") != "1" {
		b.screenshot(name)
		return
	}
	// the whole page, not the window's part of it
	var m struct {
		CSSContentSize struct{ Width, Height float64 }
	}
	if err := json.Unmarshal(b.call("Page.getLayoutMetrics", nil), &m); err != nil {
		b.t.Fatal(err)
	}
	res := b.call("Page.captureScreenshot", map[string]any{"format": "png", "captureBeyondViewport": true,
		"clip": map[string]any{"x": 0, "y": 0, "width": m.CSSContentSize.Width, "height": m.CSSContentSize.Height, "scale": 1}})
	var shot struct{ Data string }
	if err := json.Unmarshal(res, &shot); err != nil {
		b.t.Fatal(err)
	}
	png, err := base64.StdEncoding.DecodeString(shot.Data)
	if err != nil {
		b.t.Fatal(err)
	}
	if err := os.MkdirAll(docsImages, 0o755); err != nil {
		b.t.Fatal(err)
	}
	path := filepath.Join(docsImages, name+".png")
	if err := os.WriteFile(path, png, 0o644); err != nil {
		b.t.Fatal(err)
	}
	b.t.Logf("screenshot: %s", path)
}
