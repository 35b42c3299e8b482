package main

import (
	"strings"
	"testing"
)

func TestLogsCmdRefusesMeaninglessFlags(t *testing.T) {
	for _, c := range []LogsCmd{{Lines: -1}, {Iteration: "3", JSON: true}, {Iteration: "3", RunID: "r"}} {
		err := c.check()
		if err == nil {
			t.Errorf("%+v accepted", c)
			continue
		}
		if h, ok := err.(*hinted); !strings.Contains(err.Error(), "--") || !ok || h.hint == "" {
			t.Errorf("%+v: %v names no flag or has no hint", c, err)
		}
	}
}
