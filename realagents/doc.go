// Package realagents drives the real agent CLIs (claude, codex, gemini, opencode, copilot),
// installed from npm at the versions pinned in versions.txt, through `git ralph loop`
// against local mocks of their vendors' model APIs. Everything is in the tests; this
// file only names the package.
package realagents
