package doctor

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// credentials are where a preset's CLI finds what it logs in with, looked at without
// running it or spending anything: environment variables that hold a key or select a
// cloud provider, and files its login writes (relative to HOME, or to the directory an
// environment variable names instead). A preset without an entry cannot be checked.
type credentials struct {
	env   []string
	files []credFile
	// sure: no credentials at those places means the CLI is not logged in. Not so where
	// the CLI may keep them elsewhere (the macOS keychain, its own config file).
	sure func(goos string) bool
}

// credFile is a file: underEnv below the directory the variable env names, or underHome
// below HOME when that variable is unset (or there is none).
type credFile struct{ env, underEnv, underHome string }

var presetCredentials = map[string]credentials{
	"claude": {
		env: []string{"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_USE_BEDROCK", "CLAUDE_CODE_USE_VERTEX"},
		// claude keeps its login in the keychain on macOS
		files: []credFile{{"CLAUDE_CONFIG_DIR", ".credentials.json", ".claude/.credentials.json"}},
		sure:  func(goos string) bool { return goos != "darwin" },
	},
	"codex": {
		env:   []string{"OPENAI_API_KEY", "CODEX_API_KEY"},
		files: []credFile{{"CODEX_HOME", "auth.json", ".codex/auth.json"}},
		sure:  always,
	},
	"gemini": {
		env:   []string{"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI", "GOOGLE_APPLICATION_CREDENTIALS"},
		files: []credFile{{"", "", ".gemini/oauth_creds.json"}},
		sure:  always,
	},
	"opencode": { // any provider's key; its providers may also be set in its own config
		env:   []string{"ANTHROPIC_API_KEY", "OPENAI_API_KEY", "GEMINI_API_KEY", "OPENROUTER_API_KEY"},
		files: []credFile{{"XDG_DATA_HOME", "opencode/auth.json", ".local/share/opencode/auth.json"}},
		sure:  never,
	},
	"copilot": {
		env:   []string{"COPILOT_GITHUB_TOKEN", "GH_TOKEN", "GITHUB_TOKEN"},
		files: []credFile{{"", "", ".copilot/config.json"}},
		sure:  never,
	},
}

func always(string) bool { return true }
func never(string) bool  { return false }

// login checks, per preset, that its CLI has something to log in with. A custom agent
// command and a preset whose places are not known get a warning that says so.
func login(in Input) Result {
	const name = "agent-login"
	switch {
	case in.AgentCmd != "":
		return ok(name, "a custom agent command: its login is not checked")
	case in.Preset == "":
		return ok(name, "no agent is set: no login to check")
	case in.APIAgent != nil:
		return ok(name, "an API agent: its key is the agent check's")
	}
	creds, known := presetCredentials[in.Preset]
	if !known {
		return warn(name, fmt.Sprintf("unknown: where %s keeps its login is not known to git-ralph", in.Preset),
			fmt.Sprintf("run '%s' once by hand to check that it is logged in", in.Program))
	}
	if where := creds.find(in); where != "" {
		return ok(name, fmt.Sprintf("%s: %s", in.Preset, where))
	}
	looked := creds.places(in)
	if !creds.sure(in.GOOS) {
		return warn(name, fmt.Sprintf("unknown: %s keeps no credentials where git-ralph looks (%s); it may keep them elsewhere", in.Preset, looked),
			fmt.Sprintf("run '%s' once by hand to check that it is logged in", in.Program))
	}
	return fail(name, fmt.Sprintf("%s is not logged in: none of %s", in.Preset, looked),
		fmt.Sprintf("log in with '%s' (as the user cron runs as), or set an API key in the environment", in.Program))
}

// find says where credentials were found: the variable's name (never its value) or the
// file; "" when nowhere.
func (c credentials) find(in Input) string {
	for _, v := range c.env {
		if in.Env(v) != "" {
			return v + " is set in this environment"
		}
	}
	for _, f := range c.files {
		if p := f.path(in); p != "" {
			if info, err := os.Stat(p); err == nil && info.Mode().IsRegular() && info.Size() > 0 {
				return "logged in (" + p + ")"
			}
		}
	}
	return ""
}

// places lists where find looked, for the message.
func (c credentials) places(in Input) string {
	list := append([]string{}, c.env...)
	for _, f := range c.files {
		if p := f.path(in); p != "" {
			list = append(list, p)
		}
	}
	return strings.Join(list, ", ")
}

func (f credFile) path(in Input) string {
	if f.env != "" && in.Env(f.env) != "" {
		return filepath.Join(in.Env(f.env), f.underEnv)
	}
	if in.Home == "" {
		return ""
	}
	return filepath.Join(in.Home, f.underHome)
}
