package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// TestReadmeQuickStartIsThisStory keeps the README's quick start and the story
// testdata/script/readme_quickstart.txtar in step: each command of the README's block
// (its comments aside) is run by the story, in the same order.
func TestReadmeQuickStartIsThisStory(t *testing.T) {
	readme, err := os.ReadFile(filepath.Join("..", "..", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	want := quickStartCommands(t, string(readme))
	story, err := os.ReadFile(filepath.Join("testdata", "script", "readme_quickstart.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	ran := storyCommands(string(story))
	next := 0
	for _, cmd := range ran {
		if next < len(want) && cmd == want[next] {
			next++
		}
	}
	if next < len(want) {
		t.Errorf("the story readme_quickstart.txtar does not run the README's quick-start command %q (after %q)\nits commands: %q",
			want[next], want[:next], ran)
	}
}

var (
	trailingComment = lazyregexp.New(`\s{2,}#\s.*$`)
	storyCommand    = lazyregexp.New(`^(?:exec|exits \d+) (.*)$`)
)

// quickStartCommands returns the commands of the first sh block under "## Quick start".
func quickStartCommands(t *testing.T, readme string) []string {
	t.Helper()
	_, section, ok := strings.Cut(readme, "\n## Quick start\n")
	if !ok {
		t.Fatal(`README.md has no "## Quick start" section`)
	}
	_, block, ok := strings.Cut(section, "```sh\n")
	if !ok {
		t.Fatal("the quick start has no ```sh block")
	}
	block, _, _ = strings.Cut(block, "```")
	var cmds []string
	for _, line := range strings.Split(block, "\n") {
		if line = strings.TrimSpace(trailingComment.ReplaceAllString(line, "")); line != "" {
			cmds = append(cmds, line)
		}
	}
	if len(cmds) == 0 || len(cmds) > 10 {
		t.Fatalf("the quick start has %d commands, want 1 to 10", len(cmds))
	}
	return cmds
}

// storyCommands returns the commands a story runs with exec or exits, as a shell reads
// them: `sh -c 'CMD'` is CMD, with testscript's ” for a quote undone.
func storyCommands(story string) []string {
	var cmds []string
	for _, line := range strings.Split(story, "\n") {
		if strings.HasPrefix(line, "-- ") {
			break
		}
		m := storyCommand.FindStringSubmatch(line)
		if m == nil {
			continue
		}
		cmd := m[1]
		if inner, ok := strings.CutPrefix(cmd, "sh -c '"); ok && strings.HasSuffix(inner, "'") {
			cmd = strings.ReplaceAll(strings.TrimSuffix(inner, "'"), "''", "'")
		}
		cmds = append(cmds, cmd)
	}
	return cmds
}
