package main

import (
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
)

func TestLogsCmdRefusesMeaninglessFlags(t *testing.T) {
	for _, c := range []LogsCmd{{Lines: -1}, {Iteration: "3", JSON: true}, {Iteration: "3", RunID: "r"}} {
		err := c.check()
		if err == nil {
			t.Errorf("%+v accepted", c)
			continue
		}
		if h, ok := err.(*hints.Error); !strings.Contains(err.Error(), "--") || !ok || h.Hint() == "" {
			t.Errorf("%+v: %v names no flag or has no hint", c, err)
		}
	}
}
