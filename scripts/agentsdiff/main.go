// Command agentsdiff compares two runs of the realagents scenarios — the CLIs at their
// pinned versions and at their newest — and prints, per CLI, the versions, which
// scenarios passed in each run, and what changed in what the CLI printed, with ids,
// timestamps, durations, token counts and paths taken out. With -update it makes the
// newest the pinned: it copies the newest recordings over the readers' fixtures and
// writes the newest versions into versions.txt. scripts/agents-latest.sh runs it.
package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strings"
	"time"
)

// main exits 0 when the newest versions behave as the pinned ones, 1 when anything
// differs, 2 on an error.
func main() {
	err := run(os.Args[1:], os.Stdout)
	switch {
	case errors.Is(err, errChanged):
		os.Exit(1)
	case err != nil:
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(2)
	}
}

// options are the command's flags.
type options struct {
	versions, fixtures string
	pinned, latest     string // DIR: DIR.log is the go test -v output, DIR/CLI/ the recordings
	update             bool
	clis               []string
}

// errChanged is returned, after the report, when the newest versions differ from the
// pinned ones in any way the report shows.
var errChanged = errors.New("changed")

func run(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("agentsdiff", flag.ContinueOnError)
	var o options
	fs.StringVar(&o.versions, "versions", "realagents/versions.txt", "the pinned versions")
	fs.StringVar(&o.fixtures, "fixtures", "loop/agentcli/testdata/recorded", "where the readers' recorded fixtures are")
	fs.StringVar(&o.pinned, "pinned", "", "the pinned run: DIR.log and DIR/CLI/*.out")
	fs.StringVar(&o.latest, "latest", "", "the newest run: DIR.log and DIR/CLI/*.out")
	fs.BoolVar(&o.update, "update", false, "copy the newest recordings over the fixtures and pin the newest versions")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.pinned == "" || o.latest == "" {
		return errors.New("-pinned and -latest are required")
	}
	o.clis = fs.Args()
	changed, err := report(o, stdout)
	if err != nil {
		return err
	}
	if changed {
		return errChanged
	}
	return nil
}

// report prints the comparison of every CLI and, with o.update, updates what changed.
// It reports whether anything differs between the pinned and the newest versions.
func report(o options, w io.Writer) (bool, error) {
	pins, err := readVersions(o.versions)
	if err != nil {
		return false, err
	}
	pinnedRes, err := readResults(o.pinned + ".log")
	if err != nil {
		return false, err
	}
	latestRes, err := readResults(o.latest + ".log")
	if err != nil {
		return false, err
	}
	pinnedWhy, err := readFailures(o.pinned+".log", pinnedRes)
	if err != nil {
		return false, err
	}
	latestWhy, err := readFailures(o.latest+".log", latestRes)
	if err != nil {
		return false, err
	}
	names := o.clis
	if len(names) == 0 {
		names = testNames(pinnedRes, latestRes)
	}
	newest := map[string]string{} // preset → newest version
	anyChange := false
	for _, name := range names {
		p, ok := presetOf(name, pins)
		if !ok {
			return false, fmt.Errorf("%s: no line for it in %s", name, o.versions)
		}
		if _, done := newest[p.preset]; !done {
			if newest[p.preset], err = npmNewest(p.pkg); err != nil {
				return false, err
			}
		}
		c := compareCLI(name, p, newest[p.preset], pinnedRes[name], latestRes[name],
			filepath.Join(o.pinned, name), filepath.Join(o.latest, name))
		c.whyBefore, c.whyAfter = pinnedWhy, latestWhy
		c.print(w)
		anyChange = anyChange || c.changed()
		if o.update && c.newest != p.version {
			if err := copyRecordings(filepath.Join(o.latest, name), filepath.Join(o.fixtures, name)); err != nil {
				return false, err
			}
			fmt.Fprintf(w, "  updated %s from the newest recordings\n", filepath.Join(o.fixtures, name))
		}
		fmt.Fprintln(w)
	}
	if o.update {
		if err := writeVersions(o.versions, newest); err != nil {
			return false, err
		}
	}
	return anyChange, nil
}

// pinned is one line of versions.txt.
type pinned struct{ preset, pkg, version string }

