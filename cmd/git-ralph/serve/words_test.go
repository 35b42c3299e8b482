package serve

import (
	"math/rand"
	"strings"
	"testing"
)

// marked writes a line's text with {…} around the words it changed.
func marked(l diffLine) string {
	var b strings.Builder
	in := false
	for _, p := range l.Parts {
		if p.Changed != in {
			b.WriteString(map[bool]string{true: "{", false: "}"}[p.Changed])
			in = p.Changed
		}
		b.WriteString(p.Text)
	}
	if in {
		b.WriteString("}")
	}
	return l.Marker + b.String()
}

// wordDiff is the removed and added lines of a one-hunk diff of the file, their changed
// words marked.
func wordDiff(file string, hunk ...string) []string {
	lines := diffLines("diff --git a/" + file + " b/" + file + "\n--- a/" + file + "\n+++ b/" + file + "\n@@ -1,9 +1,9 @@\n" + strings.Join(hunk, "\n") + "\n")
	markWords(lines)
	var out []string
	for i, l := range lines[4:] {
		var text strings.Builder
		for _, p := range l.Parts {
			text.WriteString(p.Text)
		}
		if text.String() != strings.TrimPrefix(hunk[i], l.Marker) {
			return []string{"the line " + hunk[i] + " was not kept whole: " + text.String()}
		}
		out = append(out, marked(l))
	}
	return out
}

// Each removed line is paired with the added line in the same place of the run that
// follows it, and the words that differ between the two are marked; lines with too
// little in common, lines without a partner and very long lines are left whole.
func TestTheWordsALineChanged(t *testing.T) {
	for _, c := range []struct {
		name string
		file string
		in   []string
		want []string
	}{
		{"a number", "a.go", []string{"-x := f(41, y)", "+x := f(42, y)"}, []string{"-x := f({41}, y)", "+x := f({42}, y)"}},
		{"words added inside a string", "a.go", []string{` 	// greet`, `-	return "hello"`, `+	return "hello, all"`},
			[]string{` 	// greet`, `-	return "hello"`, `+	return "hello{, all}"`}},
		{"a renamed name, twice", "a.py", []string{"-total = count + count", "+total = amount + amount"},
			[]string{"-total = {count} + {count}", "+total = {amount} + {amount}"}},
		{"lines too unlike", "a.go", []string{"-	if n > 1 {", "+	for i := range n {"}, []string{"-	if n > 1 {", "+	for i := range n {"}},
		{"pairs in order, the rest whole", "notes.txt", []string{"-one red apple", "-two ripe pears", "+one red peach", "+two ripe plums", "+three figs"},
			[]string{"-one red {apple}", "-two ripe {pears}", "+one red {peach}", "+two ripe {plums}", "+three figs"}},
		{"an added line first pairs with nothing", "notes.txt", []string{"+new line", "-old line"}, []string{"+new line", "-old line"}},
		{"a context line between ends the run", "notes.txt", []string{"-red car", " between", "+blue car"}, []string{"-red car", " between", "+blue car"}},
		{"words added", "a.go", []string{"-call(a, b)", "+call(a, b, c)"}, []string{"-call(a, b)", "+call(a, b{, c})"}},
		{"words removed", "a.go", []string{"-call(a, b, c)", "+call(a, c)"}, []string{"-call(a, {b, }c)", "+call(a, c)"}},
		{"a file's last line, without its newline", "notes.txt", []string{"-the end", `\ No newline at end of file`, "+the end.", `\ No newline at end of file`},
			[]string{"-the end", `\ No newline at end of file`, "+the end{.}", `\ No newline at end of file`}},
		{"not ASCII", "a.go", []string{`-s := "héllo wörld"`, `+s := "héllo welt"`}, []string{`-s := "héllo {wörld}"`, `+s := "héllo {welt}"`}},
	} {
		t.Run(c.name, func(t *testing.T) {
			if got := wordDiff(c.file, c.in...); strings.Join(got, "\n") != strings.Join(c.want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(c.want, "\n"))
			}
		})
	}
	long := strings.Repeat("word ", wordsMax/5+1)
	if got := wordDiff("notes.txt", "-"+long+"a", "+"+long+"b"); strings.Contains(strings.Join(got, ""), "{") {
		t.Errorf("a line of more than %d bytes was compared word by word", wordsMax)
	}
}

