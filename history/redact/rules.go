package redact

import (
	"math"
	"regexp"
	"strings"
	"sync"
)

// A rule finds one kind of secret. Its regexp runs only on the lines that contain one of
// its keywords, so that a 10 MB output costs one pass that finds every rule's keywords
// (keywordIndex) rather than a regexp pass per rule over everything. With fold, a keyword is also looked for capitalised
// and in upper case (key, Key, KEY: as names are written), which keeps the search on the
// fast substring path instead of lower-casing the text first.
// group is the submatch that holds the secret (0: the whole match), so that what names the
// secret ("Bearer ", "AWS_SECRET_ACCESS_KEY=") stays readable. An anchored rule's regexp
// (starting with ^) is matched right after each keyword instead of on the whole line: a
// keyword as common as "key" would otherwise cost a regexp search per line from every
// position of it.
type rule struct {
	name     string
	keywords []string
	fold     bool
	anchored bool
	re       func() *regexp.Regexp // compiled when first used (lazy)
	group    int
	check    func(secret []byte) bool // optional: the match is a secret only if check holds
	quick    func(after []byte) bool  // optional: a cheap test that rules out most keyword hits
}

// tokenChars are the bytes that can continue a key; a match must not start right after one
// of them, so that "xsk-ant-…" inside a longer word is not half-replaced.
func isTokenByte(c byte) bool {
	return c == '_' || c == '-' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

// The formats are the vendors' documented key prefixes (and those gitleaks' default rule
// set uses for them); lengths are lower bounds so that a format that grows stays caught.
// vendorRules (rules_vendors.go) add the other services' prefixed tokens.
var rules = withCaseVariants(append([]rule{
	{name: "anthropic-key", keywords: []string{"sk-ant-"},
		re: lazy(`sk-ant-[a-z]+[0-9]*-[A-Za-z0-9_-]{20,}`)},
	{name: "openai-key", keywords: []string{"sk-"},
		re: lazy(`sk-(?:(?:proj|svcacct|admin|None)-)?[A-Za-z0-9_-]{32,}`)},
	{name: "aws-access-key-id", keywords: []string{"AKIA", "ASIA", "ABIA", "ACCA", "A3T"},
		re: lazy(`(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA)[A-Z2-7]{16}\b`)},
	{name: "github-token", keywords: []string{"ghp_", "gho_", "ghu_", "ghs_", "ghr_", "github_pat_"},
		re: lazy(`(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{22,})`)},
	{name: "gitlab-token", keywords: []string{"glpat-", "gldt-", "glrt-", "glptt-", "glcbt-", "glft-", "glimt-", "gloas-", "glsoat-", "glagent-"},
		re: lazy(`gl(?:pat|dt|rt|ptt|cbt|ft|imt|oas|soat|agent)-[A-Za-z0-9_-]{20,}`)},
	{name: "slack-token", keywords: []string{"xox", "xapp-"},
		re: lazy(`(?:xox[abposre]-|xapp-[0-9]-)[A-Za-z0-9-]{10,}`)},
	{name: "slack-webhook", keywords: []string{"hooks.slack.com/"},
		re: lazy(`hooks\.slack\.com/(?:services|workflows|triggers)/[A-Za-z0-9_/-]{20,}`)},
	{name: "google-api-key", keywords: []string{"AIza"},
		re: lazy(`AIza[0-9A-Za-z_-]{35}`)},
	{name: "google-oauth", keywords: []string{"ya29.", "GOCSPX-"},
		re: lazy(`(?:ya29\.[0-9A-Za-z_-]{20,}|GOCSPX-[0-9A-Za-z_-]{24,})`)},
	{name: "stripe-key", keywords: []string{"_live_", "_test_", "_prod_", "whsec_"},
		re: lazy(`(?:(?:sk|rk)_(?:live|test|prod)_[A-Za-z0-9]{16,}|whsec_[A-Za-z0-9]{24,})`)},
	{name: "jwt", keywords: []string{"eyJ"},
		re: lazy(`eyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{16,}`)},
	{name: "bearer-token", keywords: []string{"bearer", "basic"}, fold: true, anchored: true, group: 1,
		re:    lazy(`^[ \t]+([A-Za-z0-9._~+/-]{16,}=*)`),
		check: mixed},
	{name: "url-password", keywords: []string{"://"}, group: 1,
		re: lazy(`[A-Za-z][A-Za-z0-9+.-]*://[^/\s:@"']+:([^/\s@"']{3,})@`)},
	// a name ending in one of the keywords (API_KEY, auth_token, "password"), an
	// assignment, and a value that looks generated
	{name: "assigned-secret", fold: true, anchored: true, group: 1,
		keywords: []string{"key", "token", "secret", "password", "passwd", "pwd", "credential", "credentials", "auth"},
		re:       lazy(`^s?(?:\\?["'])?[ \t]*(?::=|=>|=|:)[ \t]*(?:\\?["'])?([A-Za-z0-9+/_.~=-]{16,})`),
		check:    highEntropy, quick: assignedLong},
}, vendorRules...))

// lazy compiles expr when it is first used. Most texts hold no keyword of most rules, so
// most rules never need theirs; compiled at every start of git-ralph, the first sixteen
// cost 0.3 ms of each command's start, with or without anything to redact.
func lazy(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}

// withCaseVariants adds the capitalised and upper-case forms of the keywords of the rules
// that fold case.
func withCaseVariants(rs []rule) []rule {
	for i := range rs {
		if !rs[i].fold {
			continue
		}
		var all []string
		for _, kw := range rs[i].keywords {
			all = append(all, kw, strings.ToUpper(kw[:1])+kw[1:], strings.ToUpper(kw))
		}
		rs[i].keywords = all
	}
	return rs
}

// assignedLong is the shape of the assigned-secret rule without its regexp: after the
// keyword, an optional s and quote (escaped too, \" in a JSON or TOML string), blanks, ':' or '=', and 16 value characters. Most hits
// of "key" and "token" (input_tokens":1034, keyboard) fail it within a few bytes.
func assignedLong(b []byte) bool {
	i := 0
	skip := func(ok func(byte) bool) {
		for i < len(b) && ok(b[i]) {
			i++
		}
	}
	if i < len(b) && b[i] == 's' {
		i++
	}
	skip(func(c byte) bool { return c == '"' || c == '\'' || c == '\\' || c == ' ' || c == '\t' })
	if i >= len(b) || b[i] != ':' && b[i] != '=' {
		return false
	}
	skip(func(c byte) bool {
		return c == ':' || c == '=' || c == '>' || c == '"' || c == '\'' || c == '\\' || c == ' ' || c == '\t'
	})
	start := i
	skip(isKeyByte)
	return i-start >= 16
}

// mixed holds for a token with both letters and digits: "Bearer authentication" is prose.
func mixed(b []byte) bool {
	var letter, digit bool
	for _, c := range b {
		switch {
		case c >= '0' && c <= '9':
			digit = true
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			letter = true
		}
	}
	return letter && digit
}

// minEntropy is the Shannon entropy (bits per character) below which a value assigned to a
// *_KEY-like name is taken for a word or an identifier: "cache_read_tokens_total" is 3.4,
// a random 20-character base62 key is above 4.
const minEntropy = 3.5

// highEntropy holds for values that look generated: letters and digits mixed, and spread
// over many different characters.
func highEntropy(b []byte) bool {
	return mixed(b) && entropy(b) >= minEntropy
}

func entropy(b []byte) float64 {
	var counts [256]int
	for _, c := range b {
		counts[c]++
	}
	h := 0.0
	n := float64(len(b))
	for _, c := range counts {
		if c > 0 {
			p := float64(c) / n
			h -= p * math.Log2(p)
		}
	}
	return h
}
