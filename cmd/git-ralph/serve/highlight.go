package serve

import (
	"path"
	"strings"
	"sync"
)

// A small syntax colouring of the code in a diff: keywords, strings, comments and numbers
// of the common languages, found by a scanner that reads each line once. It is done here
// rather than with a general highlighter because a diff shows fragments (a hunk may start
// inside anything) and may be megabytes an agent wrote: a linear scan with a bound per line
// stays fast whatever it is given, and a wrong colour costs nothing.

// token is a piece of a line and its class: kw, str, com, num, or "" for the rest; and
// whether it is a word its line changed (words.go).
type token struct {
	Class, Text string
	Changed     bool
}

// highlightMax bounds the part of one line that is coloured; the rest is plain.
const highlightMax = 4 << 10

// block is a construct that may span lines: a block comment, a multi-line string.
type block struct{ open, close, class string }

// language is what the scanner needs to know of one.
type language struct {
	keywords func() map[string]bool
	line     []string // line comments
	blocks   []block
	quotes   string // one-line string quotes
	// hashAfterSpace: '#' begins a comment only at the start or after a space (a shell's
	// $# and ${#x} are not comments)
	hashAfterSpace bool
}

// words is the set of the keywords in s, built when first asked for: built as git-ralph
// starts, the languages' sets cost every command 37 KB and a tenth of a millisecond, and
// only the dashboard's diff page reads them.
func words(s string) func() map[string]bool {
	return sync.OnceValue(func() map[string]bool {
		m := map[string]bool{}
		for _, w := range strings.Fields(s) {
			m[w] = true
		}
		return m
	})
}

var (
	cBlock   = block{"/*", "*/", "com"}
	langGo   = &language{keywords: words("break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var nil true false iota"), line: []string{"//"}, blocks: []block{cBlock, {"`", "`", "str"}}, quotes: `"'`}
	langPy   = &language{keywords: words("and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield None True False self"), line: []string{"#"}, blocks: []block{{`"""`, `"""`, "str"}, {"'''", "'''", "str"}}, quotes: `"'`}
	langJS   = &language{keywords: words("async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof interface let new of return static super switch this throw try type typeof var void while with yield null undefined true false enum implements private public protected readonly"), line: []string{"//"}, blocks: []block{cBlock, {"`", "`", "str"}}, quotes: `"'`}
	langRust = &language{keywords: words("as async await break const continue crate dyn else enum extern false fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait true type unsafe use where while Some None Ok Err"), line: []string{"//"}, blocks: []block{cBlock}, quotes: `"`}
	langC    = &language{keywords: words("auto break case catch char class const continue default delete do double else enum extern final float for goto if import implements inline int interface long namespace new null nullptr package private protected public return short signed sizeof static struct super switch template this throw throws try typedef union unsigned using virtual void volatile while bool true false fun val var let func override"), line: []string{"//"}, blocks: []block{cBlock}, quotes: `"'`}
	langSh   = &language{keywords: words("if then else elif fi for while until do done case esac in function return local export set unset shift exit"), line: []string{"#"}, quotes: `"'`, hashAfterSpace: true}
	langRuby = &language{keywords: words("begin end def class module if elsif else unless case when while until for in do return yield self nil true false and or not then require"), line: []string{"#"}, quotes: `"'`}
	langConf = &language{keywords: words("true false"), line: []string{"#"}, quotes: `"'`}
	langSQL  = &language{keywords: words("select from where and or not insert into values update set delete create table index drop alter join left right inner outer on group by order having limit as null primary key SELECT FROM WHERE AND OR NOT INSERT INTO VALUES UPDATE SET DELETE CREATE TABLE INDEX DROP ALTER JOIN LEFT RIGHT INNER OUTER ON GROUP BY ORDER HAVING LIMIT AS NULL PRIMARY KEY"), line: []string{"--"}, blocks: []block{cBlock}, quotes: `'"`}
	langJSON = &language{keywords: words("true false null"), quotes: `"`}
)

