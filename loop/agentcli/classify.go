package agentcli

import (
	"regexp"
	"strconv"
	"sync"
	"time"

	"github.com/git-ralph/git-ralph/lazyregexp"
	"github.com/git-ralph/git-ralph/loop/agentcli/resettime"
)

// kind is what a piece of the agent's text says about the run.
type kind int

const (
	noKind kind = iota
	transientKind
	limitKind
	fatalKind
)

// The text rules. Vendors reword their messages often (cline/cline#4616,
// anthropics/claude-code#7641), so each rule names a phrase that a limit or an error
// message has and prose seldom does: a bare "limit" or "429" never matches. They are
// applied to the agent's structured error fields, and to plain-text output and stderr
// lines only within the last 30 non-empty lines (frankbria/ralph-claude-code#183: a grep
// over the whole output matched the contents of files the agent had read).
var (
	limitRules = rules(
		// "You've hit your limit · resets 2pm (Asia/Tokyo)", "You've hit your session
		// limit", "…your org's monthly usage limit", codex's and cursor's "You've hit your
		// usage limit", copilot's "you've hit a rate limit".
		`\bhit (?:your|a) (?:[\w'’-]+ ){0,3}limit\b`,
		// "Claude AI usage limit reached|1767225600", "5-hour limit reached ∙ resets 2am",
		// "Kiro rate limit reached", "Rate limit is exceeded", "60-minute credit limit exceeded".
		`\b(?:usage|rate|request|credit|session|weekly|daily|monthly|5-hour|five-hour|[0-9]+-minute|token) limit (?:is |has been )?(?:reached|exceeded)\b`,
		`\brate[ _-]?limit(?:ed\b|[ _-]?error\b|[ _-]exceeded\b)`, // RateLimitError, rate_limit_error, rate_limited, rate-limit-exceeded
		`\bout of extra usage\b`,
		`\btoo many requests\b`,
		`\bRESOURCE_EXHAUSTED\b`, `\bresource has been exhausted\b`,
		`\bexhausted your (?:daily |monthly )?(?:quota|capacity|credits)\b`,
		`\bquota (?:exceeded|exhausted)\b`, `\bexceeded your (?:current )?quota\b`,
		`\binsufficient_quota\b`, `\bquota_exceeded\b`, `\byou have no quota\b`,
		`\bTerminalQuotaError\b`, `\bQUOTA_EXHAUSTED\b`,
		`(?:API Error|status(?: code)?|HTTP(?:/[\d.]+)?|error code)[: =]*429\b`,
		`\bexceeded your copilot token usage\b`,
		`\breached your specified API usage limits\b`,
		`\busage allocation has been disabled\b`,
		`\bat least \$[\d.]+ in available credits\b`,
		`\bcredit balance is too low\b`, // the Anthropic API's 400 when no credits are left
		// The per-model banner has no reset time; it counts only with its remedy hint, so
		// that prose about limits does not (saaranshM/unsnooze PR #7).
		`\byou've reached your .*\blimit\b.*(?:/usage-credits|/model)`,
		`\bThrottlingException\b`, `\bthrottled by the service\b`,
		// Codex's usage_not_included: the ChatGPT plan has no Codex usage at all.
		`\bto use Codex with your ChatGPT plan, upgrade\b`,
	)
	// permanentRules mark a limit that waiting will not clear soon (section 3 of the
	// research: spend caps, monthly plans, no credits; saaranshM/unsnooze PR #19).
	permanentRules = rules(
		`\bmonthly\b`, `\bspend(?:ing)? (?:limit|cap)\b`, `\bspecified API usage limits\b`,
		`\byou have no quota\b`, `\binsufficient_quota\b`, `\bbilling_not_configured\b`,
		`\bquota exceeded\. check your plan and billing\b`,
		`\bdisabled by your admin\b`, `\busage allocation has been disabled\b`,
		`\bin available credits\b`, `\bGet Cursor Pro\b`, `/usage-credits\b`,
		`\bto use Codex with your ChatGPT plan, upgrade\b`,
		// gemini-cli's TerminalQuotaError for a daily quota (the API's QuotaFailure with a
		// PerDay quota id; it states no reset), and the API's word for a plan that has no
		// quota at all for the model: gemini-cli gives up on both at once.
		`\bexhausted your daily quota\b`, `\bquota exceeded for metric: [^\n]*\blimit: ?0(?:,|\s|$)`,
		`\bcredit balance is too low\b`,
	)
	fatalRules = rules(
		`^\W*(?:error:?\s*)?(?:you are |you're )?not (?:logged in|authenticated)\b`, // "Not logged in · Please run /login"
		`\bplease run /login\b`,
		`cannot be used with root/sudo privileges`,
		`^\W*(?:error:?\s*)?please set an auth method\b`, // gemini
		`\bmust specify the GEMINI_API_KEY\b`,
		`\bno authentication information found\b`,      // copilot
		`\bare not supported by copilot\b`,             // copilot: classic PATs
		`^\W*no api key found\b`, `^\W*login failed\b`, // amp's login flow, without a TTY
		`\b(?:invalid|incorrect) (?:x-)?api[ _-]?key\b`, `\bauthentication_error\b`,
		`\bAuthenticationError\b`, `\bauthentication_failed\b`, `\bAPI Error: 40[13]\b`,
		`\b401 Unauthorized\b`,
		// Codex's words for an HTTP 403 (a region the API does not serve, a project
		// without access to the model): retrying will not help.
		`\bunexpected status 403 Forbidden\b`,
		// Google's API (gemini): a 400 API_KEY_INVALID, a 401 UNAUTHENTICATED, a 403
		// PERMISSION_DENIED; the status names are matched in capitals only.
		`\bAPI_KEY_INVALID\b`, `\bAPI key not valid\b`, `(?-i:\bUNAUTHENTICATED\b)`,
		`\binvalid authentication credentials\b`, `(?-i:\bPERMISSION_DENIED\b)`,
		`cannot be launched inside another Claude Code session`,
		// The CLI rejected its arguments: commander, clap, yargs, argparse.
		`^\W*(?:error:\s*)+unknown option\b`, `^\W*error: unexpected argument\b`,
		`^\W*unknown arguments?: `, `\berror: unrecognized arguments\b`,
		`^\W*error: found argument .* which wasn't expected`, `\brequires --verbose\b`,
	)
	transientRules = rules(
		`\bAPI Error: (?:5\d\d|Repeated 529)\b`, `\b529 Overloaded\b`, `\boverloaded_error\b`,
		`\b(?:is|are) (?:currently )?overloaded\b`,
		`(?:status(?: code)?|HTTP(?:/[\d.]+)?|error code)[: =]*5\d\d\b`,
		`\b50[0234] (?:Internal Server Error|Bad Gateway|Service Unavailable|Gateway Time-?out)\b`,
		`\bInternalServerError\b`, `\bServiceUnavailable(?:Error)?\b`, `\bAPIConnectionError\b`,
		`\bAPI Error: Connection error\b`, `\bunable to connect to API\b`, `\bConnectionRefused\b`, `\bconnection (?:reset|refused|error|failed)\b`,
		`\bE(?:CONNRESET|CONNREFUSED|TIMEDOUT|NOTFOUND|AI_AGAIN)\b`, `\bsocket hang up\b`,
		`\bfetch failed\b`, `\bstream disconnected before completion\b`, `^\W*Reconnecting\.\.\.`,
		`\bfailed to lookup address\b`, `\berror sending request\b`, `\bcouldn't connect to\b`,
		`\bnetwork (?:is )?unreachable\b`, `\btemporarily (?:unavailable|busy)\b`,
		`\bhaving trouble responding right now\b`,
		// Codex's words for an HTTP 500 and for a mid-stream overload (codex-rs
		// InternalServerError and ServerOverloaded).
		`\bcurrently experiencing high demand\b`, `\bselected model is at capacity\b`,
	)
)