// The marks wrap the syntax colouring's spans, and a hostile file's text stays text: the
// page's HTML has the changed words in <mark> and every '<' of the file escaped.
func TestTheChangedWordsOnThePageAreEscaped(t *testing.T) {
	lines := diffLines("diff --git a/x.go b/x.go\n@@ -1 +1 @@\n" +
		`-s := "<script>alert(1)</script>" // </pre>` + "\n" +
		`+s := "<script>alert(2)</script>" // </pre><b>` + "\n")
	markWords(lines)
	page := string(diffHTML(lines))
	for _, want := range []string{
		`<span class="str">&#34;&lt;script&gt;alert(</span><mark><span class="str">1</span></mark><span class="str">)&lt;/script&gt;&#34;</span>`,
		`<span class="str">&#34;&lt;script&gt;alert(</span><mark><span class="str">2</span></mark><span class="str">)&lt;/script&gt;&#34;</span>`,
		// "</pre>" to "</pre><b>": "><b" added before the last ">", which both end with
		`<span class="com">// &lt;/pre</span><mark><span class="com">&gt;&lt;b</span></mark><span class="com">&gt;</span></span>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s:\n%s", want, page)
		}
	}
	if strings.Contains(page, "<script") || strings.Contains(page, "<b>") || strings.Count(page, "<mark>") != strings.Count(page, "</mark>") {
		t.Errorf("the file's text got through as HTML, or a mark is left open:\n%s", page)
	}
}

// BenchmarkDiffPage writes out the largest diff a page shows, all of it Go code whose
// lines were each changed in one word (a removed line, then its added one), with the
// changed words marked, against the baseline of the same run: the same diff coloured
// without them. docs/dev/benchmarks.md has the figures.
func BenchmarkDiffPage(b *testing.B) {
	pair := "-\tif err := f(\"a /* b\", 41); err != nil { return err } // c\n" +
		"+\tif err := f(\"a /* b\", 42); err != nil { return err } // c\n"
	diff := "diff --git a/x.go b/x.go\n@@ -1 +1 @@\n" + strings.Repeat(pair, diffLimit/len(pair))
	b.Run("coloured", func(b *testing.B) {
		b.SetBytes(int64(len(diff)))
		for b.Loop() {
			diffHTML(diffLines(diff))
		}
	})
	b.Run("coloured, words marked", func(b *testing.B) {
		b.SetBytes(int64(len(diff)))
		var page int
		for b.Loop() {
			lines := diffLines(diff)
			markWords(lines)
			page = len(diffHTML(lines))
		}
		b.ReportMetric(float64(page), "bytes/page")
	})
}

// unmarked is the text of the parts that are not marked changed.
func unmarked(parts []token) string {
	var b strings.Builder
	for _, p := range parts {
		if !p.Changed {
			b.WriteString(p.Text)
		}
	}
	return b.String()
}

// checkPair marks the words of the pair of lines a and b and checks what any pair must
// keep: each line's text whole, and, when words are marked, the same text left unmarked
// on both sides (what they have in common, in order).
func checkPair(t *testing.T, a, b string) {
	t.Helper()
	lines := diffLines("diff --git a/x.txt b/x.txt\n@@ -1 +1 @@\n-" + a + "\n+" + b + "\n")
	markWords(lines)
	old, new := lines[2].Parts, lines[3].Parts
	var whole [2]strings.Builder
	for i, parts := range [][]token{old, new} {
		for _, p := range parts {
			whole[i].WriteString(p.Text)
		}
	}
	if whole[0].String() != a || whole[1].String() != b {
		t.Fatalf("%q → %q: the lines were not kept whole: %q, %q", a, b, whole[0].String(), whole[1].String())
	}
	if keptA, keptB := unmarked(old), unmarked(new); (keptA != a || keptB != b) && keptA != keptB {
		t.Fatalf("%q → %q: the unmarked parts differ: %q and %q", a, b, keptA, keptB)
	}
}

// Lines made of a few words in any order: whatever go-diff answers, the marks keep each
// line whole and leave the same text unmarked on both sides.
func TestTheChangedWordsLeaveWhatTheLinesShare(t *testing.T) {
	r := rand.New(rand.NewSource(1))
	vocab := []string{"a", "b", " ", "x", "  ", "(", "c", "é", "foo", ","}
	line := func() string {
		var b strings.Builder
		for range 1 + r.Intn(20) {
			b.WriteString(vocab[r.Intn(len(vocab))])
		}
		return b.String()
	}
	for range 20_000 {
		checkPair(t, line(), line())
	}
}

// FuzzTheChangedWords: any two lines, any bytes (not valid UTF-8, control characters).
func FuzzTheChangedWords(f *testing.F) {
	for _, seed := range [][2]string{{"x := f(41, y)", "x := f(42, y)"}, {"a b a c", "a b b a c"}, {"\xff\xfe é", "\xff é!"}, {"", "x"}} {
		f.Add(seed[0], seed[1])
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if strings.ContainsAny(a+b, "\n\r") {
			t.Skip("a line of a diff has no line break")
		}
		checkPair(t, a, b)
	})
}
