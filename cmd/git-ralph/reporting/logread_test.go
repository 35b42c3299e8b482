package reporting

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"
)

func TestLogLineFormatsRecords(t *testing.T) {
	loc := time.FixedZone("UTC+2", 2*60*60)
	tests := []struct {
		name, line, want string
	}{
		{"attributes keep the file's order",
			`{"time":"2026-11-21T02:00:01.123Z","level":"INFO","msg":"iteration finished","iteration":3,"record":12,"outcome":"success","zeta":1,"alpha":2}`,
			`2026-11-21 04:00:01 INFO  iteration finished iteration=3 record=12 outcome=success zeta=1 alpha=2`},
		{"nested groups are flattened",
			`{"time":"2026-11-21T02:00:01Z","level":"WARN","msg":"limit","agent":{"name":"claude","wait":{"ms":1500,"until":"soon"}},"after":true}`,
			`2026-11-21 04:00:01 WARN  limit agent.name=claude agent.wait.ms=1500 agent.wait.until=soon after=true`},
		{"values that need it are quoted",
			`{"time":"2026-11-21T02:00:01Z","level":"ERROR","msg":"push failed","err":"rejected by origin","empty":"","eq":"a=b","nl":"one\ntwo","ok":"plain-value"}`,
			`2026-11-21 04:00:01 ERROR push failed err="rejected by origin" empty="" eq="a=b" nl="one\ntwo" ok=plain-value`},
		{"numbers, null and arrays as JSON writes them",
			`{"time":"2026-11-21T02:00:01Z","level":"DEBUG","msg":"m","big":12345678901234567890,"f":1.5e-3,"none":null,"files":["a.go", "b c.go"],"empty":{}}`,
			`2026-11-21 04:00:01 DEBUG m big=12345678901234567890 f=1.5e-3 none=null files=["a.go","b c.go"] empty={}`},
		{"a message with a newline stays on one line",
			`{"time":"2026-11-21T02:00:01Z","level":"INFO","msg":"two\nlines"}`,
			`2026-11-21 04:00:01 INFO  "two\nlines"`},
		{"custom levels and odd times",
			`{"time":"yesterday","level":"INFO+2","msg":"m"}`,
			`yesterday INFO+2 m`},
		{"a record without time or level",
			`{"msg":"bare","k":"v"}`,
			`bare k=v`},
		{"a second time attribute is an attribute",
			`{"time":"2026-11-21T02:00:01Z","level":"INFO","msg":"m","time":"later"}`,
			`2026-11-21 04:00:01 INFO  m time=later`},
		{"a torn line is shown as it is",
			`{"time":"2026-11-21T02:00:01Z","level":"INFO","msg":"iteration fin`,
			`{"time":"2026-11-21T02:00:01Z","level":"INFO","msg":"iteration fin`},
		{"text that is not JSON is shown as it is",
			`panic: something else wrote here`,
			`panic: something else wrote here`},
		{"JSON that is not an object is shown as it is", `[1,2]`, `[1,2]`},
		{"trailing garbage makes it not a record", `{"msg":"m"} {"msg":"n"}`, `{"msg":"m"} {"msg":"n"}`},
	}
	show := LogLine(false, LogFilter{}, loc)
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, ok := show([]byte(tt.line))
			if !ok || got != tt.want {
				t.Errorf("got %q (shown %v)\nwant %q", got, ok, tt.want)
			}
		})
	}
}

func TestLogLineFilters(t *testing.T) {
	line := []byte(`{"time":"2026-11-21T02:00:01Z","level":"INFO","msg":"m","run":"r1"}`)
	if got, ok := LogLine(true, LogFilter{}, time.UTC)(line); !ok || got != string(line) {
		t.Errorf("--json changed the line: %q", got)
	}
	if _, ok := LogLine(false, LogFilter{}, time.UTC)(nil); ok {
		t.Error("an empty line was shown")
	}
	byRun := LogLine(false, LogFilter{Run: "r1"}, time.UTC)
	for line, want := range map[string]bool{
		`{"msg":"m","run":"r1"}`:        true,
		`{"msg":"m","run":"r2"}`:        false,
		`{"msg":"m"}`:                   false,
		`{"msg":"m","x":{"run":"r1"}}`:  false,
		`not a record, so of no run r1`: false,
	} {
		if _, ok := byRun([]byte(line)); ok != want {
			t.Errorf("--run r1 shows %s: %v, want %v", line, ok, want)
		}
	}
}

