package launch

import (
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/agentcheck"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/history/redact"
	"github.com/git-ralph/git-ralph/loop"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/loop/apiagent"
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
	price, _ := ModelPrice(c, c.Model.V)
	return &loop.APIAgent{Model: c.Model.V, BaseURL: base, Key: key,
		MaxTurns: c.APIMaxTurns.V, MaxContext: int64(c.APIMaxContext.V), Price: price}
}

// ModelPrice is the price of an API agent's model, and where it comes from: the user's
// [prices.MODEL], else the built-in table (of its date); nil when neither has it, and
// the model's cost is unknown.
func ModelPrice(c *config.Config, model string) (*apiagent.Price, string) {
	if p, ok := c.Prices[model]; ok {
		return &apiagent.Price{Input: p.Input, Output: p.Output, CacheRead: p.CacheRead, CacheWrite: p.CacheWrite},
			p.Origin.String()
	}
	table := apiagent.Prices()
	if p, name, ok := table.For(model); ok {
		return &p, fmt.Sprintf("the built-in price table of %s, as %s", table.Date, name)
	}
	return nil, ""
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
		s.extra = append(s.extra, s.priceEntry())
	}
	if judge, ok := agentcli.Lookup(s.Loop.Judge); ok && judge.InProcess() {
		s.Loop.JudgeAPI = apiAgent(s.Resolved, judge)
	}
}

// checkAPI is the check of an in-process agent or judge: its model and its key.
func (s *Settings) checkAPI(preset agentcli.Preset) agentcheck.Result {
	env := keyEnv(s.Resolved, preset)
	r := agentcheck.APIKey(preset.Name, s.Resolved.Model.V, env, os.Getenv(env) != "", preset.API.KeyOptional)
	if r.OK {
		r.Note += "; " + priceNote(s.Resolved, s.Resolved.Model.V)
	}
	return r
}

// priceEntry is the model's price as `git ralph config` and the dry run show it, with
// where it comes from (the built-in table's date, or your [prices.MODEL]).
func (s *Settings) priceEntry() config.Entry {
	model := s.Resolved.Model.V
	p, from := ModelPrice(s.Resolved, model)
	if p == nil {
		return config.Entry{Key: "price", Value: "unknown: no price for " + orNone(model) + ", so its cost is not known",
			Origin: config.Origin{Kind: config.FromDefault, Name: "built-in price table of " + apiagent.Prices().Date}}
	}
	return config.Entry{Key: "price", Value: fmt.Sprintf("$%s/M in, $%s/M out, $%s/M cache read, $%s/M cache write",
		perMillion(p.Input), perMillion(p.Output), perMillion(p.CacheRead), perMillion(p.CacheWrite)),
		Origin: config.Origin{Kind: config.FromDefault, Name: from}}
}

func orNone(model string) string {
	if model == "" {
		return "no model"
	}
	return model
}

// priceNote says what the model costs and where the price comes from, or that its cost
// is unknown.
func priceNote(c *config.Config, model string) string {
	p, from := ModelPrice(c, model)
	if p == nil {
		return fmt.Sprintf("no price for %s: its cost is unknown (set [prices.%q] in your config)", model, model)
	}
	return fmt.Sprintf("$%s/M in, $%s/M out, $%s/M cache read, $%s/M cache write, from %s",
		perMillion(p.Input), perMillion(p.Output), perMillion(p.CacheRead), perMillion(p.CacheWrite), from)
}

// perMillion writes a price per million tokens: to the cent, or finer as given.
func perMillion(f float64) string {
	s := strconv.FormatFloat(f, 'f', -1, 64)
	if i := strings.IndexByte(s, '.'); i < 0 || len(s)-i <= 3 {
		return strconv.FormatFloat(f, 'f', 2, 64)
	}
	return s
}
