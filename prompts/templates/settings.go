package templates

import (
	"errors"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/fielderr"
	"github.com/pelletier/go-toml/v2"
)

// Settings are what a template.toml says besides the prompt: a line for the listing, and
// the settings the template suggests.
type Settings struct {
	Description   string // one line for `git ralph templates`
	MaxIterations int    // the iteration limit a loop with the template gets unless one is set; 0: none suggested
	ValidateHint  string // what makes a good validate command for it, in words
	Completion    string // how a run with it is done, in words (--until, SUCCESS)
}

// settingsKeys are the keys of template.toml, in the order of the documentation.
var settingsKeys = []string{"description", "max_iterations", "validate_hint", "completion"}

// maxText bounds each text of template.toml: they are shown on one line or as a comment.
const maxText = 300

// FileError is a problem in a template's file: the file, the line, the field, what is
// wrong and how to fix it, as the config files' errors read.
type FileError = fielderr.Error

// parseSettings reads a template.toml (file names it in errors).
func parseSettings(data []byte, file string) (Settings, error) {
	var raw map[string]any
	if err := toml.Unmarshal(data, &raw); err != nil {
		e := &FileError{File: file, Msg: "invalid TOML: " + strings.TrimPrefix(err.Error(), "toml: "),
			HintText: `write it like: description = "one line", max_iterations = 10`}
		var de *toml.DecodeError
		if errors.As(err, &de) {
			e.Line, _ = de.Position()
		}
		return Settings{}, e
	}
	var s Settings
	for _, key := range sortedKeys(raw) {
		if err := s.set(key, raw[key]); err != nil {
			err.File, err.Line, err.Field = file, lineOf(data, key), key
			return Settings{}, err
		}
	}
	return s, nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// set checks and sets one key of template.toml.
func (s *Settings) set(key string, v any) *FileError {
	switch key {
	case "max_iterations":
		n, ok := v.(int64)
		if !ok || n < 1 || n > math.MaxInt32 {
			return &FileError{Msg: fmt.Sprintf("want a whole number of at least 1, got %s", describe(v)), HintText: "max_iterations = 10"}
		}
		s.MaxIterations = int(n)
		return nil
	case "description", "validate_hint", "completion":
		text, ok := v.(string)
		if !ok {
			return &FileError{Msg: "want a string, got " + describe(v), HintText: key + ` = "one line of text"`}
		}
		if len(text) > maxText || strings.ContainsAny(text, "\n\r") {
			return &FileError{Msg: fmt.Sprintf("want one line of at most %d bytes", maxText), HintText: "shorten it to one line"}
		}
		*map[string]*string{"description": &s.Description, "validate_hint": &s.ValidateHint, "completion": &s.Completion}[key] = text
		return nil
	}
	return &FileError{Msg: "unknown key", HintText: "the keys of template.toml are " + strings.Join(settingsKeys, ", ")}
}

// lineOf is the 1-based line where key is set at the top of a TOML file; 0 when not found.
func lineOf(data []byte, key string) int {
	re := regexp.MustCompile(`^\s*("?)` + regexp.QuoteMeta(key) + `("?)\s*=`)
	for i, line := range strings.Split(string(data), "\n") {
		if re.MatchString(line) {
			return i + 1
		}
	}
	return 0
}

// describe names a TOML value's type for an error.
func describe(v any) string {
	switch x := v.(type) {
	case string:
		return fmt.Sprintf("a string (%q)", x)
	case int64:
		return fmt.Sprintf("%d", x)
	case float64:
		return fmt.Sprintf("a float (%g)", x)
	case bool:
		return fmt.Sprintf("a boolean (%t)", x)
	case map[string]any:
		return "a table"
	case []any:
		return "an array"
	}
	return fmt.Sprintf("%T", v)
}