func TestLogLineLevelFilter(t *testing.T) {
	warnAndUp := LogLine(false, LogFilter{Level: "warn"}, time.UTC)
	for line, want := range map[string]bool{
		`{"level":"DEBUG","msg":"m"}`:  false,
		`{"level":"INFO","msg":"m"}`:   false,
		`{"level":"WARN","msg":"m"}`:   true,
		`{"level":"ERROR","msg":"m"}`:  true,
		`{"level":"INFO+4","msg":"m"}`: true, // slog's own spelling of a level between
		`{"level":"LOUD","msg":"m"}`:   false,
		`{"msg":"no level"}`:           false,
		`not a record`:                 false,
	} {
		if _, ok := warnAndUp([]byte(line)); ok != want {
			t.Errorf("--level warn shows %s: %v, want %v", line, ok, want)
		}
	}
	debugOfR1 := LogLine(false, LogFilter{Run: "r1", Level: "debug"}, time.UTC)
	if _, ok := debugOfR1([]byte(`{"level":"DEBUG","msg":"m","run":"r1"}`)); !ok {
		t.Error("--level debug --run r1 hides r1's debug record")
	}
	if _, ok := debugOfR1([]byte(`{"level":"ERROR","msg":"m","run":"r2"}`)); ok {
		t.Error("--level debug --run r1 shows r2's record")
	}
}

func TestLinePrinterKeepsTheLastLinesUntilFlush(t *testing.T) {
	var out bytes.Buffer
	p := &LinePrinter{w: &out, show: AsIs, last: 2}
	for _, line := range []string{"a", "b", "", "c"} {
		p.Add([]byte(line))
	}
	if out.Len() != 0 {
		t.Fatalf("printed before flush: %q", out.String())
	}
	p.Flush()
	p.Add([]byte("d"))
	if got, want := out.String(), "\nc\nd\n"; got != want {
		t.Errorf("printed %q, want %q", got, want)
	}
}

// tailLines collects what a LogTail passes on.
type tailLines []string

func (l *tailLines) add(line []byte) error { *l = append(*l, string(line)); return nil }

func appendTo(t *testing.T, path, s string) {
	t.Helper()
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if _, err := f.WriteString(s); err != nil {
		t.Fatal(err)
	}
}

func TestLogTailWaitsForAnUnfinishedLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ralph.log")
	tail := &LogTail{path: path}
	defer tail.Close()
	var got tailLines
	if err := tail.Poll(got.add); err != nil || len(got) != 0 {
		t.Fatalf("poll of a missing file = %v, %v", got, err)
	}
	appendTo(t, path, "one\ntw")
	tail.Poll(got.add)
	appendTo(t, path, "o\nthree")
	tail.Poll(got.add)
	if want := []string{"one", "two"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

func TestLogTailFollowsARotation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ralph.log")
	appendTo(t, path, "old 1\n")
	tail := &LogTail{path: path}
	defer tail.Close()
	var got tailLines
	tail.Poll(got.add)
	appendTo(t, path, "old 2\nold torn")
	if err := os.Rename(path, path+".1"); err != nil {
		t.Fatal(err)
	}
	appendTo(t, path, "new 1\n")
	tail.Poll(got.add)
	if want := []string{"old 1", "old 2", "old torn", "new 1"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

func TestLogTailStartsOverAfterATruncation(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ralph.log")
	appendTo(t, path, "a long first line\n")
	tail := &LogTail{path: path}
	defer tail.Close()
	var got tailLines
	tail.Poll(got.add)
	os.WriteFile(path, []byte("short\n"), 0o644)
	tail.Poll(got.add)
	tail.Poll(got.add)
	if want := []string{"a long first line", "short"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

func TestReadLogPassesAnUnfinishedLastLine(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ralph.log")
	appendTo(t, path, "one\n\ntorn")
	var got tailLines
	if err := ReadLog(path, got.add); err != nil {
		t.Fatal(err)
	}
	if want := []string{"one", "", "torn"}; !slices.Equal(got, want) {
		t.Errorf("lines = %q, want %q", got, want)
	}
}

func TestEveryTickEndsWithTheContext(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	steps := 0
	err := EveryTick(ctx, func() (bool, error) {
		if steps++; steps == 2 {
			cancel()
		}
		return false, nil
	})
	if err != nil || steps != 2 {
		t.Errorf("everyTick = %v after %d steps, want nil after 2", err, steps)
	}
}
