package agentcli

import "github.com/git-ralph/git-ralph/lazyregexp"

// fatalHints say how to fix a fatal error whose message does not say it, or says it in
// a way that does not fit an unattended loop.
var fatalHints = []struct {
	rule *lazyregexp.Regexp
	hint string
}{
	{lazyregexp.New(`cannot be used with root/sudo privileges`),
		"claude refuses --dangerously-skip-permissions as root: run the loop as another user, " +
			"or, in a container or VM where the agent may do anything, set IS_SANDBOX=1 in the loop's environment"},
	{lazyregexp.New(`(?i)API_KEY_INVALID|API key not valid|\bUNAUTHENTICATED\b|invalid authentication credentials`),
		"the API refused the agent's credentials: check the key it uses (GEMINI_API_KEY for gemini) " +
			"or log in again by running the agent by hand"},
	{lazyregexp.New(`(?i)not logged in|please run /login`),
		"log in by running the agent by hand once (claude: /login), or give it an API key"},
}

// hint is how to fix the fatal error msg, "" when there is nothing to add.
func hint(msg string) string {
	if msg == "" {
		return ""
	}
	for _, h := range fatalHints {
		if h.rule.MatchString(msg) {
			return h.hint
		}
	}
	return ""
}
