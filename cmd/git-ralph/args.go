package main

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/alecthomas/kong"
)

// negativeValue is a flag's value that kong would take for a short flag: -1, -5m.
var negativeValue = regexp.MustCompile(`^-[0-9.]`)

// joinNegativeValues rewrites "--max -1" as "--max=-1" for every flag that takes a value,
// so that a negative number reaches git-ralph's own check ("must be at least 1") instead
// of kong's "perhaps try --max=\"-1\"", whose suggestion would then be refused anyway.
// Arguments after "--" are left alone.
func joinNegativeValues(k *kong.Kong, args []string) []string {
	takesValue := valueFlags(k.Model.Node)
	out := make([]string, 0, len(args))
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return append(out, args[i:]...)
		}
		if takesValue[a] && i+1 < len(args) && negativeValue.MatchString(args[i+1]) {
			out = append(out, a+"="+args[i+1])
			i++
			continue
		}
		out = append(out, a)
	}
	return out
}

// valueFlags lists "--name" for every flag of every command that takes a value (not a
// boolean or a counter).
func valueFlags(root *kong.Node) map[string]bool {
	names := map[string]bool{}
	_ = kong.Visit(root, func(v kong.Visitable, next kong.Next) error {
		if f, ok := v.(*kong.Flag); ok && !f.IsBool() && !f.IsCounter() {
			names["--"+f.Name] = true
		}
		return next(nil)
	})
	return names
}

// missingValue matches kong's error for a flag given without its value.
var missingValue = regexp.MustCompile(`^--([a-z0-9-]+): expected \S+ value but got `)

// explainMissingValue turns kong's "--diff: expected string value but got "EOL" (<EOL>)"
// into a sentence that says what the flag wants: "--diff needs a value: N|A..B".
func explainMissingValue(k *kong.Kong, err error) error {
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