// rules are case-insensitive, multi-line patterns, compiled when first matched: every
// git-ralph command would otherwise pay for compiling them all as it starts (a few
// milliseconds, most of a short command's start), and most never classify a word.
func rules(patterns ...string) func() []*regexp.Regexp {
	return sync.OnceValue(func() []*regexp.Regexp {
		res := make([]*regexp.Regexp, len(patterns))
		for i, p := range patterns {
			res[i] = regexp.MustCompile(`(?im)` + p)
		}
		return res
	})
}

// matchAny reports whether any of the rules matches s.
func matchAny(rules func() []*regexp.Regexp, s string) bool {
	for _, re := range rules() {
		if re.MatchString(s) {
			return true
		}
	}
	return false
}

// classify says what msg reports: a limit, a fatal error, a transient error, or none of
// them. A limit wins over the others ("stream disconnected before completion: Rate
// limit is exceeded" is a limit), a fatal error over a transient one.
func classify(msg string) kind {
	switch {
	case matchAny(limitRules, msg):
		return limitKind
	case matchAny(fatalRules, msg):
		return fatalKind
	case matchAny(transientRules, msg):
		return transientKind
	}
	return noKind
}

// permanent reports whether the limit msg states is one that waiting will not clear soon.
func permanent(msg string) bool {
	return matchAny(permanentRules, msg)
}

// epochFieldRule finds a structured reset time quoted inside an error message, as in
// Codex's raw API error: {"type":"usage_limit_reached", …, "resets_at":1767225600}.
var epochFieldRule = lazyregexp.New(`"(?:resets_at|resetsAt)"\s*:\s*([0-9]+(?:\.[0-9]+)?)`)

// epochField is the reset time in a quoted "resets_at" field of msg.
func epochField(msg string) (time.Time, bool) {
	m := epochFieldRule.FindStringSubmatch(msg)
	if m == nil {
		return time.Time{}, false
	}
	v, err := strconv.ParseFloat(m[1], 64)
	if err != nil {
		return time.Time{}, false
	}
	return resettime.Epoch(v)
}
