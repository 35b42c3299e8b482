package realagents

import (
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// GitHub Copilot CLI (@github/copilot) in its BYOK mode: COPILOT_PROVIDER_BASE_URL
// points it at an OpenAI-compatible provider, which it talks to with the Chat
// Completions API (`copilot help providers`: wire API "completions" is the default).
// With COPILOT_OFFLINE=true it needs no GitHub login and touches no other network
// (`copilot help environment`). Its mock is the Chat Completions API with server-sent
// events (openai_chat_test.go), which the OpenAI JS SDK the CLI uses (5.20.1, its
// x-stainless headers) reads.
func init() {
	register(agentCLI{
		preset:    "copilot",
		api:       chatDialect{cli: "copilot", model: copilotModel, reasoning: "reasoning_text", describe: true}.api,
		configure: configureCopilot,
		// plan mode (--plan) blocks a shell command that would modify files
		judgeRefuses: "Plan mode does not permit changes",
		judgeCmd:     "copilot --allow-all --no-ask-user",
		// totals: none. Its JSON output carries no token counts: the result's usage has
		// premiumRequests and durations only, and assistant.usage is not printed
		// (github/copilot-cli#4107), so the tests check that git-ralph records none.
		says: map[errorKind]string{
			// its session.error quotes the provider's message after its own retries
			quotaError: "You exceeded your current quota",
			// for a 401 it says its own words, not the provider's
			authError: "Authentication failed with provider",
		},
		skip: map[string]string{
			"limit-reset": "copilot waits out a 429 whose Retry-After is short itself (seen: 4, 20 and 60 s; " +
				"5 retries): the 4 s limit never reaches git-ralph, the same run succeeds. With Retry-After: 300 " +
				"it stops at once (session.error rate_limit, 'Please try again in 300s.'), too long a wait for a " +
				"test: loop/agentcli's TestReadCopilotLongRateLimit reads that recording",
		},
	})
}

// copilotModel is a model of the CLI's built-in catalog, so that it knows its token
// limits and prints no warning about an unknown model.
const copilotModel = "gpt-4.1"

// configureCopilot points the CLI at the mock. The CLI unpacks itself (235 MB) into
// its package cache on first run; COPILOT_PKG_CACHE_HOME shares one unpacked copy per
// installed version between the tests instead of one per temporary HOME.
func configureCopilot(t *testing.T, home, baseURL string) []string {
	bin, p := installed(t, "copilot")
	pkgCache := filepath.Join(filepath.Dir(filepath.Dir(bin)), "copilot-pkg-cache")
	copilotUnpack(t, bin, pkgCache, p.version)
	return []string{
		"COPILOT_PROVIDER_BASE_URL=" + baseURL + "/v1",
		"COPILOT_PROVIDER_API_KEY=sk-realagents-not-a-key",
		"COPILOT_MODEL=" + copilotModel,
		"COPILOT_OFFLINE=true",      // no GitHub login, telemetry, update checks
		"COPILOT_AUTO_UPDATE=false", // never download another version
		"COPILOT_PKG_CACHE_HOME=" + pkgCache,
	}
}

var copilotUnpacked sync.Map // package cache → *sync.Once

// copilotUnpack lets the CLI unpack itself into pkgCache once, before the scenarios
// run it in parallel, so that no two processes unpack into the same directory at once.
func copilotUnpack(t *testing.T, bin, pkgCache, version string) {
	once, _ := copilotUnpacked.LoadOrStore(pkgCache, &sync.Once{})
	once.(*sync.Once).Do(func() {
		cmd := exec.Command(filepath.Join(bin, "copilot"), "--version")
		cmd.Env = append(os.Environ(), "COPILOT_PKG_CACHE_HOME="+pkgCache, "COPILOT_AUTO_UPDATE=false",
			"COPILOT_OFFLINE=true", "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil || !strings.Contains(string(out), version) {
			t.Logf("copilot --version (unpacking into %s): %v\n%s", pkgCache, err, out)
		}
	})
}

// copilot-anthropic: the same CLI with COPILOT_PROVIDER_TYPE=anthropic, which talks to
// the provider with the Anthropic Messages API (its Anthropic JS SDK 0.94.0), answered
// by the Messages API mock (anthropic_test.go) that Claude Code talks to.
func init() {
	register(agentCLI{
		name:    "copilot-anthropic",
		preset:  "copilot",
		account: "anthropic",
		// plan mode, whatever the provider
		judgeRefuses: "Plan mode does not permit changes",
		judgeCmd:     "copilot --allow-all --no-ask-user",
		api: func(m *mock) http.Handler {
			// an API key's headers and words; 5xx answered at once, as copilot retries
			// them itself
			return &anthropic{m: m, account: apiKeyAccount, shellTool: "bash"}
		},
		configure: func(t *testing.T, home, baseURL string) []string {
			env := configureCopilot(t, home, baseURL)
			for i, kv := range env {
				switch {
				case strings.HasPrefix(kv, "COPILOT_PROVIDER_BASE_URL="):
					env[i] = "COPILOT_PROVIDER_BASE_URL=" + baseURL // the SDK adds /v1/messages
				case strings.HasPrefix(kv, "COPILOT_MODEL="):
					env[i] = "COPILOT_MODEL=" + copilotAnthropicModel
				}
			}
			return append(env, "COPILOT_PROVIDER_TYPE=anthropic")
		},
		says: map[errorKind]string{
			quotaError: "Your credit balance is too low to access the Anthropic API",
			authError:  "Authentication failed with provider",
		},
		skip: map[string]string{
			"limit-reset": "copilot waits out a 429 with a Retry-After itself (as with an OpenAI-compatible provider)",
		},
	})
}

// copilotAnthropicModel is a Claude model of the CLI's built-in catalog.
const copilotAnthropicModel = "claude-sonnet-4.5"
