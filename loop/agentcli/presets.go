package agentcli

import (
	"slices"
	"time"
)

// hangTimeout is the suggested iteration timeout of the CLIs that are known to hang
// silently: long enough for a big task, short enough that an overnight loop is not
// stuck all night on a dead connection.
const hangTimeout = time.Hour

// silentTimeout is the suggested output_timeout of the same CLIs. They stream an event
// per step (a tool call, a message, a thought); the longest quiet stretch in normal work
// is one model turn or one tool call, such as a test suite the agent runs, which a
// quarter of an hour covers. A hang on a dead connection is then stopped after 15
// minutes rather than the hour of hangTimeout.
const silentTimeout = 15 * time.Minute

// presets are the built-in agents. Each command line was checked against the real CLI's
// argument parser where its package installs from npm; docs/guide/agents.md records what each
// did, with the version checked, and which ones could not be run here.
var presets = []Preset{
	{
		// stream-json with -p requires --verbose ("Error: When using --print,
		// --output-format=stream-json requires --verbose"). Bypass mode refuses to run as
		// root; the refusal is reported as Fatal (anthropics/claude-code#9184).
		// Headless -p can hang with no output (anthropics/claude-code#75613, #79610).
		// A judge runs in plan mode: 2.1.197 refuses its writes ("Output redirection to
		// '…' was blocked") and lets it read.
		Name: "claude", Program: "claude",
		Args:      []string{"-p", "--output-format", "stream-json", "--verbose", "--dangerously-skip-permissions"},
		JudgeArgs: []string{"-p", "--output-format", "stream-json", "--verbose", "--permission-mode", "plan"},
		Prompt:    Stdin, Format: ClaudeStream, Timeout: hangTimeout, OutputTimeout: silentTimeout,
		Note: "stream-json; prompt on stdin; refuses to run as root",
	},
	{
		// "-" reads the prompt from stdin until EOF; exec blocks on an open pipe, so stdin
		// must be closed after the prompt. It never exits on a dead network: it goes on
		// "Reconnecting... waiting for network" (seen here, codex-cli 0.169). A judge's
		// commands run in the read-only sandbox ("until.txt: Read-only file system").
		Name: "codex", Program: "codex",
		Args:      []string{"exec", "--json", "--dangerously-bypass-approvals-and-sandbox", "-"},
		JudgeArgs: []string{"exec", "--json", "--sandbox", "read-only", "-"},
		Prompt:    Stdin, Format: CodexJSON, Timeout: hangTimeout, OutputTimeout: silentTimeout,
		Note: "JSONL events; prompt on stdin (-); hangs on a dead network",
	},
	{
		// Headless because stdin is not a TTY; stdin becomes the prompt (up to 8 MiB).
		// Without --skip-trust, an untrusted folder turns yolo back into "default", and a
		// headless run then denies every tool that would ask. A judge runs in plan mode
		// ("read-only mode" in --help), which offers it no shell tool.
		Name: "gemini", Program: "gemini",
		Args:      []string{"--output-format", "stream-json", "--approval-mode", "yolo", "--skip-trust"},
		JudgeArgs: []string{"--output-format", "stream-json", "--approval-mode", "plan", "--skip-trust"},
		Prompt:    Stdin, Format: GeminiStream,
		Note:      "stream-json; prompt on stdin",
		ExitCodes: geminiExitCodes,
		// 0.61 runs its shell tool with GIT_CONFIG_GLOBAL=/dev/null: without the identity
		// in the environment, the agent's commit fails ("Author identity unknown").
		GitIdentity: true,
	},
	{
		// Without --auto every permission request is auto-rejected in `run`. It hangs on
		// quota and provider errors instead of exiting (anomalyco/opencode#8203, #40747).
		// A judge runs as the plan agent, which denies edits but lets bash run anything,
		// so its bash is denied too (OPENCODE_PERMISSION, which has no flag); without
		// --auto, whatever would ask is rejected.
		Name: "opencode", Program: "opencode",
		Args:      []string{"run", "--format", "json", "--auto"},
		JudgeArgs: []string{"run", "--format", "json", "--agent", "plan"},
		JudgeEnv:  []string{`OPENCODE_PERMISSION={"bash":"deny"}`},
		Prompt:    Stdin, Format: OpencodeJSON, Timeout: hangTimeout, OutputTimeout: silentTimeout,
		Note: "JSON events; prompt on stdin; hangs on quota errors",
	},
	{
		// qwen-code (a gemini-cli fork) is headless when stdin is not a TTY and no
		// positional prompt is given: stdin is the prompt. Its stream-json has Claude
		// Code's shape (QwenStream: with an error object and retry notices of its own).
		// A judge runs in plan mode, which headless denies its shell tool ("…permission
		// to use "run_shell_command", but that permission was declined").
		// 0.24 retries a 429 without retry-after (OpenAI's insufficient_quota) 10 times,
		// 60 s doubling to 5 min apart, request retries inside each: still retrying
		// after 55 minutes here.
		Name: "qwen", Program: "qwen",
		Args:      []string{"--output-format", "stream-json", "--approval-mode", "yolo"},
		JudgeArgs: []string{"--output-format", "stream-json", "--approval-mode", "plan"},
		Prompt:    Stdin, Format: QwenStream, Timeout: hangTimeout,
		Note: "Claude-compatible stream-json; prompt on stdin; retries a spent quota for long",
	},
	{
		// pi has no permission prompts: its tools (read, bash, edit, write) always run.
		// In print mode it reads the prompt from piped stdin. It exits 0 even when the
		// model call failed: only the JSON events tell. A judge runs with the read-only
		// tools only (read, grep, find, ls; "Read-only mode" in its --help), so it has no
		// bash to write with.
		Name: "pi", Program: "pi",
		Args:      []string{"-p", "--mode", "json"},
		JudgeArgs: []string{"-p", "--mode", "json", "--tools", "read,grep,find,ls"},
		Prompt:    Stdin, Format: PiJSON,
		Note: "JSON events; prompt on stdin; exits 0 on API errors",
	},
	{
		// aider cannot read its message from stdin, so the prompt goes by file. It has no
		// structured output and exits 0 even after a fatal API error (Aider-AI/aider#5552):
		// only its text tells. Its own auto-commits are what commits its work.
		Name: "aider", Program: "aider",
		Args:   []string{"--message-file", PromptFile, "--yes-always", "--no-pretty", "--no-stream", "--no-check-update"},
		Prompt: File, Format: Text,
		Note: "plain text; prompt in a file (--message-file); exits 0 on API errors",
	},
	{
		// Without --force, print mode only proposes edits; --trust skips the workspace
		// trust question that would block a headless run.
		Name: "cursor-agent", Program: "cursor-agent",
		Args:   []string{"-p", "--force", "--trust", "--output-format", "stream-json"},
		Prompt: Stdin, Format: ClaudeStream,
		Note: "stream-json (Claude-like, no token usage); prompt on stdin; monthly usage limits",
	},
	{
		// Without allow flags, prompt mode can wait for an approval forever; piped stdin
		// is a prompt like -p's. The JSONL carries no token counts (github/copilot-cli#4107).
		// A judge runs in plan mode, which blocks its shell commands that would modify
		// files, --allow-all or not.
		Name: "copilot", Program: "copilot",
		Args:      []string{"--allow-all", "--no-ask-user", "--output-format", "json"},
		JudgeArgs: []string{"--allow-all", "--no-ask-user", "--output-format", "json", "--plan"},
		Prompt:    Stdin, Format: CopilotJSON, Timeout: hangTimeout, OutputTimeout: silentTimeout,
		Note: "JSONL session events; prompt on stdin; no token counts",
	},
	{
		// -x takes an optional message, so it comes last and the prompt comes on stdin.
		// Not logged in, amp starts a login flow that reads a code from stdin: it eats the
		// prompt and fails ("Login failed"), which is reported as Fatal.
		Name: "amp", Program: "amp",
		Args:   []string{"--dangerously-allow-all", "--stream-json", "-x"},
		Prompt: Stdin, Format: ClaudeStream,
		Note: "Claude-compatible stream-json; prompt on stdin",
	},
	{
		// The whole instruction on stdin; headless auth comes from KIRO_API_KEY.
		Name: "kiro-cli", Program: "kiro-cli",
		Args:   []string{"chat", "--no-interactive", "--trust-all-tools"},
		Prompt: Stdin, Format: Text,
		Note: "plain text; prompt on stdin",
	},
}

