package workflow

import "github.com/git-ralph/git-ralph/fielderr"

// Error is a problem in a workflow file: where it is, which field, what is wrong and how
// to fix it. Error() reads like ".ralph/workflows/ship.toml:7: stages.code.depends_on:
// unknown stage \"plna\"", as the config's errors do.
type Error = fielderr.Error
