package main

// allowed is the layering of docs/design/architecture.md as a table: the imports of the module's
// own packages that each package may have. Imports go down only: cmd/git-ralph → loop and
// the loop/… packages → idle, history, prompts, gitops. A row "x/..." covers x's
// sub-packages that have no row of their own; an entry "x/..." allows all of x's
// sub-packages (and not x). Standard library and third-party imports are not checked. A
// package with no row fails: give a new package its row here and in docs/design/architecture.md,
// whose last column `go run ./.ci/layers -write-doc` writes from this table (docmap.go).
var allowed = []struct{ pkg, mayImport string }{
	// the front door: commands, wiring, output; its sub-packages hold the capabilities that
	// are not commands (config, trust, schedules, git hooks, reporting, help) and may use
	// each other (Go refuses a cycle), never the command package
	{"cmd/git-ralph", "cmd/git-ralph/... loop loop/... idle history history/... prompts prompts/... gitops gitops/... units fielderr lazyregexp internal/testio gitops/gittest"},
	{"cmd/git-ralph/...", "cmd/git-ralph/... loop loop/... idle history history/... prompts prompts/... gitops gitops/... units fielderr lazyregexp internal/testio gitops/gittest"},
	// notifications hear a loop's events and say them elsewhere: the words, never git or state
	{"cmd/git-ralph/notify", "cmd/git-ralph/config cmd/git-ralph/display loop history/redact"},
	// doctor's checks read what the other sub-packages and the bottom layer keep; they
	// change nothing
	{"cmd/git-ralph/doctor", "cmd/git-ralph/agentcheck cmd/git-ralph/display cmd/git-ralph/schedule cmd/git-ralph/status cmd/git-ralph/trust loop/fleet loop/mergequeue history gitops gitops/gitwt"},
	// the terminal view shows what it is handed and renders the live log; the commands steer
	{"cmd/git-ralph/watch", "cmd/git-ralph/display cmd/git-ralph/livelog loop/agentcli prompts/repofile"},
	// starting loops: the settings resolved into a loop.Config with its reporters, hooks and
	// notifications, in this tree, a worktree or a replay, and the child loops of best-of
	// and workflows; it uses the capabilities below it, never the views or the other
	// commands' packages (the command package hands it the trust prompts and merges)
	{"cmd/git-ralph/launch", "cmd/git-ralph/agentcheck cmd/git-ralph/config cmd/git-ralph/display cmd/git-ralph/eventhooks cmd/git-ralph/exitcode cmd/git-ralph/hints cmd/git-ralph/notify cmd/git-ralph/reporting cmd/git-ralph/scaffold cmd/git-ralph/schedule cmd/git-ralph/trust loop loop/... history history/... prompts prompts/... gitops gitops/..."},
	// the views' reader of a running iteration's output log, rendered for people
	{"cmd/git-ralph/livelog", "loop/agentcli prompts/repofile"},
	// the web dashboard renders what the command hands it (runs' loops, records, diffs,
	// where the live log is) and streams the live log as watch shows it; the best-of
	// rankings as fleet keeps and words them
	{"cmd/git-ralph/serve", "cmd/git-ralph/display cmd/git-ralph/livelog cmd/git-ralph/status history loop/agentcli loop/fleet internal/testio"},

	// beside loop: what spans several loops (fleet, the merge queue, workflows); their loops
	// are child git-ralph processes, so none of them imports loop; fleet (loops in worktrees
	// of their own) needs only the bookkeeping and git
	{"loop/fleet", "history gitops gitops/gitsnap gitops/gitwt gitops/gittest prompts/repofile lazyregexp"},
	// the merge queue: worktree loops' branches built, validated and landed one at a time
	{"loop/mergequeue", "loop/fleet loop/agent history history/redact gitops gitops/gitmerge gitops/gitwt gitops/gittest"},
	// workflows: stages (each a loop the command runs) in order, their state and artifacts;
	// worktree stages run at once through fleet
	{"loop/workflow", "loop/fleet history prompts/repofile fielderr lazyregexp"},
	{"loop/...", "loop loop/agent loop/agentcli loop/agentcli/... idle history history/... prompts prompts/... gitops gitops/... lazyregexp"},
	// one loop: the iteration cycle
	{"loop", "loop/agent loop/agentcli loop/apiagent loop/recording loop/testreport idle history history/ledger history/redact prompts gitops gitops/... units lazyregexp gitops/gittest"},
	// below loop: one agent process, the presets and their readers, the demo's agent
	{"loop/agent", "history/redact internal/testio"},
	{"loop/agentcli", "loop/agent loop/agentcli/... units lazyregexp"},
	{"loop/agentcli/...", ""},
	// an agent without a CLI: git-ralph talks to the model's API itself; its bash tool runs
	// as loop/agent runs an agent (a process group, leftovers stopped), its result reads as
	// loop/agentcli's Report
	{"loop/apiagent", "loop/agent loop/agentcli lazyregexp gitops/gittest"},
	// the test results a test command printed (go test -json, JUnit XML, TAP): a leaf
	{"loop/testreport", ""},
	{"loop/demoagent", "gitops gitops/gittest prompts/repofile lazyregexp"},
	// record and replay: the agent's runs kept in a directory, and played back as the agent
	{"loop/recording", "gitops gitops/gitsnap gitops/gitmerge gitops/gittest history/redact lazyregexp"},

	// the bottom layer: idle, history, prompts and gitops never import loop or cmd
	{"idle", "gitops"}, // Checkpoint values only: idle never runs git (idle/boundary_test.go)
	{"history", "history/redact prompts/repofile"},
	{"history/...", "lazyregexp"},
	{"prompts", "prompts/repofile lazyregexp"},
	// loop templates: a prompt with a place for the task, and its settings; above prompts
	{"prompts/templates", "prompts prompts/repofile fielderr lazyregexp"},
	// the safe reader of files a repository names: a leaf, also used by history and cmd
	{"prompts/...", ""},
	// gitops: the core (the runner, root, identity, refs and commits, the Checkpoint value)
	// and its parts beside each other over it; only these packages run git or use go-git
	{"gitops", "lazyregexp gitops/internal/gitstore gitops/gittest"},
	// the parts: snapshots, worktrees, merges, notes, pushes. A part's tests may use a part
	// beside it to set a repository up (a worktree for a merge, a clean tree after one)
	{"gitops/gitsnap", "gitops gitops/internal/gitstore gitops/gittest"},
	{"gitops/gitwt", "gitops gitops/internal/gitstore gitops/gittest gitops/gitsnap lazyregexp"},
	{"gitops/gitmerge", "gitops gitops/internal/gitstore gitops/gittest gitops/gitsnap gitops/gitwt"},
	{"gitops/gitnotes", "gitops gitops/gitpush gitops/internal/gitstore gitops/gittest"},
	{"gitops/gitpush", "gitops gitops/gittest"},
	// what the parts share without running git: small files, config, go-git's tree writes
	{"gitops/internal/gitstore", "lazyregexp"},
	// numbers written for people (sizes, dollars, counts): a leaf the commands, the loop's
	// budget messages and the agents' rendering share
	{"units", ""},
	// a bad value in a file ("FILE:LINE: FIELD: what is wrong", a hint) and the "did you
	// mean" for a misspelt name: a leaf the config, the workflows and the templates share
	{"fielderr", ""},
	// regexps of package-level variables compiled on first use, not as every command
	// starts: a leaf any package may use
	{"lazyregexp", ""},
	{"gitops/...", ""},
	// tests only: the hermetic git environment and small repositories of the packages' tests
	{"gitops/gittest", ""},
	// tests only: a buffer goroutines may share and a pseudo-terminal, for any package's tests
	{"internal/testio", ""},

	// measuring tools, not shipped
	{"bench/...", "history"},
	// the maintainers' scripts: programs of their own, run from scripts/*.sh
	{"scripts/...", ""},
	// tests of the real agent CLIs: they run the built binary, never import it
	{"realagents", ""},
	// the documentation; its tests check the links between the pages
	{"docs", ""},
}