// geminiExitCodes are gemini-cli's own exit codes (0.61: its Fatal*Error classes), and
// the HTTP statuses its handleError passes to process.exit, which the OS takes mod 256.
var geminiExitCodes = map[int]string{
	41: "gemini: authentication error", 42: "gemini: input error", 44: "gemini: sandbox error",
	52: "gemini: configuration error", 53: "gemini: turn limit reached", 54: "gemini: tool execution error",
	55:        "gemini: untrusted workspace",
	400 % 256: "gemini: API error HTTP 400", 401 % 256: "gemini: API error HTTP 401",
	403 % 256: "gemini: API error HTTP 403", 404 % 256: "gemini: API error HTTP 404",
	429 % 256: "gemini: API error HTTP 429", 500 % 256: "gemini: API error HTTP 500",
	502 % 256: "gemini: API error HTTP 502", 503 % 256: "gemini: API error HTTP 503",
	504 % 256: "gemini: API error HTTP 504",
}

// aliases are other names users reach for; Lookup resolves them to the preset's name.
var aliases = map[string]string{"cursor": "cursor-agent", "kiro": "kiro-cli"}

// Lookup finds the built-in preset called name, or by one of its aliases ("cursor",
// "kiro"). The result is the caller's own copy.
func Lookup(name string) (Preset, bool) {
	if canonical, ok := aliases[name]; ok {
		name = canonical
	}
	for _, p := range slices.Concat(presets, apiPresets) {
		if p.Name == name {
			return p.clone(), true
		}
	}
	return Preset{}, false
}

// Names lists the built-in presets' names, sorted.
func Names() []string {
	names := make([]string, 0, len(presets)+len(apiPresets))
	for _, p := range slices.Concat(presets, apiPresets) {
		names = append(names, p.Name)
	}
	slices.Sort(names)
	return names
}
