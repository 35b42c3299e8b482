// Package rollback takes a repository back to the checkpoint before an iteration or to a named checkpoint ('git ralph checkpoint LABEL', which it also takes and lists), or undoes a rollback from its backup, keeping whatever it replaces in a backup ref first.
package rollback
