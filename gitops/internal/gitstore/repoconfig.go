package gitstore

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// PlainConfig reports whether the repository's own configuration (common/config) leaves
// its layout as the files show it, read the way `git init` and `git config` write it:
// absent, or section headers alone on their line, `key = value` lines and bare keys,
// with core.bare false, a format version git knows (0 or 1), no core.worktree (nor any
// mention of a worktree: a submodule's git directory names one), no extensions and no
// includes. Anything else — even what git would read the same, or refuse — is git's to
// read: a layout answered from the files must never differ from git's.
func PlainConfig(common string) bool {
	data, err := ReadSmall(filepath.Join(common, "config"), MaxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return true
	}
	if err != nil || strings.Contains(strings.ToLower(string(data)), "worktree") {
		return false
	}
	section := ""
	for _, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		switch {
		case line == "" || line[0] == '#' || line[0] == ';':
		case line[0] == '[':
			name, ok := configSection(line)
			if !ok || strings.HasPrefix(name, "include") || strings.HasPrefix(name, "extensions") {
				return false
			}
			section = name
		default:
			key, value, _ := strings.Cut(line, "=")
			key, value = strings.ToLower(strings.TrimSpace(key)), strings.TrimSpace(value)
			if !isConfigKey(key) || strings.ContainsAny(value, "\"\\") {
				return false // a quote or an escape may carry the value onto the next line
			}
			if section == "core" && !plainCoreValue(key, value) {
				return false
			}
		}
	}
	return true
}

// configSection is the lower-cased name of the section a header line opens ("remote.origin"
// for `[remote "origin"]`); false for a header with anything after it on its line, or a
// subsection name with escapes.
func configSection(line string) (string, bool) {
	inner, ok := strings.CutSuffix(strings.TrimPrefix(line, "["), "]")
	if !ok || strings.ContainsAny(inner, "[]\\") {
		return "", false
	}
	name, sub, hasSub := strings.Cut(inner, " ")
	if !hasSub {
		return strings.ToLower(name), isConfigKey(strings.ToLower(name))
	}
	sub, quoted := strings.CutPrefix(sub, `"`)
	sub, closed := strings.CutSuffix(sub, `"`)
	if !quoted || !closed || strings.Contains(sub, `"`) || !isConfigKey(strings.ToLower(name)) {
		return "", false
	}
	return strings.ToLower(name) + "." + sub, true
}

// isConfigKey reports whether s is a plain key or section name: a letter, then letters,
// digits and dashes.
func isConfigKey(s string) bool {
	if s == "" || s[0] < 'a' || s[0] > 'z' {
		return false
	}
	return strings.Trim(s, "abcdefghijklmnopqrstuvwxyz0123456789-") == ""
}

// plainCoreValue reports whether core.key = value keeps the layout plain; a key without
// a value (value "") is true to git.
func plainCoreValue(key, value string) bool {
	switch key {
	case "bare":
		return value == "false"
	case "repositoryformatversion":
		return value == "0" || value == "1"
	}
	return true
}

// Bounds of git's own small files as git-ralph reads them: a HEAD, a .git file, a
// commondir or a gitdir holds one line (a path at most), a config a few settings.
const (
	MaxLineFile = 4096
	MaxConfig   = 1 << 20
)

// ReadSmall reads the regular file at path if it holds at most limit bytes. A hostile
// repository may put a huge file, a named pipe or a link to /dev/zero where git keeps
// one line: that is an error, for the caller to leave the question to git.
func ReadSmall(path string, limit int64) ([]byte, error) {
	info, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !info.Mode().IsRegular() || info.Size() > limit {
		return nil, fmt.Errorf("%s: not a file of at most %d bytes", path, limit)
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err == nil && int64(len(data)) > limit {
		err = fmt.Errorf("%s: more than %d bytes", path, limit)
	}
	return data, err
}

// ConfigMentions reports whether the repository's configuration names any of keys
// (lower case), or cannot be read to tell: settings that change what `git worktree add`
// writes (a sparse checkout's patterns copied, group permissions), left to git.
func ConfigMentions(common string, keys ...string) bool {
	data, err := ReadSmall(filepath.Join(common, "config"), MaxConfig)
	if errors.Is(err, fs.ErrNotExist) {
		return false
	}
	text := strings.ToLower(string(data))
	for _, key := range keys {
		if strings.Contains(text, key) {
			return true
		}
	}
	return err != nil
}
