// Package redact replaces well-known secret formats (API keys, tokens, private key blocks,
// high-entropy values assigned to names like *_KEY) in the text git-ralph writes itself.
package redact