// languageOf is the language of a file by its name; nil for one it does not colour.
func languageOf(name string) *language {
	switch base := path.Base(name); base {
	case "Makefile", "Dockerfile", "Containerfile", ".gitignore", ".bashrc", ".profile":
		return langSh
	}
	switch strings.ToLower(path.Ext(name)) {
	case ".go":
		return langGo
	case ".py", ".pyi":
		return langPy
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts":
		return langJS
	case ".rs":
		return langRust
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".java", ".cs", ".kt", ".kts", ".swift", ".scala", ".dart", ".m", ".css", ".scss":
		return langC
	case ".sh", ".bash", ".zsh", ".mk":
		return langSh
	case ".rb", ".rake":
		return langRuby
	case ".yml", ".yaml", ".toml", ".ini", ".cfg", ".conf", ".properties":
		return langConf
	case ".sql":
		return langSQL
	case ".json":
		return langJSON
	}
	return nil
}

// scanner colours the lines of one side of a hunk, in order: it remembers a block left
// open on one line for the next.
type scanner struct {
	lang *language
	open *block // the block the last line left open
}

// line splits code (a line without its diff marker) into tokens.
func (s *scanner) line(code string) []token {
	rest := ""
	if len(code) > highlightMax {
		code, rest = code[:highlightMax], code[highlightMax:]
	}
	var out []token
	plain := 0 // start of the plain text not yet emitted
	emit := func(i, j int, class string) {
		if plain < i {
			out = append(out, token{Text: code[plain:i]})
		}
		out = append(out, token{Class: class, Text: code[i:j]})
		plain = j
	}
	i := 0
	if s.open != nil {
		j, class := s.closeBlock(code, 0)
		emit(0, j, class)
		i = j
	}
	for i < len(code) {
		j, class := s.token(code, i)
		if class != "" {
			emit(i, j, class)
		}
		i = max(j, i+1)
	}
	if plain < len(code) || rest != "" {
		out = append(out, token{Text: code[plain:] + rest})
	}
	return out
}

// token reads the token at code[i:], returning its end and its class ("" for a name or
// anything else plain).
func (s *scanner) token(code string, i int) (int, string) {
	l := s.lang
	for k := range l.blocks {
		if b := &l.blocks[k]; strings.HasPrefix(code[i:], b.open) {
			s.open = b
			return s.closeBlock(code, i+len(b.open))
		}
	}
	for _, c := range l.line {
		if strings.HasPrefix(code[i:], c) && (!l.hashAfterSpace || c != "#" || i == 0 || code[i-1] == ' ' || code[i-1] == '\t') {
			return len(code), "com"
		}
	}
	c := code[i]
	switch {
	case strings.IndexByte(l.quotes, c) >= 0:
		return quoted(code, i), "str"
	case isDigit(c) && (i == 0 || !isWord(code[i-1])):
		return wordEnd(code, i, '.'), "num"
	case isWord(c):
		j := wordEnd(code, i, 0)
		if i > 0 && isWord(code[i-1]) {
			return j, "" // the middle of a name
		}
		if l.keywords()[code[i:j]] {
			return j, "kw"
		}
		return j, ""
	}
	return i + 1, ""
}

// closeBlock looks for the open block's end from i: it returns where the block's text
// ends on this line (after its close, else the line's end) and its class, and forgets
// the block once closed.
func (s *scanner) closeBlock(code string, i int) (int, string) {
	b := s.open
	if k := strings.Index(code[i:], b.close); k >= 0 {
		s.open = nil
		return i + k + len(b.close), b.class
	}
	return len(code), b.class
}

// quoted is the end of the string that opens at code[i]: after its closing quote (one
// not escaped), else the line's end.
func quoted(code string, i int) int {
	q := code[i]
	for j := i + 1; j < len(code); j++ {
		switch code[j] {
		case '\\':
			j++
		case q:
			return j + 1
		}
	}
	return len(code)
}

// wordEnd is the end of the run of word characters (and also) from i.
func wordEnd(code string, i int, also byte) int {
	for i < len(code) && (isWord(code[i]) || (also != 0 && code[i] == also)) {
		i++
	}
	return i
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func isWord(c byte) bool {
	return c == '_' || isDigit(c) || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}
