package main

import (
	"runtime/debug"
	"testing"
)

func TestFormatVersion(t *testing.T) {
	vcs := []debug.BuildSetting{{Key: "vcs.revision", Value: "4270bfe30fa2aa0011223344556677889900aabb"},
		{Key: "vcs.time", Value: "2026-11-23T02:37:40Z"}, {Key: "vcs.modified", Value: "true"}}
	for _, tc := range []struct {
		name, linked string
		info         *debug.BuildInfo
		want         string
	}{
		{"no build info", "dev", nil, "git-ralph dev"},
		{"go install @version", "dev", &debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "git-ralph v1.2.0"},
		{"checkout with changes", "dev", &debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: vcs},
			"git-ralph (devel) (commit 4270bfe30fa2, 2026-11-23, modified)"},
		{"linked version wins", "1.0.0", &debug.BuildInfo{Main: debug.Module{Version: "v0.9.0"}, Settings: vcs[:1]},
			"git-ralph 1.0.0 (commit 4270bfe30fa2)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := formatVersion(tc.linked, tc.info); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
}
