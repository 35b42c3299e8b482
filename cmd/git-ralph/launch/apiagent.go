package launch

import (
	"os"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agentcli"
)

// apiAgent is how the in-process agent of preset reaches its model, from the settings:
// the model, the base URL (api_base, else the vendor's variable, else the vendor's own
// address) and the key (from api_key_env, else the vendor's variable). The key is added
// to the redaction of everything git-ralph writes or shows; only its variable's name is
// ever shown.
func apiAgent(c *config.Config, preset agentcli.Preset) *loop.APIAgent {
	base := c.APIBase.V
	if base == "" {
		base = os.Getenv(preset.API.BaseEnv)
	}
	key := os.Getenv(keyEnv(c, preset))
	redact.Literal(key)
	return &loop.APIAgent{Model: c.Model.V, BaseURL: base, Key: key,
		MaxTurns: c.APIMaxTurns.V, MaxContext: int64(c.APIMaxContext.V)}
}

// keyEnv is the variable preset's key is read from.
func keyEnv(c *config.Config, preset agentcli.Preset) string {
	if c.APIKeyEnv.V != "" {
		return c.APIKeyEnv.V
	}
	return preset.API.KeyEnv
}

// chooseAPI gives the loop the in-process agent's and judge's settings, when the agent
// or the judge is an API preset.
func (s *Settings) chooseAPI() {
	if s.Loop.Agent.InProcess() && s.Loop.AgentCmd == "" { // not a replay, nor a command read as one
		s.Loop.API = apiAgent(s.Resolved, s.Loop.Agent)
	}
	if judge, ok := agentcli.Lookup(s.Loop.Judge); ok && judge.InProcess() {
		s.Loop.JudgeAPI = apiAgent(s.Resolved, judge)
	}
}

// checkAPI is the check of an in-process agent or judge: its model and its key.
func (s *Settings) checkAPI(preset agentcli.Preset) agentcheck.Result {
	env := keyEnv(s.Resolved, preset)
	_, set := os.LookupEnv(env)
	return agentcheck.APIKey(preset.Name, s.Resolved.Model.V, env, set && os.Getenv(env) != "", preset.API.KeyOptional)
}
