// Package gitpush pushes a branch (never forcing) and reads what a push would carry.
package gitpush
