package main

import (
	"bytes"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/scaffold"
	"github.com/git-ralph/git-ralph/lazyregexp"
)

// TestConfigReferenceIsCurrent keeps docs/reference/config.md in step with the key table
// of cmd/git-ralph/config and the comments of the config file init writes; run with
// UPDATE_DOCS=1 to rewrite it.
func TestConfigReferenceIsCurrent(t *testing.T) {
	var page bytes.Buffer
	if err := config.WriteReference(&page, templateDescriptions(scaffold.ConfigTemplate), loopFlagOf); err != nil {
		t.Fatal(err)
	}
	path := filepath.Join("..", "..", "docs", "reference", "config.md")
	if os.Getenv("UPDATE_DOCS") == "1" {
		if err := os.WriteFile(path, page.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	shipped, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shipped, page.Bytes()) {
		t.Errorf("%s is out of date: run UPDATE_DOCS=1 go test ./cmd/git-ralph -run TestConfigReferenceIsCurrent", path)
	}
	for _, key := range config.Keys() {
		if !bytes.Contains(page.Bytes(), []byte("| `"+key+"` |")) {
			t.Errorf("the reference has no row for %s", key)
		}
	}
}

var (
	commentedKey   = lazyregexp.New(`^# ([a-z_]+) = [^#]*(?:#\s*(.*))?$`)
	commentedTable = lazyregexp.New(`^# \[([a-z]+)(?:\.[a-z]+)?\]`)
)

// templateDescriptions reads the explanation of each key from the config file init
// writes: the comment paragraph above a commented-out `# key = value` line (shared by the
// keys of one paragraph), and the key's own trailing comment. Keys of a table are named
// "agents.KEY", "hooks.KEY"; a key shown only under [modes.NAME] is described as itself.
func templateDescriptions(template string) func(string) string {
	desc := map[string]string{}
	var para []string
	table, owner := "", "" // owner: the first key of the paragraph, which carries its text
	for _, line := range strings.Split(template, "\n") {
		switch m := commentedKey.FindStringSubmatch(line); {
		case strings.TrimSpace(line) == "":
			para, owner, table = nil, "", ""
		case m != nil:
			name := m[1]
			if table != "" && table != "modes" {
				name = table + "." + name
			}
			text := strings.Join(para, " ")
			if owner != "" && table != "modes" {
				text = "See `" + strings.TrimPrefix(strings.TrimPrefix(owner, "agents."), "hooks.") + "`."
			}
			if m[2] != "" {
				text = strings.TrimSpace(text + " " + strings.ToUpper(m[2][:1]) + m[2][1:] + ".")
			}
			if _, ok := desc[name]; !ok || table != "modes" {
				desc[name] = text
			}
			if owner == "" {
				owner = name
			}
		case commentedTable.MatchString(line):
			table = commentedTable.FindStringSubmatch(line)[1]
		case strings.HasPrefix(line, "# "):
			if owner != "" {
				para, owner = nil, ""
			}
			para = append(para, strings.TrimPrefix(line, "# "))
		}
	}
	return func(key string) string { return desc[key] }
}

// loopFlagOf returns the flag of `git ralph loop` that sets a key, as the command hands
// its flags to the config package: every flag of LoopCmd given at once, read back from
// flags().
func loopFlagOf(key string) string {
	var c LoopCmd
	v := reflect.ValueOf(&c).Elem()
	for i := 0; i < v.NumField(); i++ {
		f := v.Field(i)
		switch f.Kind() {
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
			if f.Elem().Kind() == reflect.Bool {
				f.Elem().SetBool(true)
			}
		case reflect.String:
			f.SetString("1")
		}
	}
	c.Protect = []string{"1"}
	for _, fl := range c.flags() {
		if fl.Key == key {
			return fl.Name
		}
	}
	return ""
}
