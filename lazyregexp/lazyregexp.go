package lazyregexp

import (
	"os"
	"regexp"
	"strings"
	"sync"
)

// A Regexp is a regexp.Regexp compiled on its first use. Package-level patterns compiled
// with regexp.MustCompile cost every git-ralph command their compiling before main, while
// a command uses a few of them at most: a counted repetition such as [a-z0-9_-]{0,99}
// alone costs a tenth of a millisecond and 100 KB. The same shape as the go command's
// internal/lazyregexp.
type Regexp struct {
	expr string
	once sync.Once
	rx   *regexp.Regexp
}

// inTest is true in a test binary: there New compiles at once, so that a bad pattern
// panics as the package's tests start instead of at its first use in a user's loop.
var inTest = len(os.Args) > 0 && strings.HasSuffix(strings.TrimSuffix(os.Args[0], ".exe"), ".test")

// New returns expr, to be compiled when first used; like regexp.MustCompile, it panics
// then if expr does not compile.
func New(expr string) *Regexp {
	r := &Regexp{expr: expr}
	if inTest {
		r.re()
	}
	return r
}

func (r *Regexp) re() *regexp.Regexp {
	r.once.Do(func() { r.rx = regexp.MustCompile(r.expr) })
	return r.rx
}

// String is the pattern's source text.
func (r *Regexp) String() string { return r.expr }

// MatchString is regexp.Regexp.MatchString.
func (r *Regexp) MatchString(s string) bool { return r.re().MatchString(s) }

// FindStringSubmatch is regexp.Regexp.FindStringSubmatch.
func (r *Regexp) FindStringSubmatch(s string) []string { return r.re().FindStringSubmatch(s) }

// FindAllStringSubmatch is regexp.Regexp.FindAllStringSubmatch.
func (r *Regexp) FindAllStringSubmatch(s string, n int) [][]string {
	return r.re().FindAllStringSubmatch(s, n)
}

// ReplaceAllString is regexp.Regexp.ReplaceAllString.
func (r *Regexp) ReplaceAllString(src, repl string) string { return r.re().ReplaceAllString(src, repl) }

// ReplaceAllStringFunc is regexp.Regexp's, compiling the pattern on first use.
func (r *Regexp) ReplaceAllStringFunc(src string, repl func(string) string) string {
	return r.re().ReplaceAllStringFunc(src, repl)
}
