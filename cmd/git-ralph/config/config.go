package config

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Kind is the kind of source a value came from; a higher Kind overrides a lower one.
type Kind int

// The sources, lowest precedence first.
const (
	FromDefault Kind = iota // built in
	FromUser                // the user's config file
	FromRepo                // the repository's .ralph/config.toml
	FromEnv                 // an environment variable RALPH_<KEY>
	FromFlag                // a command-line flag
)

// String names the kind: "default", "user", "repo", "env", "flag".
func (k Kind) String() string {
	switch k {
	case FromDefault:
		return "default"
	case FromUser:
		return "user"
	case FromRepo:
		return "repo"
	case FromEnv:
		return "env"
	case FromFlag:
		return "flag"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

// Origin says where a value came from.
type Origin struct {
	Kind Kind
	Name string // flag name ("--max"), environment variable ("RALPH_MAX_ITERATIONS"), or what supplied a default ("preset claude")
	File string // display path: ".ralph/config.toml", or the user file with $HOME shown as "~"
	Line int    // 1-based line in File
	Mode string // set when the value came from a [modes.NAME] section
}

// String formats the origin for people: "default", "flag --max",
// "env RALPH_MAX_ITERATIONS", ".ralph/config.toml:12", ".ralph/config.toml:12 [modes.plan]",
// "~/.config/git-ralph/config.toml:3".
func (o Origin) String() string {
	switch o.Kind {
	case FromDefault:
		if o.Name != "" {
			return o.Name // a default that is not built in: "preset claude"
		}
		return "default"
	case FromEnv:
		return "env " + o.Name
	case FromFlag:
		return "flag " + o.Name
	}
	s := o.File
	if o.Line > 0 {
		s += ":" + strconv.Itoa(o.Line)
	}
	if o.Mode != "" {
		s += " [modes." + o.Mode + "]"
	}
	return s
}

// Value is a resolved setting and its origin.
type Value[T any] struct {
	V      T
	Origin Origin
}

// Config is the resolved configuration.
type Config struct {
	Agent    Value[string] // built-in preset name; "" = none (the CLI validates names)
	AgentCmd Value[string] // command run with sh -c; "" = none
	// Model, APIBase and APIKeyEnv are an API agent's (anthropic-api, openai-api,
	// openai-chat): the model, the API's address ("" = the vendor's variable, then the
	// vendor's), the variable holding the key ("" = the vendor's). APIMaxTurns and
	// APIMaxContext bound an iteration (0: no context cap), a repository may only tighten them.
	Model         Value[string]
	APIBase       Value[string]
	APIKeyEnv     Value[string]
	APIMaxTurns   Value[int]
	APIMaxContext Value[int]
	Mode          Value[string] // the selected mode, "build" by default
	// MaxIterations is the limit from max_iterations and unlimited; 0 = unlimited. It and
	// the other Bounded settings bound what a loop spends: a repository's settings can
	// tighten what the user's file sets but not loosen it (see iterationLimit and safeguard).
	MaxIterations Value[int]
	// LiftedLimit is the refusal of a repository's unlimited = true over the user's limit
	// (then MaxIterations is the user's): for the commands that start loops to return,
	// not for every command that reads the configuration (a pre-push hook, trust, merge).
	LiftedLimit          *Error
	IterationTimeout     Value[time.Duration] // 0 = none (the default, or "" in a file or flag)
	OutputTimeout        Value[time.Duration] // stop an agent silent this long; 0 = none (the default, or "")
	IdleThreshold        Value[int]           // 0 = never stop for idleness
	StagnationThreshold  Value[int]           // iterations in a row alike before the nudge; 0 = no check
	StagnationSimilarity Value[int]           // percent alike that counts as the same
	MaxConsecutiveErrors Value[int]
	MaxOutputBuffer      Value[int64]  // bytes
	Validate             Value[string] // shell command run after each iteration; "" = none
	ValidateTimeout      Value[time.Duration]
	ValidateFormat       Value[string]   // how the validate command's output names its tests; "none": the exit code alone
	ValidateTargets      Value[[]string] // tests that must pass for validation to pass (with a format)
	Until                Value[string]   // the promise command: the loop is done when it passes; "" = none
	Feedback             Value[string]   // "last" or "all": what the next prompt carries of the run's failures
	Judge                Value[string]   // a preset name or a command judging each iteration; "" = none
	Push                 Value[bool]
	Remote               Value[string] // "" = the branch's upstream, else origin
	Branch               Value[string] // "" = the same branch name
	BackoffBase          Value[time.Duration]
	BackoffMax           Value[time.Duration]
	MaxLimitWait         Value[time.Duration]
	StopOnOverage        Value[bool] // stop after an iteration served on paid extra usage
	// MaxCost, MaxTokens and DailyMaxCost are the budgets (0: none): per run in US dollars
	// and tokens, and per day for all the user's loops. A repository's file can lower them
	// but not raise them.
	MaxCost         Value[float64]
	MaxTokens       Value[int]
	DailyMaxCost    Value[float64]
	LogLevel        Value[string] // debug, info, warn or error
	ShowAgentOutput Value[bool]
	Notify          Value[[]string] // desktop, bell, webhook URLs; nil or ["none"] = none
	HistoryKeep     Value[int]      // iterations whose output and diff are kept; 0 = all
	HistoryMaxSize  Value[int64]    // bytes those may take together; 0 = no limit
	Template        Value[string]   // a loop template whose prompt replaces the mode's; "" = none
	// Prompts are the prompt files of the mode, from prompt or prompts, as written
	// (relative paths are relative to the repository root); nil means PROMPT_<mode>.md.
	Prompts Value[[]string]
	Agents  map[string]AgentOverride // [agents.NAME] of both files, merged field by field
	Prices  map[string]ModelPrice    // [prices.MODEL] of the user's file
	Hooks   Hooks

	// Warnings are what deserves a word but does not stop anything: RALPH_ variables
	// that are no setting, and the repository's settings refused as looser than yours.
	Warnings []string

	// SecretsAllow is the text of SecretsAllowFile ("" when there is none). The repository
	// supplies it and it lets secrets leave the machine, so it counts among the repository's
	// commands that need trust (under the name "secrets-allow").
	SecretsAllow string

	repoCommands map[string]string
}

// SecretsAllowFile lists the secret scan findings that may be pushed.
const SecretsAllowFile = ".ralph/secrets-allow"

// readSecretsAllow adds the repository's allow file to c, and to the commands trust covers.
func readSecretsAllow(c *Config, root string) error {
	// a file of the repository like its config: regular, inside it, at most 1 MiB
	b, err := readSafely(root, SecretsAllowFile, SecretsAllowFile, FromRepo)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	if strings.TrimSpace(string(b)) == "" {
		return nil
	}
	c.SecretsAllow = string(b)
	if c.repoCommands == nil {
		c.repoCommands = map[string]string{}
	}
	c.repoCommands["secrets-allow"] = c.SecretsAllow
	return nil
}

// AgentOverride changes a built-in agent preset; fields that no file sets have a
// Default origin and zero value.
type AgentOverride struct {
	Program   Value[string]   // replaces the preset's program; "" = keep it
	Args      Value[[]string] // replaces the preset's arguments when ArgsSet
	ArgsSet   bool            // args was given (possibly empty: no arguments at all)
	ExtraArgs Value[[]string] // appended to the arguments
}

// Hooks are commands run on loop events with the event's JSON on stdin; "" = none.
type Hooks struct {
	OnIteration Value[string]
	OnComplete  Value[string]
	OnFailure   Value[string]
	OnLimit     Value[string]
	Timeout     Value[time.Duration] // default 30s
}

// Flag is a flag the user actually gave, for a config key.
type Flag struct {
	Key  string // config key: "max_iterations"
	Name string // as typed, for messages and origins: "--max"
	Raw  string // value, parsed like an environment variable: "7", "false", "30m"
}

// Sources are the inputs of Load.
type Sources struct {
	// RepoRoot is the repository root; the repository file is
	// RepoRoot/.ralph/config.toml. "" means no repository file.
	RepoRoot string
	// UserFile is the user's config file ("" = none); see UserConfigPath.
	UserFile string
	// Home is the home directory, to show the user file as "~/…"; "" means $HOME from Env.
	Home string
	// Env is the environment, as "KEY=VALUE" entries (os.Environ()).
	Env []string
	// Flags are the flags given, in command-line order (a later one wins). The mode
	// comes from a flag with Key "mode".
	Flags []Flag
	// Workflow are the settings a workflow file gives the loop of its stage: the
	// repository's, over its config file, bounded as it is (see Bounded).
	Workflow []WorkflowSetting
}

// RepoFile is the repository config file's path relative to the repository root, as
// shown in origins and errors.
const RepoFile = ".ralph/config.toml"

// UserConfigPath returns $XDG_CONFIG_HOME/git-ralph/config.toml (when XDG_CONFIG_HOME is
// an absolute path), else $HOME/.config/git-ralph/config.toml, else "".
func UserConfigPath(env []string) string {
	if x := lookupEnv(env, "XDG_CONFIG_HOME"); filepath.IsAbs(x) {
		return filepath.Join(x, "git-ralph", "config.toml")
	}
	if h := lookupEnv(env, "HOME"); h != "" {
		return filepath.Join(h, ".config", "git-ralph", "config.toml")
	}
	return ""
}

// Load reads the config files and resolves every setting. Bad input in any source is
// an *Error; so is a file that exists but can't be read (it wraps the I/O error).
func Load(src Sources) (*Config, error) {
	home := src.Home
	if home == "" {
		home = lookupEnv(src.Env, "HOME")
	}
	user, err := loadFile("", src.UserFile, displayPath(src.UserFile, home), FromUser)
	if err != nil {
		return nil, err
	}
	user.display = displayPath(src.UserFile, home)
	repoPath := ""
	if src.RepoRoot != "" {
		repoPath = RepoFile
	}
	repo, err := loadFile(src.RepoRoot, repoPath, RepoFile, FromRepo)
	if err != nil {
		return nil, err
	}
	env, err := envTable(src.Env)
	if err != nil {
		return nil, err
	}
	flags, err := flagTable(src.Flags)
	if err != nil {
		return nil, err
	}
	workflow, err := workflowTable(src.Workflow)
	if err != nil {
		return nil, err
	}
	c, err := resolve(user, repo, workflow, env, flags)
	if err != nil {
		return nil, err
	}
	c.Warnings = append(envWarnings(src.Env), c.Warnings...)
	if src.RepoRoot != "" {
		if err := readSecretsAllow(c, src.RepoRoot); err != nil {
			return nil, err
		}
	}
	return c, nil
}

// displayPath shows path with the home directory as "~".
func displayPath(path, home string) string {
	home = strings.TrimSuffix(home, string(os.PathSeparator))
	if home != "" {
		if rest, ok := strings.CutPrefix(path, home+string(os.PathSeparator)); ok {
			return "~/" + filepath.ToSlash(rest)
		}
	}
	return path
}
