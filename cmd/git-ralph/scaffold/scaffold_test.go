package scaffold

import (
	"regexp"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
)

// TestInitConfigNamesEverySetting: the .ralph/config.toml that init writes shows every
// setting with its default, commented out (docs/reference/files.md), so a key added to the
// configuration must be added there too.
func TestInitConfigNamesEverySetting(t *testing.T) {
	for _, key := range config.Keys() {
		if !regexp.MustCompile(`(?m)^# ` + regexp.QuoteMeta(key) + ` = `).MatchString(ConfigTemplate) {
			t.Errorf("templates/config.toml does not name %s", key)
		}
	}
}
