package serve

import (
	"html"
	"strings"
	"testing"
)

// show writes tokens as text with [class:text] for the coloured ones.
func show(parts []token) string {
	var b strings.Builder
	for _, p := range parts {
		if p.Class == "" {
			b.WriteString(p.Text)
		} else {
			b.WriteString("[" + p.Class + ":" + p.Text + "]")
		}
	}
	return b.String()
}

func TestHighlightLines(t *testing.T) {
	for _, c := range []struct{ file, code, want string }{
		{"a.go", `func main() { return "x\"y" } // done`, `[kw:func] main() { [kw:return] [str:"x\"y"] } [com:// done]`},
		{"a.go", `x := 0x1F + 3.5 + v2`, `x := [num:0x1F] + [num:3.5] + v2`},
		{"a.go", `iffy := format(ifx)`, `iffy := format(ifx)`},
		{"a.go", "s := `raw` + 'c'", "s := [str:`raw`] + [str:'c']"},
		{"a.py", `def f(self): return None  # why`, `[kw:def] f([kw:self]): [kw:return] [kw:None]  [com:# why]`},
		{"a.ts", `const x = /* n */ 1;`, `[kw:const] x = [com:/* n */] [num:1];`},
		{"run.sh", `echo $# "${#a}" # count`, `echo $# [str:"${#a}"] [com:# count]`},
		{"Makefile", `all: ; go test # x`, `all: ; go test [com:# x]`},
		{"q.sql", `SELECT a FROM t -- all`, `[kw:SELECT] a [kw:FROM] t [com:-- all]`},
		{"lib.rs", `fn f<'a>(x: &'a str) -> Option<u8> { None }`, `[kw:fn] f<'a>(x: &'a str) -> Option<u8> { [kw:None] }`},
		{"a.go", `"unterminated`, `[str:"unterminated]`},
		{"a.go", `x := "é" // ünïcode`, `x := [str:"é"] [com:// ünïcode]`},
	} {
		s, _ := scanners("diff --git a/" + c.file + " b/" + c.file)
		if s == nil {
			t.Fatalf("%s: not coloured", c.file)
		}
		if got := show(s.line(c.code)); got != c.want {
			t.Errorf("%s %q:\n got %s\nwant %s", c.file, c.code, got, c.want)
		}
	}
	if old, new := scanners("diff --git a/notes.md b/notes.md"); old != nil || new != nil {
		t.Errorf("markdown is coloured")
	}
}

// A block comment or a multi-line string carries over to the next lines of its side,
// and a new hunk starts afresh.
func TestHighlightBlocksSpanLines(t *testing.T) {
	diff := "diff --git a/x.go b/x.go\n--- a/x.go\n+++ b/x.go\n@@ -1,3 +1,4 @@\n" +
		" /* a comment\n" +
		"+still if\n" +
		"-old if */ if\n" +
		"+end */ if\n" +
		"@@ -9 +9 @@\n" +
		"+if x\n"
	var got []string
	for _, l := range diffLines(diff) {
		got = append(got, l.Marker+show(l.Parts))
	}
	want := []string{
		" [com:/* a comment]",
		"+[com:still if]",
		"-[com:old if */] [kw:if]",
		"+[com:end */] [kw:if]",
		"@@ -9 +9 @@",
		"+[kw:if] x",
	}
	if strings.Join(got[4:], "\n") != strings.Join(want, "\n") {
		t.Errorf("got\n%s\nwant\n%s", strings.Join(got[4:], "\n"), strings.Join(want, "\n"))
	}
}

// A huge line is coloured only in its first part, and the whole is kept.
func TestHighlightLongLine(t *testing.T) {
	s, _ := scanners("diff --git a/x.go b/x.go")
	long := strings.Repeat("if ", highlightMax)
	parts := s.line(long)
	var whole strings.Builder
	for _, p := range parts {
		whole.WriteString(p.Text)
	}
	if whole.String() != long {
		t.Fatalf("the line was not kept whole")
	}
	if last := parts[len(parts)-1]; last.Class != "" || len(last.Text) < len(long)-highlightMax {
		t.Errorf("the line's end was coloured: %d parts, the last %q…", len(parts), last.Text[:10])
	}
}

// BenchmarkHighlightAFullDiff colours and writes out the largest diff a page shows, all of
// it code, against a baseline of the same run: the same diff only escaped for HTML. (Left to
// html/template the page took 3.2 s; built in Go, 0.36 s, docs/dev/benchmarks.md.)
func BenchmarkHighlightAFullDiff(b *testing.B) {
	line := "+\tif err := f(\"a /* b\", 42); err != nil { return err } // c\n"
	diff := "diff --git a/x.go b/x.go\n@@ -1 +1 @@\n" + strings.Repeat(line, diffLimit/len(line))
	b.Run("escaped only", func(b *testing.B) {
		b.SetBytes(int64(len(diff)))
		for b.Loop() {
			html.EscapeString(diff)
		}
	})
	b.Run("coloured", func(b *testing.B) {
		b.SetBytes(int64(len(diff)))
		for b.Loop() {
			diffHTML(diffLines(diff))
		}
	})
}
