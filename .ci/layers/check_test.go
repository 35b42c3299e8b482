package main

import (
	"strings"
	"testing"
)

// today's imports between the module's packages, as `go list` reports them
var good = []edge{
	{"cmd/git-ralph", "cmd/git-ralph/config"}, {"cmd/git-ralph", "loop"}, {"cmd/git-ralph", "prompts/repofile"},
	{"cmd/git-ralph/config", "prompts/repofile"}, {"cmd/git-ralph/trust", "history"},
	{"loop", "idle"}, {"loop", "history"}, {"loop", "gitops"}, {"loop", "prompts"}, {"loop", "loop/agentcli"},
	{"loop/agent", "history/redact"}, {"loop/agentcli", "loop/agentcli/resettime"},
	{"loop/demoagent", "gitops"}, {"idle", "gitops"},
	{"history", "history/redact"}, {"history", "prompts/repofile"}, {"prompts", "prompts/repofile"},
	{"bench/mkhistory", "history"},
	{"cmd/git-ralph/config", "fielderr"}, {"loop/workflow", "fielderr"}, {"prompts/templates", "fielderr"},
}

func TestCheckAcceptsTheLayering(t *testing.T) {
	if problems := check(good); len(problems) > 0 {
		t.Errorf("check(good) = %q, want nothing", problems)
	}
}

func TestCheckRejects(t *testing.T) {
	tests := []struct {
		name string
		add  edge
		want string
	}{
		{"loop importing the command package", edge{"loop", "cmd/git-ralph"},
			"error: loop imports cmd/git-ralph, against the layering"},
		{"history calling git", edge{"history", "gitops"},
			"error: history imports gitops, against the layering"},
		{"gitops knowing about loops", edge{"gitops", "loop"},
			"hint: gitops may import: lazyregexp"},
		{"idle importing loop", edge{"idle", "loop"},
			"hint: idle may import: gitops"},
		{"prompts touching git", edge{"prompts", "gitops"},
			"error: prompts imports gitops"},
		{"a cmd sub-package importing a command", edge{"cmd/git-ralph/trust", "cmd/git-ralph"},
			"error: cmd/git-ralph/trust imports cmd/git-ralph"},
		{"an agent preset importing loop", edge{"loop/agentcli", "loop"},
			"error: loop/agentcli imports loop"},
		{"a new top-level package", edge{"util", "gitops"},
			"error: package util has no row in the layering table"},
		{"a leaf importing upward", edge{"prompts/repofile", "history"},
			"error: prompts/repofile imports history"},
		{"the field errors' leaf importing the config", edge{"fielderr", "cmd/git-ralph/config"},
			"error: fielderr imports cmd/git-ralph/config"},
		{"the numbers' leaf importing anything", edge{"units", "lazyregexp"},
			"hint: units may import: no package of the module"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// an upward import usually closes a cycle too, reported after it
			problems := check(append(good[:len(good):len(good)], tt.add))
			if len(problems) == 0 || !strings.Contains(problems[0], tt.want) {
				t.Errorf("check with %v = %q, want first a problem with %q", tt.add, problems, tt.want)
			}
		})
	}
}

func TestCheckFindsACycle(t *testing.T) {
	// allowed row by row (cmd sub-packages may use each other), but a cycle all the same
	edges := append(good[:len(good):len(good)],
		edge{"cmd/git-ralph/config", "cmd/git-ralph/trust"}, edge{"cmd/git-ralph/trust", "cmd/git-ralph/config"})
	problems := check(edges)
	want := "error: import cycle: cmd/git-ralph/config → cmd/git-ralph/trust → cmd/git-ralph/config"
	if len(problems) != 1 || problems[0] != want {
		t.Errorf("check = %q, want [%q]", problems, want)
	}
}

func TestRowFor(t *testing.T) {
	tests := []struct{ pkg, row string }{
		{"loop", "loop/agent loop/agentcli loop/apiagent loop/recording loop/testreport idle history history/ledger history/redact prompts gitops gitops/... units pathglob lazyregexp gitops/gittest"},
		{"loop/agentcli/resettime", ""},
		{"loop/workflow", "loop/fleet history prompts/repofile fielderr lazyregexp"}, // a row of its own
		{"loop/other", "loop loop/agent loop/agentcli loop/agentcli/... idle history history/... prompts prompts/... gitops gitops/... lazyregexp"},
		{"loop/fleet", "history gitops gitops/gitsnap gitops/gitwt gitops/gittest prompts/repofile lazyregexp"}, // a row of its own wins over loop/...
		{"cmd/git-ralph/schedule", "cmd/git-ralph/... loop loop/... idle history history/... prompts prompts/... gitops gitops/... units fielderr pathglob lazyregexp internal/testio gitops/gittest"},
		{"fielderr", ""},
	}
	for _, tt := range tests {
		if row, ok := rowFor(tt.pkg); !ok || row != tt.row {
			t.Errorf("rowFor(%s) = %q, %v; want %q", tt.pkg, row, ok, tt.row)
		}
	}
}
