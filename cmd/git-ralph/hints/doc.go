// Package hints gives errors advice on how to fix them, which the command prints as git does: "hint: …".
package hints
