package config

import "testing"

// A repository's validate_format changes how its validate command's failures are judged
// (a test failing before the run no longer fails validation): it is approved like a
// command; "none", and the user's own, are not asked about.
func TestValidateFormatFromTheRepositoryNeedsTrust(t *testing.T) {
	c := fixture{repo: "validate_format = \"none\"\n"}.mustLoad(t)
	if cmds := c.RepoCommands(); cmds != nil {
		t.Errorf("validate_format = none asked for trust: %v", cmds)
	}
	c = fixture{repo: "validate_format = \"auto\"\n"}.mustLoad(t)
	if got := c.RepoCommands()["validate_format"]; got != "auto" {
		t.Errorf("RepoCommands = %v, want validate_format", c.RepoCommands())
	}
	c = fixture{user: "validate_format = \"junit\"\n"}.mustLoad(t)
	if cmds := c.RepoCommands(); cmds != nil || c.ValidateFormat.V != "junit" {
		t.Errorf("the user's own format: %v, %q", cmds, c.ValidateFormat.V)
	}
}
