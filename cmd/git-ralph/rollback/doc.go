// Package rollback takes a repository back to the checkpoint before an iteration, or undoes a rollback from its backup, keeping whatever it replaces in a backup ref first.
package rollback
