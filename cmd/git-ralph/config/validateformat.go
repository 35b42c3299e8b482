package config

import (
	"strings"

	"github.com/git-ralph/git-ralph/loop/testreport"
)

// checkValidateFormat refuses a format testreport cannot read, naming the ones it can.
func checkValidateFormat(v any) *problem {
	s := v.(string)
	if _, err := testreport.ParseFormat(s); err == nil && s != "" {
		return nil
	}
	hint := "use one of: " + strings.Join(testreport.Names, ", ") + ` ("auto" guesses from the output; "none" judges by the exit code alone)`
	if near := suggest(s, testreport.Names); near != "" { // "junit-xml", "go-json"
		hint = "did you mean " + near + "? " + hint
	}
	return newProblem(hint, "unknown test output format %q", s)
}

// readsTests reports whether a validate_format value reads the tests' results, which lets
// a test that failed before the run fail again without failing validation: from a
// repository's config that is a change to how its work is judged, approved like a command.
func readsTests(v any) bool {
	f, err := testreport.ParseFormat(v.(string))
	return err == nil && f != testreport.None
}

func checkValidateTargets(v any) *problem {
	for i, name := range v.([]string) {
		if strings.TrimSpace(name) == "" {
			return newProblem("remove the empty entry; a target is a test's name, like \"TestParse\"", "element %d is empty", i+1)
		}
	}
	return nil
}