func readVersions(path string) ([]pinned, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []pinned
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		if len(f) != 3 {
			return nil, fmt.Errorf("%s:%d: want 'preset package version', got %q", path, n+1, line)
		}
		out = append(out, pinned{f[0], f[1], f[2]})
	}
	return out, nil
}

// writeVersions replaces the versions of the presets in newest, keeping the rest of the
// file (comments, order, columns) as it is.
func writeVersions(path string, newest map[string]string) error {
	data, err := os.ReadFile(path)
	if err != nil {
		return err
	}
	lines := strings.Split(string(data), "\n")
	for i, line := range lines {
		f := strings.Fields(line)
		if len(f) != 3 || strings.HasPrefix(f[0], "#") {
			continue
		}
		if v, ok := newest[f[0]]; ok && v != f[2] {
			lines[i] = strings.TrimSuffix(strings.TrimRight(line, " \t"), f[2]) + v
		}
	}
	return os.WriteFile(path, []byte(strings.Join(lines, "\n")), 0o644)
}

// presetOf finds the line of a test's CLI: its name is the preset, or preset-account.
func presetOf(name string, pins []pinned) (pinned, bool) {
	for _, p := range pins {
		if name == p.preset || strings.HasPrefix(name, p.preset+"-") {
			return p, true
		}
	}
	return pinned{}, false
}

// npmTimeout bounds one question to npm: without a network npm retries for minutes.
var npmTimeout = 2 * time.Minute

// npmNewest asks npm for the newest published version of pkg, as the tests did; its
// error carries npm's own words (ENOTFOUND, E404).
func npmNewest(pkg string) (string, error) {
	ctx, cancel := context.WithTimeout(context.Background(), npmTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, "npm", "view", pkg, "version")
	cmd.WaitDelay = time.Second // npm's children may hold the pipe after it is killed
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	switch {
	case ctx.Err() != nil:
		return "", fmt.Errorf("npm view %s version: no answer in %s (no network?)", pkg, npmTimeout)
	case err != nil:
		return "", fmt.Errorf("npm view %s version: %v: %s", pkg, err, lastLines(stderr.String(), 3))
	}
	v := strings.TrimSpace(string(out))
	if v == "" {
		return "", fmt.Errorf("npm view %s version: no version", pkg)
	}
	return v, nil
}

// lastLines is the last n non-empty lines of s, on one line.
func lastLines(s string, n int) string {
	lines := strings.FieldsFunc(s, func(r rune) bool { return r == '\n' })
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, " / ")
}

// results are the scenarios' outcomes of one go test -v run: CLI → scenario → PASS,
// FAIL or SKIP.
type results map[string]map[string]string

var resultLine = regexp.MustCompile(`^\s*--- (PASS|FAIL|SKIP): TestRealAgents/([^/\s]+)/(\S+)`)

func readResults(path string) (results, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	res := results{}
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		m := resultLine.FindStringSubmatch(sc.Text())
		if m == nil {
			continue
		}
		if res[m[2]] == nil {
			res[m[2]] = map[string]string{}
		}
		res[m[2]][m[3]] = m[1]
	}
	return res, sc.Err()
}

// testHeader starts the output of one test in a go test -v log (parallel tests take turns).
var testHeader = regexp.MustCompile(`^=== (?:RUN|PAUSE|CONT|NAME)\s+TestRealAgents/([^/\s]+)/(\S+)`)

// logLine is a line a test wrote (t.Log, t.Error): FILE_test.go:LINE: message.
var logLine = regexp.MustCompile(`^\s+\w+_test\.go:\d+: `)

// routine are the log lines every scenario writes, which say nothing about a failure.
var routine = regexp.MustCompile(`_test\.go:\d+: (?:git-ralph .*: exit -?\d+ after|installing \S+ into |the mock served:)`)

// maxWhy is how many lines of a failed scenario's messages the report shows.
const maxWhy = 6

