// Package githooks installs git-ralph's pre-push hook and checks what a push carries: no branch mid-iteration, every pushed commit validated.
package githooks
