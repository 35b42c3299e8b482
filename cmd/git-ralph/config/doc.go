// Package config resolves git ralph's settings from built-in defaults, the user's and the
// repository's config files, the environment and flags, remembering where each value
// came from.
//
// Precedence, highest first:
//
//	flag > env RALPH_<KEY> > repo [modes.M] > repo top level > user [modes.M] > user top level > default
//
// The user file is $XDG_CONFIG_HOME/git-ralph/config.toml (default
// ~/.config/git-ralph/config.toml); the repository file is .ralph/config.toml. A missing
// file is an empty layer. Within a file, the [modes.M] section of the selected mode M
// overrides that file's top-level keys. The mode itself is resolved first, from the
// --mode flag, RALPH_MODE and the files' top-level mode keys (mode can't appear in a
// mode section), and defaults to "build".
//
// max_iterations and unlimited are one setting: the higher tier wins, max_iterations
// wins a tie, and unlimited = false brings back a lower tier's limit (SPEC: --max >
// --unlimited > mode setting > top level setting > 5).
//
// The settings that bound what a loop spends or keeps (Bounded: the budgets, the iteration
// limit, the timeouts, the stop conditions, the history's retention) are the exception to
// this order. There the repository's settings — its file's, and those a workflow file
// gives its stage's loop (Sources.Workflow, over the repository's file) — may tighten the
// user's file but not loosen it: a looser value is named in a warning and the user's
// applies; the repository's unlimited = true over the user's limit is an error
// (Config.LiftedLimit) that the commands starting a loop return. Flags and variables, the
// user's own, decide over both.
//
// git ralph sets RALPH_MODE and RALPH_MAX_ITERATIONS for the agents it runs; when RALPH_RUN
// is set we run inside such an agent, and those two variables describe the outer loop,
// so they are ignored. An empty variable counts as unset.
//
// Every problem in any source is reported as one *Error naming the file and line (or the
// variable or flag) and the field, with a hint to fix it.
package config