// readFailures returns, per CLI/scenario, the first lines of what the test said when it
// failed: the checks' messages, without the routine log lines.
func readFailures(path string, res results) (map[string][]string, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	said := map[string][]string{}
	current, keep := "", false
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<24)
	for sc.Scan() {
		line := sc.Text()
		if m := testHeader.FindStringSubmatch(line); m != nil {
			current = m[1] + "/" + m[2]
			continue
		}
		if strings.HasPrefix(line, "=== ") || strings.HasPrefix(strings.TrimSpace(line), "--- ") {
			if strings.HasPrefix(line, "=== ") {
				current = ""
			}
			keep = false
			continue
		}
		if current == "" {
			continue
		}
		cli, scenario, _ := strings.Cut(current, "/")
		if res[cli][scenario] != "FAIL" {
			continue
		}
		if logLine.MatchString(line) {
			keep = !routine.MatchString(line)
		}
		if keep && len(said[current]) < maxWhy {
			said[current] = append(said[current], strings.TrimSpace(line))
		}
	}
	return said, sc.Err()
}

// testNames are the CLIs either run played, in order.
func testNames(runs ...results) []string {
	var names []string
	for _, r := range runs {
		for name := range r {
			if !slices.Contains(names, name) {
				names = append(names, name)
			}
		}
	}
	sort.Strings(names)
	return names
}

// comparison is what the report says about one CLI.
type comparison struct {
	name, pkg, pinned, newest string
	scenarios                 []string
	before, after             map[string]string   // scenario → PASS, FAIL, SKIP or "-" (not run)
	whyBefore, whyAfter       map[string][]string // CLI/scenario → what its failed test said
	diffs                     []fileDiff
}

type fileDiff struct {
	file string
	diff string // a unified diff of the recordings' shapes; "" when they are the same
	// killed: both runs were killed (the hung stream's timeout), and what a CLI prints
	// while it is stopped depends on when the signal came; its diff does not count as a
	// change of behaviour
	killed bool
}

func compareCLI(name string, p pinned, newest string, before, after map[string]string, pinnedDir, latestDir string) comparison {
	c := comparison{name: name, pkg: p.pkg, pinned: p.version, newest: newest, before: before, after: after}
	for _, m := range []map[string]string{before, after} {
		for sc := range m {
			if !slices.Contains(c.scenarios, sc) {
				c.scenarios = append(c.scenarios, sc)
			}
		}
	}
	sort.Strings(c.scenarios)
	files := map[string]bool{}
	for _, dir := range []string{pinnedDir, latestDir} {
		found, _ := filepath.Glob(filepath.Join(dir, "*.out"))
		for _, f := range found {
			files[filepath.Base(f)] = true
		}
	}
	names := make([]string, 0, len(files))
	for f := range files {
		names = append(names, f)
	}
	sort.Strings(names)
	exitsBefore, exitsAfter := readExits(pinnedDir), readExits(latestDir)
	for _, f := range names {
		d := diffShapes(filepath.Join(pinnedDir, f), filepath.Join(latestDir, f))
		killed := strings.HasPrefix(exitsBefore[f], "-") && strings.HasPrefix(exitsAfter[f], "-")
		c.diffs = append(c.diffs, fileDiff{file: f, diff: d, killed: killed})
	}
	return c
}

// readExits reads DIR/exits.txt: the exit status of each recording, -1 for a run
// killed by a signal.
func readExits(dir string) map[string]string {
	data, _ := os.ReadFile(filepath.Join(dir, "exits.txt"))
	out := map[string]string{}
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) == 2 {
			out[f[0]] = f[1]
		}
	}
	return out
}

func (c comparison) changed() bool {
	if c.pinned != c.newest {
		return true
	}
	for _, sc := range c.scenarios {
		if c.before[sc] != c.after[sc] {
			return true
		}
	}
	for _, d := range c.diffs {
		if d.diff != "" && !d.killed {
			return true
		}
	}
	return false
}

