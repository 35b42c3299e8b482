// Package resettime reads the time at which an agent CLI's usage or rate limit resets,
// from the limit message's text or from a structured epoch value.
package resettime
