package agentcli

// API is how an in-process agent (loop/apiagent) reaches its model: no program runs;
// git-ralph sends the conversation itself. Its Protocol is loop/apiagent's name for the
// wire protocol, which this package cannot import (apiagent imports it).
type API struct {
	Protocol string // "anthropic", "responses" or "chat"
	// KeyEnv is the variable the key is read from unless the user names another
	// (api_key_env); BaseEnv the one the base URL defaults to, as the vendor's SDKs
	// read it, before the vendor's own address.
	KeyEnv, BaseEnv string
	// KeyOptional: a server of this protocol may need no key (a local one), so a missing
	// key is no error; none is sent.
	KeyOptional bool
}

// apiPresets are the agents that git-ralph runs in-process, talking to the model's HTTP
// API itself (docs/design/api-agents.md): the model is the user's --model, the address
// --api-base or the vendor's variable.
var apiPresets = []Preset{
	{
		Name: "anthropic-api", Format: APIExchange,
		API:  &API{Protocol: "anthropic", KeyEnv: "ANTHROPIC_API_KEY", BaseEnv: "ANTHROPIC_BASE_URL"},
		Note: "in-process: the Anthropic Messages API, no agent CLI",
	},
	{
		Name: "openai-api", Format: APIExchange,
		API:  &API{Protocol: "responses", KeyEnv: "OPENAI_API_KEY", BaseEnv: "OPENAI_BASE_URL"},
		Note: "in-process: the OpenAI Responses API, no agent CLI",
	},
	{
		Name: "openai-chat", Format: APIExchange,
		API:  &API{Protocol: "chat", KeyEnv: "OPENAI_API_KEY", BaseEnv: "OPENAI_BASE_URL", KeyOptional: true},
		Note: "in-process: the Chat Completions API of any compatible server (ollama, llama.cpp, vLLM, LM Studio)",
	},
}

// InProcess reports whether git-ralph runs the agent itself (an API preset): no program
// is looked up or started.
func (p Preset) InProcess() bool { return p.API != nil }