func (c comparison) print(w io.Writer) {
	version := "pinned " + c.pinned + ", the newest"
	if c.newest != c.pinned {
		version = "pinned " + c.pinned + ", newest " + c.newest
	}
	fmt.Fprintf(w, "%s: %s %s\n", c.name, c.pkg, version)
	if len(c.scenarios) == 0 {
		fmt.Fprintln(w, "  no scenario ran (see the go test logs)")
	}
	for _, sc := range c.scenarios {
		b, a := orDash(c.before[sc]), orDash(c.after[sc])
		mark := ""
		if a != b {
			mark = "   <- changed"
		}
		fmt.Fprintf(w, "  %-20s pinned %-4s newest %-4s%s\n", sc, b, a, mark)
		for _, run := range []struct {
			label string
			why   map[string][]string
		}{{"pinned", c.whyBefore}, {"newest", c.whyAfter}} {
			for _, line := range run.why[c.name+"/"+sc] {
				if r := []rune(line); len(r) > 200 {
					line = string(r[:200]) + "…"
				}
				fmt.Fprintf(w, "      %s: %s\n", run.label, line)
			}
		}
	}
	same := true
	for _, d := range c.diffs {
		if d.diff == "" {
			continue
		}
		same = false
		if d.killed {
			fmt.Fprintf(w, "  what it printed differs in %s, killed in both runs (the order of what a CLI prints while it is stopped depends on timing):\n", d.file)
		} else {
			fmt.Fprintf(w, "  what it printed changed in %s:\n", d.file)
		}
		for _, line := range strings.Split(strings.TrimRight(d.diff, "\n"), "\n") {
			fmt.Fprintln(w, "    "+line)
		}
	}
	if same && len(c.diffs) > 0 {
		fmt.Fprintf(w, "  what it printed: the same events and messages in all %d recordings\n", len(c.diffs))
	}
}

func orDash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}

// diffShapes is `diff -u` of the shapes of two recordings ("" when equal); a missing
// recording is an empty one.
func diffShapes(pinnedFile, latestFile string) string {
	a, b := shapeFile(pinnedFile), shapeFile(latestFile)
	if slices.Equal(a, b) {
		return ""
	}
	dir, err := os.MkdirTemp("", "agentsdiff-")
	if err != nil {
		return err.Error()
	}
	defer os.RemoveAll(dir)
	pa, pb := filepath.Join(dir, "pinned"), filepath.Join(dir, "newest")
	os.WriteFile(pa, []byte(strings.Join(a, "\n")+"\n"), 0o644)
	os.WriteFile(pb, []byte(strings.Join(b, "\n")+"\n"), 0o644)
	out, _ := exec.Command("diff", "-u", "--label", "pinned", "--label", "newest", pa, pb).Output()
	return string(out)
}

func shapeFile(path string) []string {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	return shape(data)
}

// shape is what a recording shows of the CLI's behaviour: per line, the kind of event
// (type, subtype, the item's or part's type, the role, the status, the error's type) and
// the messages it carries, or the text of a non-JSON line; with ids, timestamps, numbers
// and paths replaced, and a run of identical lines (stream deltas, whose count depends on
// timing) kept once.
func shape(output []byte) []string {
	var out []string
	for line := range bytes.Lines(output) {
		t := bytes.TrimSpace(line)
		if len(t) == 0 {
			continue
		}
		var s string
		var ev map[string]any
		if t[0] == '{' && json.Unmarshal(t, &ev) == nil {
			if noise[str(ev["type"])] {
				continue
			}
			s = eventShape(ev)
		} else {
			s = "text: " + scrub(string(t))
		}
		if n := len(out); n > 0 && out[n-1] == s {
			continue
		}
		out = append(out, s)
	}
	return collapseRepeats(out)
}

// maxCycle is the longest run of lines collapseRepeats looks for a repeat of: a retry
// cycle (request, failure, retry notice) is a few lines long.
const maxCycle = 12

// collapseRepeats keeps once a block of lines repeated right after itself: how many
// times a CLI retries while an error lasts depends on timing, not on its behaviour.
func collapseRepeats(lines []string) []string {
	for changed := true; changed; {
		changed = false
		for size := 1; size <= maxCycle; size++ {
			for i := 0; i+2*size <= len(lines); i++ {
				if slices.Equal(lines[i:i+size], lines[i+size:i+2*size]) {
					lines = slices.Delete(lines, i+size, i+2*size)
					changed = true
					i--
				}
			}
		}
	}
	return lines
}

// noise are events that say nothing of what a CLI did and come between the others in
// an order that depends on timing (copilot's, with empty data, around every tool call).
var noise = map[string]bool{"session.background_tasks_changed": true}

