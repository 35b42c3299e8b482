package kongmodel

import (
	"fmt"
	"slices"
	"strings"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// negativeValue is a flag's value that kong would take for a short flag: -1, -5m.
var negativeValue = lazyregexp.New(`^-[0-9.]`)

// IsNegativeValue reports whether arg looks like a negative value (-1, -5m), which kong
// would take for a short flag.
func IsNegativeValue(arg string) bool { return negativeValue.MatchString(arg) }

// JoinNegativeValues rewrites "--max -1" as "--max=-1" (and "-n -1" as "--lines=-1") for
// every flag that takes a value, so that a negative number reaches git-ralph's own check
// ("must be at least 1") instead of kong's "perhaps try --max=\"-1\"", whose suggestion
// would then be refused anyway. Arguments after "--" are left alone.
func JoinNegativeValues(k *kong.Kong, args []string) []string {
	if !slices.ContainsFunc(args, negativeValue.MatchString) {
		return args // nothing to join: the walk of every command's flags is not paid for
	}
	longName := valueFlags(k.Model.Node)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if long, ok := longName[a]; ok && i+1 < len(args) && negativeValue.MatchString(args[i+1]) {
			out = append(out, long+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// valueFlags maps "--name" to itself for every flag of every command that takes a value
// (not a boolean or a counter), and "-x" to "--name" for such a flag's short name: kong
// reads "-n=-1" as the value "=-1". A short name that means another flag in another
// command (-f is inject's --file and logs' --follow) is left to kong.
func valueFlags(root *kong.Node) map[string]string {
	names := map[string]string{}
	shorts := map[string]map[string]bool{} // "-x" → the long names it stands for
	_ = kong.Visit(root, func(v kong.Visitable, next kong.Next) error {
		f, ok := v.(*kong.Flag)
		if !ok {
			return next(nil)
		}
		long := "--" + f.Name
		if f.IsBool() || f.IsCounter() {
			long = "" // a flag without a value: never rewritten
		} else {
			names[long] = long
		}
		if f.Short != 0 {
			short := "-" + string(f.Short)
			if shorts[short] == nil {
				shorts[short] = map[string]bool{}
			}
			shorts[short][long] = true
		}
		return next(nil)
	})
	for short, longs := range shorts {
		for long := range longs {
			if len(longs) == 1 && long != "" {
				names[short] = long
			}
		}
	}
	return names
}

// missingValue matches kong's error for a flag given without its value.
var missingValue = lazyregexp.New(`^--([a-z0-9-]+): expected \S+ value but got `)

// ExplainMissingValue turns kong's "--diff: expected string value but got "EOL" (<EOL>)"
// into a sentence that says what the flag wants: "--diff needs a value: N|A..B".
func ExplainMissingValue(k *kong.Kong, err error) error {
	m := missingValue.FindStringSubmatch(err.Error())
	if m == nil {
		return err
	}
	var want string
	_ = kong.Visit(k.Model.Node, func(v kong.Visitable, next kong.Next) error {
		if f, ok := v.(*kong.Flag); ok && f.Name == m[1] && want == "" {
			want = f.FormatPlaceHolder()
		}
		return next(nil)
	})
	if want == "" {
		return err
	}
	return fmt.Errorf("--%s needs a value: --%s=%s%s", m[1], m[1], want, gotInstead(err.Error()))
}

// gotInstead says what stood where the value should be, unless it was the end of the line.
func gotInstead(msg string) string {
	_, got, _ := strings.Cut(msg, " but got ")
	if strings.HasPrefix(got, `"EOL"`) {
		return ""
	}
	token, _, _ := strings.Cut(got, " (")
	return ", not " + token
}

// NegativeValueGiven reports whether an argument before "--" looks like a negative
// value: JoinNegativeValues rewrites "--max -1" by what the flags of every command take,
// which only the whole model knows (-f is inject's --file and logs' --follow).
// Otherwise it leaves the arguments as they are and the one-command parser needs it not.
func NegativeValueGiven(args []string) bool {
	for _, a := range args {
		if a == "--" {
			return false
		}
		if negativeValue.MatchString(a) {
			return true
		}
	}
	return false
}
