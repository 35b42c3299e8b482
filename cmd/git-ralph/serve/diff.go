package serve

import (
	"html/template"
	"strconv"
	"strings"
)

// diffLine is one line of a unified diff: its class (add, del, hunk, meta or ""), its
// marker (+, - or a space, inside a hunk), its numbers in the old and the new file (0:
// none), the file it begins (1, 2, …, on a "diff --git" line; 0 on the others), and
// the rest in coloured parts.
type diffLine struct {
	Class, Marker string
	Old, New      int
	File          int
	Parts         []token
	Code          string // an added or removed line's text, without its marker (words.go)
}

// diffFile is one file of a diff, as its list shows it.
type diffFile struct {
	Name       string
	Anchor     string // the id of its first line
	Adds, Dels int
}

// diffLines classes each line of a unified diff (git's, as `history --diff` prints it),
// numbers the lines of its hunks and colours the code of the files whose language it knows.
func diffLines(diff string) []diffLine {
	diff = strings.TrimSuffix(diff, "\n")
	if diff == "" {
		return nil
	}
	lines := strings.Split(diff, "\n")
	out := make([]diffLine, len(lines))
	inHeader := false
	var old, new *scanner // the sides of the file's hunks; nil: not coloured
	var o, n, files int   // the next line's numbers in the old and the new file
	for i, l := range lines {
		switch {
		case strings.HasPrefix(l, "diff --git "):
			inHeader = true
			old, new = scanners(l)
			files++
			out[i] = diffLine{Class: "meta", File: files, Parts: plain(l)}
		case strings.HasPrefix(l, "@@"):
			inHeader = false
			old.reset()
			new.reset()
			o, n = hunkStarts(l)
			out[i] = diffLine{Class: "hunk", Parts: plain(l)}
		case inHeader:
			out[i] = diffLine{Class: "meta", Parts: plain(l)} // index, mode, ---, +++, rename, Binary files …
		case strings.HasPrefix(l, "+"):
			out[i] = diffLine{Class: "add", Marker: "+", New: n, Parts: new.colour(l[1:]), Code: l[1:]}
			n++
		case strings.HasPrefix(l, "-"):
			out[i] = diffLine{Class: "del", Marker: "-", Old: o, Parts: old.colour(l[1:]), Code: l[1:]}
			o++
		case strings.HasPrefix(l, " "):
			old.colour(l[1:]) // a context line is on both sides: the old side's state moves too
			out[i] = diffLine{Marker: " ", Old: o, New: n, Parts: new.colour(l[1:])}
			o, n = o+1, n+1
		default:
			out[i] = diffLine{Parts: plain(l)} // "\ No newline at end of file"
		}
	}
	return out
}

// hunkStarts reads "@@ -OLD[,N] +NEW[,N] @@": the first line's numbers on each side.
func hunkStarts(header string) (old, new int) {
	f := strings.Fields(header)
	if len(f) < 3 {
		return 0, 0
	}
	start := func(s string) int {
		s, _, _ = strings.Cut(s[1:], ",")
		v, _ := strconv.Atoi(s)
		return v
	}
	return start(f[1]), start(f[2])
}

// diffFiles lists the files of the lines, with their added and deleted lines.
func diffFiles(lines []diffLine) []diffFile {
	var files []diffFile
	for _, l := range lines {
		switch {
		case l.File > 0:
			files = append(files, diffFile{Name: fileName(l.Parts[0].Text), Anchor: "file-" + strconv.Itoa(l.File)})
		case len(files) == 0:
		case l.Class == "add":
			files[len(files)-1].Adds++
		case l.Class == "del":
			files[len(files)-1].Dels++
		}
	}
	return files
}

// fileName is the new side's name of a "diff --git a/X b/Y" line.
func fileName(header string) string {
	name := strings.TrimPrefix(header, "diff --git ")
	if k := strings.LastIndex(name, " b/"); k >= 0 {
		name = name[k+3:]
	}
	return strings.Trim(name, `"`)
}

// diffHTML writes the lines as the diff page's <pre> holds them: every text escaped here
// (template.HTMLEscapeString), the classes our own constants. It is not left to the
// template because html/template's escaping of a span per token took 3.2 s for a 4 MiB
// diff of code, against a tenth of that here.
func diffHTML(lines []diffLine) template.HTML {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString(`<span class="line`)
		if l.Class != "" {
			b.WriteString(" " + l.Class)
		}
		if l.File > 0 {
			b.WriteString(` file" id="file-` + strconv.Itoa(l.File))
		}
		b.WriteString(`">`)
		if l.Class != "meta" {
			// the numbers: spans of their own that a selection skips (user-select: none)
			b.WriteString(`<span class="ln ln-old">` + lineNumber(l.Old) + `</span><span class="ln ln-new">` + lineNumber(l.New) + `</span>`)
		}
		b.WriteString(l.Marker)
		marked := false // inside a <mark> of changed words
		for _, p := range l.Parts {
			switch {
			case p.Changed && !marked:
				b.WriteString("<mark>")
			case !p.Changed && marked:
				b.WriteString("</mark>")
			}
			marked = p.Changed
			if p.Class == "" {
				b.WriteString(template.HTMLEscapeString(p.Text))
				continue
			}
			b.WriteString(`<span class="` + p.Class + `">`)
			b.WriteString(template.HTMLEscapeString(p.Text))
			b.WriteString(`</span>`)
		}
		if marked {
			b.WriteString("</mark>")
		}
		b.WriteString("</span>\n")
	}
	return template.HTML(b.String()) // escaped above
}

func lineNumber(n int) string {
	if n == 0 {
		return ""
	}
	return strconv.Itoa(n)
}

// scanners are the two sides' scanners of the file a "diff --git a/X b/Y" line names,
// nil when its language is not coloured.
func scanners(header string) (old, new *scanner) {
	name := header
	if k := strings.LastIndex(header, " b/"); k >= 0 {
		name = header[k+3:]
	}
	lang := languageOf(strings.Trim(name, `"`))
	if lang == nil {
		return nil, nil
	}
	return &scanner{lang: lang}, &scanner{lang: lang}
}

func (s *scanner) reset() {
	if s != nil {
		s.open = nil
	}
}

// colour is code in coloured parts; in one plain part when there is no scanner.
func (s *scanner) colour(code string) []token {
	if s == nil {
		return plain(code)
	}
	return s.line(code)
}

func plain(text string) []token { return []token{{Text: text}} }
