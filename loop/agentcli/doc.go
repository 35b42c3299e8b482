// Package agentcli knows the agent CLIs git-ralph can drive: how to start each one
// headless (its Preset), and how to read what one run printed (its Report): the agent's
// own words, a usage or rate limit and when it resets, a transient or fatal error, and
// the tokens and cost it reported.
package agentcli
