package loop

import (
	"fmt"
	"maps"
	"strings"
	"syscall"

	"github.com/git-ralph/git-ralph/loop/agent"
)

// The promise tags an agent prints to say it is done or blocked. Exact and case-sensitive.
var (
	successTag = "<promise>SUCCESS</promise>"
	failureTag = "<promise>FAILURE</promise>"
)

// Promise is what the agent's output signalled.
type Promise string

const (
	PromiseNone    Promise = ""
	PromiseSuccess Promise = "SUCCESS"
	PromiseFailure Promise = "FAILURE"
	PromiseBoth    Promise = "SUCCESS+FAILURE"
)

// ScanPromise finds the promise tags in the kept output. It reads a string, as the agent's
// report holds it: converting up to max_output_buffer back to bytes would copy it again.
func ScanPromise(output string) Promise {
	success, failure := strings.Contains(output, successTag), strings.Contains(output, failureTag)
	switch {
	case success && failure:
		return PromiseBoth
	case failure:
		return PromiseFailure
	case success:
		return PromiseSuccess
	}
	return PromiseNone
}

// withoutEcho removes the prompt from the agent's output where the agent printed it
// back (some CLIs echo their input): the default prompts quote both tags, and an echo
// must not count as the agent's own word.
func withoutEcho(output, prompt string) string {
	if prompt == "" || !strings.Contains(output, prompt) {
		return output
	}
	return strings.ReplaceAll(output, prompt, "")
}

// Outcome is how one iteration ended.
type Outcome string

const (
	OutcomeSuccess     Outcome = "success"     // the agent worked and exited cleanly; go on
	OutcomeDone        Outcome = "done"        // the agent signalled SUCCESS; stop
	OutcomeFailure     Outcome = "failure"     // counts towards the consecutive-error threshold
	OutcomeInterrupted Outcome = "interrupted" // the user stopped the loop mid-iteration
	// OutcomeHalted: a usage limit the loop will not wait out, or an agent that cannot
	// run at all (not logged in); like an interrupted iteration it does not count, so the
	// run resumes with the same iteration once the limit or the login is fixed.
	OutcomeHalted Outcome = "halted"
	// OutcomeProtected: the iteration changed a protected path (Config.Protect), and its
	// whole change was rolled back; it counts towards the consecutive-error threshold.
	OutcomeProtected Outcome = "protected"
)

// Counts reports whether an iteration that ended so counts as run: interrupted and
// halted ones are run again when the run resumes.
func (o Outcome) Counts() bool { return o != OutcomeInterrupted && o != OutcomeHalted }

// Classify applies the outcome matrix (docs/guide/loops.md, "What one iteration does")
// to an agent's result: FAILURE beats SUCCESS, SUCCESS beats a non-zero exit, and a
// timeout is a failure whatever the output says. It returns the outcome and, for
// anything but a clean success, the reason in words.
func Classify(res agent.Result, promise Promise) (Outcome, string) {
	switch {
	case res.Interrupted:
		return OutcomeInterrupted, "interrupted"
	case res.TimedOut:
		return OutcomeFailure, "timed out"
	case promise == PromiseFailure || promise == PromiseBoth:
		return OutcomeFailure, "agent signalled FAILURE"
	case promise == PromiseSuccess:
		return OutcomeDone, "agent signalled SUCCESS"
	case res.Signal != 0:
		return OutcomeFailure, "killed by " + SignalName(res.Signal)
	case res.ExitCode != 0:
		return OutcomeFailure, exitReason(res.ExitCode)
	}
	return OutcomeSuccess, ""
}

// exitReason names the exit code, and the signal a shell means by 128+N when N is a
// signal that kills programs in practice: a program's own code such as 144 is not
// "signal 16".
func exitReason(code int) string {
	if code > 128 {
		if name, ok := signalNames[syscall.Signal(code-128)]; ok {
			return fmt.Sprintf("exit code %d (%s in the shell's words)", code, name)
		}
	}
	return fmt.Sprintf("exit code %d", code)
}

// signalNames are the conventional names of the signals that end programs; the ones
// only Unix systems define come from a platform file.
var signalNames = func() map[syscall.Signal]string {
	names := map[syscall.Signal]string{
		syscall.SIGHUP: "SIGHUP", syscall.SIGINT: "SIGINT", syscall.SIGQUIT: "SIGQUIT",
		syscall.SIGILL: "SIGILL", syscall.SIGABRT: "SIGABRT", syscall.SIGBUS: "SIGBUS",
		syscall.SIGFPE: "SIGFPE", syscall.SIGKILL: "SIGKILL", syscall.SIGSEGV: "SIGSEGV",
		syscall.SIGPIPE: "SIGPIPE", syscall.SIGALRM: "SIGALRM", syscall.SIGTERM: "SIGTERM",
	}
	maps.Copy(names, unixSignalNames)
	return names
}()

// SignalName is the conventional name of sig, such as SIGKILL.
func SignalName(sig syscall.Signal) string {
	if name, ok := signalNames[sig]; ok {
		return name
	}
	return fmt.Sprintf("signal %d", int(sig))
}