// eventShape names one JSON event by its kinds and messages.
func eventShape(ev map[string]any) string {
	kind := []string{str(ev["type"])}
	for _, path := range [][]string{
		{"subtype"}, {"item", "type"}, {"part", "type"}, {"role"}, {"status"},
		{"error", "type"}, {"error", "name"}, {"data", "errorType"}, {"data", "infoType"},
	} {
		if v := str(at(ev, path...)); v != "" {
			kind = append(kind, path[len(path)-1]+"="+v)
		}
	}
	if b, ok := ev["is_error"].(bool); ok && b {
		kind = append(kind, "is_error")
	}
	s := strings.Join(kind, " ")
	var msgs []string
	collectMessages(ev, 0, &msgs)
	if len(msgs) > 0 {
		s += ": " + strings.Join(msgs, " | ")
	}
	return s
}

// messageKeys hold the CLIs' words about errors, retries and limits.
var messageKeys = map[string]bool{"message": true, "errorMessage": true, "error": true, "reason": true}

func collectMessages(v any, depth int, msgs *[]string) {
	obj, ok := v.(map[string]any)
	if !ok || depth > 3 {
		return
	}
	keys := make([]string, 0, len(obj))
	for k := range obj {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		switch val := obj[k].(type) {
		case string:
			if messageKeys[k] && val != "" {
				*msgs = append(*msgs, scrub(val))
			}
		case map[string]any:
			collectMessages(val, depth+1, msgs)
		}
	}
}

func at(v any, path ...string) any {
	for _, k := range path {
		obj, ok := v.(map[string]any)
		if !ok {
			return nil
		}
		v = obj[k]
	}
	return v
}

func str(v any) string {
	s, _ := v.(string)
	return s
}

// scrubbers replace, in order, what differs from one run to the next.
var scrubbers = []struct {
	re   *regexp.Regexp
	with string
}{
	{regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?(?:Z|[+-]\d\d:?\d\d)?`), "TIME"},
	{regexp.MustCompile(`\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b`), "ID"},
	{regexp.MustCompile(`\b[0-9a-fA-F]*\d[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\b|\b[0-9a-fA-F]*[a-fA-F][0-9a-fA-F]*\d[0-9a-fA-F]*\b`), "ID"},
	{regexp.MustCompile(`(?:/[\w.@+-]+){2,}`), "PATH"},
	{regexp.MustCompile(`\d+(?:\.\d+)?`), "N"},
}

func scrub(s string) string {
	for _, sc := range scrubbers {
		s = sc.re.ReplaceAllString(s, sc.with)
	}
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 240 {
		s = string(r[:240]) + "…"
	}
	return s
}

// copyRecordings replaces the recordings in dst with those in src: the *.out files and
// exits.txt, sorted (the tests append to it as the scenarios end), with the install
// cache's path replaced by $CACHE.
func copyRecordings(src, dst string) error {
	files, err := filepath.Glob(filepath.Join(src, "*.out"))
	if err != nil || len(files) == 0 {
		return fmt.Errorf("no recordings in %s", src)
	}
	old, _ := filepath.Glob(filepath.Join(dst, "*.out"))
	for _, f := range old {
		if err := os.Remove(f); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	cache := cacheDir()
	for _, f := range append(files, filepath.Join(src, "exits.txt")) {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		if cache != "" {
			data = bytes.ReplaceAll(data, []byte(cache), []byte("$CACHE"))
		}
		if filepath.Base(f) == "exits.txt" {
			lines := strings.Split(strings.TrimSpace(string(data)), "\n")
			sort.Strings(lines)
			data = []byte(strings.Join(lines, "\n") + "\n")
		}
		if err := os.WriteFile(filepath.Join(dst, filepath.Base(f)), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// cacheDir is where the tests install the CLIs (realagents/install_test.go).
func cacheDir() string {
	if dir := os.Getenv("RALPH_AGENT_CACHE"); dir != "" {
		return dir
	}
	base, err := os.UserCacheDir()
	if err != nil {
		return ""
	}
	return filepath.Join(base, "git-ralph", "agent-clis")
}
