package rollback

import (
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
)

func TestCheckLabelTakesRefSafeNames(t *testing.T) {
	for _, label := range []string{"before-refactor", "v1.2", "a_b", "20261123T084131Z", "3a", "x" + strings.Repeat("y", maxLabel-1)} {
		if err := CheckLabel(label); err != nil {
			t.Errorf("CheckLabel(%q) = %v, want nil", label, err)
		}
	}
}

func TestCheckLabelRefusesWhatRollbackReadsOrGitRefuses(t *testing.T) {
	for label, why := range map[string]string{
		"":                              "empty",
		"12":                            "numbers name iterations",
		"007":                           "numbers name iterations",
		"initial":                       "start of the last run",
		"a/b":                           "holds '/'",
		"../x":                          "holds '/'",
		"a..b":                          `holds ".."`,
		".hidden":                       "starts with '.'",
		"-rf":                           "starts with '-'",
		"x.lock":                        `ends in "." or ".lock"`,
		"x.":                            `ends in "." or ".lock"`,
		"a b":                           "holds ' '",
		"a~1":                           "holds '~'",
		"é":                             "holds 'é'",
		"x\n":                           `holds '\n'`,
		strings.Repeat("y", maxLabel+1): "longer than",
	} {
		err := CheckLabel(label)
		if err == nil || !strings.Contains(err.Error(), why) {
			t.Errorf("CheckLabel(%q) = %v, want an error saying %q", label, err, why)
		}
	}
}

func TestIsIterationMatchesWhatCheckLabelRefuses(t *testing.T) {
	for _, target := range []string{"1", "12", "0", "-1", "+3", "initial"} {
		if !isIteration(target) {
			t.Errorf("isIteration(%q) = false", target)
		}
		if CheckLabel(target) == nil {
			t.Errorf("CheckLabel(%q) accepts an iteration target", target)
		}
	}
	for _, target := range []string{"last", "3a", "before-work", "20261123T084131Z"} {
		if isIteration(target) {
			t.Errorf("isIteration(%q) = true", target)
		}
	}
}

func TestParseCheckpointReadsWhatKeepWrites(t *testing.T) {
	msg := "git-ralph checkpoint mine\n\nfirst line\n\nsecond paragraph\n\nReturn with 'git ralph rollback mine'.\n\n" +
		"Ralph-Head: abc\nRalph-Branch: refs/heads/main\nRalph-Dirty: yes\n"
	when := time.Unix(1700000000, 0).UTC()
	c, ok := parseCheckpoint("refs/ralph/checkpoints/", gitops.RefCommit{Name: "refs/ralph/checkpoints/mine", Commit: "c1", Tree: "t1", Time: when, Message: msg})
	if !ok {
		t.Fatal("parseCheckpoint refused what keep writes")
	}
	want := Checkpoint{Label: "mine", Ref: "refs/ralph/checkpoints/mine", Time: when, Commit: "abc", Branch: "refs/heads/main",
		Dirty: true, Message: "first line\n\nsecond paragraph", Tree: "t1"}
	if c != want {
		t.Errorf("parseCheckpoint = %+v, want %+v", c, want)
	}
	for name, bad := range map[string]gitops.RefCommit{
		"another subject": {Name: "refs/ralph/checkpoints/mine", Message: strings.Replace(msg, "checkpoint mine", "checkpoint other", 1)},
		"no trailers":     {Name: "refs/ralph/checkpoints/mine", Message: "git-ralph checkpoint mine\n\nnote\n"},
		"a bad label":     {Name: "refs/ralph/checkpoints/12", Message: strings.Replace(msg, "checkpoint mine", "checkpoint 12", 1)},
	} {
		if _, ok := parseCheckpoint("refs/ralph/checkpoints/", bad); ok {
			t.Errorf("parseCheckpoint took a ref with %s", name)
		}
	}
}
