// Package gitmerge builds merges (without a work tree where git can, else in a scratch worktree) and brings a checked-out tree along when its branch moved.
package gitmerge
