package config

import (
	"fmt"
	"math"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// valueType is the type of a key's value.
type valueType int

const (
	typeString   valueType = iota
	typeInt                // a TOML integer; an integer string in env and flags
	typeBool               // a TOML boolean; strconv.ParseBool syntax in env and flags
	typeDuration           // a Go duration string: "30s", "1h30m"
	typeSize               // bytes: an integer, or a string with a unit ("10MiB")
	typeStrings            // an array of strings (files only)
	typeMoney              // US dollars: a TOML float or integer; a decimal number, "$" allowed, in env and flags
	typeList               // an array of strings in files; comma-separated in env and flags
)

// spec describes one key: its type, default, rules, and how to write it.
type spec struct {
	key       string
	typ       valueType
	def       any    // built-in default, of the key's Go type
	example   string // a valid value as typed in env or flags: 5, true, 30m
	min       int64  // typeInt: the smallest allowed value
	rangeHint string // hint when the value is out of range
	check     func(v any) *problem
	command   bool             // git ralph runs something with it: listed by RepoCommands
	commandIf func(v any) bool // when set: this value makes git ralph run or send something
	fileOnly  bool             // no RALPH_ variable, no flag
	topOnly   bool             // not allowed inside [modes.NAME]
	noneOK    bool             // typeDuration: "" means none (0); typeSize: 0 means no limit
	sizeMax   int64            // typeSize: the largest allowed value; 0: maxSize
}

// topSpecs are the top-level keys, in the order of Keys and Entries.
var topSpecs = []spec{
	{key: "agent", typ: typeString, def: "", example: "claude", command: true},
	{key: "agent_cmd", typ: typeString, def: "", example: "claude -p", command: true},
	{key: "model", typ: typeString, def: "", example: "claude-sonnet-4-5"},
	// api_base and api_key_env send the prompt and the code somewhere, and a key with
	// them: a repository's value needs the user's trust, as a command of its own does.
	{key: "api_base", typ: typeString, def: "", example: "http://127.0.0.1:11434/v1", command: true, check: checkAPIBase},
	{key: "api_key_env", typ: typeString, def: "", example: "OPENAI_API_KEY", command: true, check: checkEnvName},
	{key: "api_max_turns", typ: typeInt, def: 100, example: "100", min: 1,
		rangeHint: "the model requests one iteration of an API agent may make; 1 is the smallest"},
	{key: "api_max_context", typ: typeInt, def: 0, example: "150000", min: 0,
		rangeHint: "use 0 (or leave it out) for no cap of git-ralph's own (the model's window still applies)"},
	{key: "mode", typ: typeString, def: "build", example: "plan", topOnly: true, check: checkMode},
	{key: "max_iterations", typ: typeInt, def: 5, example: "5", min: 1,
		rangeHint: "use unlimited = true (or --unlimited) to run without a limit"},
	{key: "unlimited", typ: typeBool, def: false, example: "true"},
	{key: "iteration_timeout", typ: typeDuration, def: time.Duration(0), example: "30m", noneOK: true,
		rangeHint: `leave it out (or set it to "") for no timeout, or use a duration like "30m"`},
	{key: "output_timeout", typ: typeDuration, def: time.Duration(0), example: "10m", noneOK: true,
		rangeHint: `leave it out (or set it to "") to never stop an agent for its silence, or use a duration like "10m"`},
	{key: "idle_threshold", typ: typeInt, def: 2, example: "2", min: 0,
		rangeHint: "use 0 to never stop for idleness"},
	{key: "stagnation_threshold", typ: typeInt, def: 3, example: "3", min: 0, check: checkStagnationThreshold,
		rangeHint: "use 0 to turn the stagnation check off, or 2 or more iterations in a row"},
	{key: "stagnation_similarity", typ: typeInt, def: 90, example: "90", min: 1, check: checkPercent,
		rangeHint: "a percentage from 1 to 100: how alike two iterations' texts must be to count as the same"},
	{key: "max_consecutive_errors", typ: typeInt, def: 3, example: "3", min: 1,
		rangeHint: "the loop aborts after this many failed iterations in a row; 1 is the smallest"},
	{key: "max_output_buffer", typ: typeSize, def: int64(10 << 20), example: "10MiB"},
	{key: "validate", typ: typeString, def: "", example: "go test ./...", command: true},
	{key: "validate_timeout", typ: typeDuration, def: 10 * time.Minute, example: "10m",
		rangeHint: `use a positive duration like "10m"`},
	{key: "validate_format", typ: typeString, def: "none", example: "go-test-json", check: checkValidateFormat,
		commandIf: readsTests},
	{key: "validate_targets", typ: typeList, def: []string(nil), example: `["TestParse", "TestParse/empty"]`,
		check: checkValidateTargets},
	{key: "until", typ: typeString, def: "", example: "npm test", command: true},
	{key: "feedback", typ: typeString, def: "last", example: "all", check: checkFeedback},
	{key: "judge", typ: typeString, def: "", example: "claude", command: true},
	{key: "push", typ: typeBool, def: false, example: "true", command: true},
	{key: "remote", typ: typeString, def: "", example: "origin", command: true},
	{key: "branch", typ: typeString, def: "", example: "main", command: true},
	{key: "backoff_base", typ: typeDuration, def: time.Second, example: "1s",
		rangeHint: `use a positive duration like "1s"`},
	{key: "backoff_max", typ: typeDuration, def: time.Minute, example: "60s",
		rangeHint: `use a positive duration like "60s"`},
	{key: "max_limit_wait", typ: typeDuration, def: 6 * time.Hour, example: "6h",
		rangeHint: `use a positive duration like "6h"`},
	{key: "stop_on_overage", typ: typeBool, def: false, example: "true"},
	{key: "max_cost", typ: typeMoney, def: 0.0, example: "5.00"},
	{key: "max_tokens", typ: typeInt, def: 0, example: "2000000", min: 0,
		rangeHint: "use 0 (or leave it out) for no token budget"},
	{key: "daily_max_cost", typ: typeMoney, def: 0.0, example: "20.00"},
	{key: "log_level", typ: typeString, def: "info", example: "info", check: checkLogLevel},
	{key: "show_agent_output", typ: typeBool, def: false, example: "true"},
	{key: "notify", typ: typeList, def: []string(nil), example: `["desktop", "bell", "https://ntfy.sh/mytopic"]`,
		check: checkNotify, commandIf: hasWebhook},
	{key: "history_keep", typ: typeInt, def: 100, example: "100", min: 0,
		rangeHint: "use 0 to keep the output and diff of every iteration"},
	{key: "history_max_size", typ: typeSize, def: int64(500 << 20), example: "500MiB", noneOK: true, sizeMax: 1 << 50},
	{key: "template", typ: typeString, def: "", example: "tdd", check: checkTemplate},
	{key: "prompt", typ: typeString, example: "PROMPT_review.md", fileOnly: true, check: checkPrompt},
	{key: "prompts", typ: typeStrings, def: []string(nil), example: `["prompts/common.md", "PROMPT_plan.md"]`,
		fileOnly: true, check: checkPrompts},
}

// agentSpecs are the keys of an [agents.NAME] table.
var agentSpecs = []spec{
	{key: "program", typ: typeString, def: "", example: "claude", command: true, check: checkNotEmpty},
	{key: "args", typ: typeStrings, def: []string(nil), example: `["-p", "--verbose"]`, command: true},
	{key: "extra_args", typ: typeStrings, def: []string(nil), example: `["--model", "opus"]`, command: true},
}

// hookSpecs are the keys of the [hooks] table.
var hookSpecs = []spec{
	{key: "on_iteration", typ: typeString, def: "", example: "notify-send iteration", command: true},
	{key: "on_complete", typ: typeString, def: "", example: "notify-send done", command: true},
	{key: "on_failure", typ: typeString, def: "", example: "notify-send failed", command: true},
	{key: "on_limit", typ: typeString, def: "", example: "notify-send limited", command: true},
	{key: "timeout", typ: typeDuration, def: 30 * time.Second, example: "30s",
		rangeHint: `use a positive duration like "30s"`},
}

// tableNames are the top-level tables.
var tableNames = []string{"modes", "agents", "hooks", "prices"}

// Keys returns every top-level key, in a fixed order: for documentation and for
// suggesting a key when one is misspelt. Tables ([modes.NAME], [agents.NAME], [hooks])
// are not included.
func Keys() []string { return specKeys(topSpecs, false) }

// specKeys lists the keys of specs, leaving out top-only keys when inMode.
func specKeys(specs []spec, inMode bool) []string {
	keys := make([]string, 0, len(specs))
	for _, s := range specs {
		if !inMode || !s.topOnly {
			keys = append(keys, s.key)
		}
	}
	return keys
}

func findSpec(specs []spec, key string) *spec {
	for i := range specs {
		if specs[i].key == key {
			return &specs[i]
		}
	}
	return nil
}

// envName is the environment variable for a top-level key: RALPH_MAX_ITERATIONS.
func envName(key string) string { return "RALPH_" + strings.ToUpper(key) }

// fromTOML converts and checks a value decoded from a file.
func (s *spec) fromTOML(v any) (any, *problem) {
	switch s.typ {
	case typeString:
		if str, ok := v.(string); ok {
			return s.validate(str)
		}
	case typeInt:
		if n, ok := v.(int64); ok {
			return s.checkInt(n)
		}
	case typeBool:
		if b, ok := v.(bool); ok {
			return s.validate(b)
		}
	case typeDuration:
		switch x := v.(type) {
		case string:
			return s.duration(x)
		case int64:
			return nil, newProblem(fmt.Sprintf(`durations are quoted strings with a unit: write %s = "%s" ("500ms", "90s", "1h30m" also work)`, s.key, s.example),
				"want a duration string, got an integer (%d)", x)
		}
	case typeSize:
		switch x := v.(type) {
		case string:
			return s.size(x)
		case int64:
			return s.checkSize(x, strconv.FormatInt(x, 10))
		}
	case typeStrings:
		if list, ok := v.([]any); ok {
			return s.strings(list)
		}
	case typeMoney:
		switch x := v.(type) {
		case int64:
			return s.money(float64(x), strconv.FormatInt(x, 10))
		case tomlFloat:
			if x.ok {
				return s.money(x.v, strconv.FormatFloat(x.v, 'g', -1, 64))
			}
		}
	case typeList:
		switch x := v.(type) {
		case []any:
			return s.strings(x)
		case string:
			return s.validate(splitList(x))
		}
	}
	return nil, s.wrongType(v)
}

// fromString converts and checks a value from an environment variable or a flag.
func (s *spec) fromString(raw string) (any, *problem) {
	switch s.typ {
	case typeString:
		return s.validate(raw)
	case typeInt:
		n, err := strconv.ParseInt(strings.TrimSpace(raw), 10, 64)
		if err != nil {
			return nil, newProblem("use a whole number, like "+s.example, "want an integer, got %q", raw)
		}
		return s.checkInt(n)
	case typeBool:
		b, err := strconv.ParseBool(strings.TrimSpace(raw))
		if err != nil {
			return nil, newProblem("use true or false (1 and 0 also work)", "want a boolean, got %q", raw)
		}
		return s.validate(b)
	case typeDuration:
		return s.duration(raw)
	case typeSize:
		return s.size(raw)
	case typeMoney:
		t := strings.TrimPrefix(strings.TrimSpace(raw), "$")
		f, err := strconv.ParseFloat(t, 64)
		if err != nil || strings.ContainsAny(t, "_xXpP") {
			return nil, newProblem("use an amount in US dollars, like "+s.example, "want an amount, got %q", raw)
		}
		return s.money(f, raw)
	case typeList:
		return s.validate(splitList(raw))
	}
	return nil, newProblem("set it in a config file", "%s can't be set from the environment or a flag", s.key)
}

func (s *spec) validate(v any) (any, *problem) {
	if s.check != nil {
		if p := s.check(v); p != nil {
			return nil, p
		}
	}
	return v, nil
}

func (s *spec) checkInt(n int64) (any, *problem) {
	switch {
	case n < s.min && s.min == 0:
		return nil, newProblem(s.rangeHint, "must not be negative, got %d", n)
	case n < s.min:
		return nil, newProblem(s.rangeHint, "must be at least %d, got %d", s.min, n)
	case n > math.MaxInt32:
		return nil, newProblem("use a smaller number", "must be at most %d, got %d", math.MaxInt32, n)
	}
	return s.validate(int(n))
}

// maxMoney bounds the money keys: far above any budget, far below where sums lose cents.
const maxMoney = 1_000_000

// money checks an amount in US dollars: 0 means no budget.
func (s *spec) money(f float64, shown string) (any, *problem) {
	if math.IsNaN(f) || f < 0 || f > maxMoney {
		hint := fmt.Sprintf("use an amount in US dollars between 0 (no budget) and %d, like %s", maxMoney, s.example)
		if s.rangeHint != "" {
			hint = s.rangeHint
		}
		return nil, newProblem(hint,
			"must be between 0 and %d, got %s", maxMoney, shown)
	}
	return s.validate(f)
}

func (s *spec) duration(raw string) (any, *problem) {
	if raw == "" && s.noneOK {
		return time.Duration(0), nil
	}
	d, p := parseDuration(raw)
	if p != nil {
		return nil, p
	}
	if d <= 0 {
		return nil, newProblem(s.rangeHint, "must be greater than 0, got %s", d)
	}
	return s.validate(d)
}

func (s *spec) size(raw string) (any, *problem) {
	n, scale, ok := parseSize(raw)
	if !ok {
		return nil, newProblem(s.sizeRangeHint(), "want a size, got %q", raw)
	}
	if n == 0 && s.noneOK {
		return int64(0), nil
	}
	if n < 1 || n > s.largest()/scale {
		return nil, newProblem(s.sizeRangeHint(), "must be between 1 byte and %s, got %q", formatSize(s.largest()), raw)
	}
	return s.validate(n * scale)
}

func (s *spec) checkSize(n int64, shown string) (any, *problem) {
	if n == 0 && s.noneOK {
		return int64(0), nil
	}
	if n < 1 || n > s.largest() {
		return nil, newProblem(s.sizeRangeHint(), "must be between 1 byte and %s, got %s", formatSize(s.largest()), shown)
	}
	return s.validate(n)
}

// largest is the largest size the key allows.
func (s *spec) largest() int64 {
	if s.sizeMax > 0 {
		return s.sizeMax
	}
	return maxSize
}

func (s *spec) sizeRangeHint() string {
	if s.noneOK {
		return sizeHint + "; 0 for no limit"
	}
	return sizeHint
}

func (s *spec) strings(list []any) (any, *problem) {
	out := make([]string, 0, len(list))
	for i, v := range list {
		str, ok := v.(string)
		if !ok {
			return nil, newProblem("write it like this: "+s.key+" = "+s.example,
				"want an array of strings, but element %d is %s", i+1, describe(v))
		}
		out = append(out, str)
	}
	return s.validate(out)
}

// wrongType is the problem of a file value of the wrong TOML type.
func (s *spec) wrongType(got any) *problem {
	want := map[valueType]string{typeString: "a string", typeInt: "an integer", typeBool: "a boolean",
		typeDuration: "a duration string", typeSize: "a size", typeStrings: "an array of strings", typeMoney: "an amount",
		typeList: "an array of strings"}[s.typ]
	return newProblem("write it like this: "+s.key+" = "+s.literal(), "want %s, got %s", want, describe(got))
}

// literal is the spec's example written as a TOML value.
func (s *spec) literal() string {
	switch s.typ {
	case typeInt, typeBool, typeStrings, typeMoney, typeList:
		return s.example
	}
	return strconv.Quote(s.example)
}

var modeName = lazyregexp.New(`^[A-Za-z0-9][A-Za-z0-9_-]*$`)

const modeHint = `a mode name has letters, digits, '-' and '_' and starts with a letter or digit, like "plan" or "review-2"`

func checkMode(v any) *problem {
	if s := v.(string); !modeName.MatchString(s) {
		return newProblem(modeHint, "invalid mode name %q", s)
	}
	return nil
}

var logLevels = []string{"debug", "info", "warn", "error"}

func checkLogLevel(v any) *problem {
	if s := v.(string); !contains(logLevels, s) {
		hint := "use one of: " + strings.Join(logLevels, ", ")
		if near := suggest(s, logLevels); near != "" { // "warning", "DEBUG"
			hint = "did you mean " + near + "? " + hint
		}
		return newProblem(hint, "want one of %s, got %q", strings.Join(logLevels, ", "), s)
	}
	return nil
}

// feedbackChoices are the values of feedback: what the next prompt carries of the run's
// failures (see loop.FeedbackLast and loop.FeedbackAll, which this package cannot import).
var feedbackChoices = []string{"last", "all"}

func checkFeedback(v any) *problem {
	if s := v.(string); !contains(feedbackChoices, s) {
		return newProblem(`use "last" for the last iteration's failure only (the default), or "all" for every failure of the run so far`,
			"want one of %s, got %q", strings.Join(feedbackChoices, ", "), s)
	}
	return nil
}

func checkStagnationThreshold(v any) *problem {
	if v.(int) == 1 {
		return newProblem("use 0 to turn the stagnation check off, or 2 or more iterations in a row", "must be 0 or at least 2, got 1 (one iteration alone repeats nothing)")
	}
	return nil
}

func checkPercent(v any) *problem {
	if n := v.(int); n > 100 {
		return newProblem("a percentage from 1 to 100, like 90", "must be at most 100 (percent), got %d", n)
	}
	return nil
}

// checkAPIBase takes an http or https URL with a host: where an API agent's requests go.
func checkAPIBase(v any) *problem {
	s := v.(string)
	if s == "" {
		return nil
	}
	u, err := url.Parse(s)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return newProblem(`give the API's address with its scheme, like "http://127.0.0.1:11434/v1" or "https://api.openai.com"`,
			"want an http or https URL, got %q", s)
	}
	return nil
}

