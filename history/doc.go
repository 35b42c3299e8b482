// Package history owns git-ralph's bookkeeping under .ralph/ (everything there but the config).
package history
