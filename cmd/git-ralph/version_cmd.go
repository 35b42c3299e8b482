package main

import (
	"fmt"
	"runtime/debug"
)

// VersionCmd is `git ralph version`, the same as `git ralph --version`.
type VersionCmd struct{}

// Run prints the version line.
func (c *VersionCmd) Run(s Streams) error {
	_, err := fmt.Fprintln(s.Stdout, versionText())
	return err
}

// versionText is "git-ralph VERSION (commit REV, DATE[, modified])": the version set at
// link time if any, else the module version from the build info ("v1.2.0" after
// `go install …@v1.2.0`, "(devel)" from a checkout), with the commit the build info
// records when built from a git checkout.
func versionText() string {
	info, _ := debug.ReadBuildInfo()
	return formatVersion(version, info)
}

func formatVersion(linked string, info *debug.BuildInfo) string {
	v := linked
	if v == "dev" && info != nil && info.Main.Version != "" {
		v = info.Main.Version
	}
	text := "git-ralph " + v
	if info == nil {
		return text
	}
	var rev, when, modified string
	for _, s := range info.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev == "" {
		return text
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	detail := "commit " + rev
	if len(when) >= 10 {
		detail += ", " + when[:10]
	}
	if modified == "true" {
		detail += ", modified"
	}
	return text + " (" + detail + ")"
}