var envVarName = lazyregexp.New(`^[A-Za-z_][A-Za-z0-9_]*$`)

// checkEnvName takes the name of an environment variable: the one holding an API key.
func checkEnvName(v any) *problem {
	if s := v.(string); s != "" && !envVarName.MatchString(s) {
		return newProblem(`name the variable that holds the key, like "OPENAI_API_KEY": never the key itself`,
			"want an environment variable's name, got %d characters that are not one", len(s))
	}
	return nil
}

func checkNotEmpty(v any) *problem {
	if v.(string) == "" {
		return newProblem("remove the line to keep the default", "must not be empty")
	}
	return nil
}

// checkTemplate refuses a template name that could not name a directory of templates
// (whether the template exists is the command's to say: it knows where they are).
func checkTemplate(v any) *problem {
	if s := v.(string); s != "" && !modeName.MatchString(s) {
		return newProblem(`a template name has letters, digits, '-' and '_', like "tdd"; 'git ralph templates' lists them`, "invalid template name %q", s)
	}
	return nil
}

func checkPrompt(v any) *problem {
	if v.(string) == "" {
		return newProblem(`give a file path relative to the repository root, like prompt = "PROMPT_review.md"`, "must not be empty")
	}
	return nil
}

func checkPrompts(v any) *problem {
	list := v.([]string)
	if len(list) == 0 {
		return newProblem(`list at least one file, like prompts = ["prompts/common.md", "PROMPT_plan.md"], or remove the line`, "must not be empty")
	}
	for i, p := range list {
		if p == "" {
			return newProblem("remove the empty entry", "element %d is empty", i+1)
		}
	}
	return nil
}
