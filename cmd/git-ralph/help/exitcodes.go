package help

// ExitCode is one exit status of git-ralph, with the one word a program may match on.
type ExitCode struct {
	Code    int    `json:"code"`
	Name    string `json:"name"`
	Meaning string `json:"meaning"`
}

// ExitCodes are the statuses git-ralph exits with, as the man page, `help --json` and
// the README list them. Where the loop's statuses give one, Name is the status of
// run_finished; a test checks the table against the statuses' codes and the commands'
// own exit constants.
var ExitCodes = []ExitCode{
	{0, "success", "success: the agent signalled <promise>SUCCESS</promise>, or the --until command passed (with a judge, after its PASS); any other command did what it was asked"},
	{1, "aborted", "aborted: the consecutive-error threshold was hit; the agent cannot run; a configuration or usage error before any iteration; or an error that stopped the loop or the command; git ralph doctor: a check failed"},
	{2, "max-iters", "max iterations reached"},
	{3, "idle", "idle: --idle-threshold iterations in a row changed nothing in git"},
	{4, "limited", "stopped by a usage limit it would not wait out (the next run resumes)"},
	{5, "budget", "budget reached: max_cost, max_tokens or daily_max_cost"},
	{6, "stagnation", "stagnation: the same attempt repeated"},
	{7, "awaiting-approval", "a workflow waits for approval (git ralph workflow run)"},
	{8, "merge-conflict", "git ralph merge (or loop --merge): the merge conflicts and needs review; the base branch was not moved"},
	{9, "merge-invalid", "git ralph merge (or loop --merge): the merged result fails validation and needs review; the base branch was not moved"},
	{75, "busy", "busy: another loop holds this work tree's lock"},
	{130, "interrupted", "interrupted: SIGINT, SIGTERM, SIGHUP or git ralph cancel"},
	{141, "reader-gone", "what read git-ralph's output went away (git ralph templates | head -1): the status a shell gives a program that SIGPIPE killed"},
}
