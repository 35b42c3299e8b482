package history

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"
)

// helperEnv names the helper a re-executed test binary plays instead of running the tests
// (the os/exec helper-process pattern): the tests need real processes to SIGKILL.
const helperEnv = "HISTORY_TEST_HELPER"

func TestMain(m *testing.M) {
	switch os.Getenv(helperEnv) {
	case "":
		os.Exit(m.Run())
	case "save-states":
		os.Exit(saveStatesForever(os.Getenv("HISTORY_TEST_ROOT")))
	case "hold-lock":
		os.Exit(holdLockForever(os.Getenv("HISTORY_TEST_LOCK")))
	default:
		fmt.Fprintln(os.Stderr, "unknown helper", os.Getenv(helperEnv))
		os.Exit(2)
	}
}

// payload is the last_error the state-saving helper writes with iteration it: its size
// varies from nothing to several pages, so that a torn write would show.
func payload(it int) string {
	size := (it * 7919) % 40_000
	unit := fmt.Sprintf("<%d>", it)
	return strings.Repeat(unit, size/len(unit)+1)[:size]
}

// saveStatesForever continues from the saved state and saves the next iterations as fast as
// it can until it is killed. It says "ready" once it has saved one.
func saveStatesForever(root string) int {
	s, err := LoadState(root)
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper: loading:", err)
		return 3
	}
	for i := 0; ; i++ {
		s.Iteration++
		s.LastError = payload(s.Iteration)
		s.LastIterationAt = time.Now()
		if err := SaveState(root, s); err != nil {
			fmt.Fprintln(os.Stderr, "helper: saving:", err)
			return 3
		}
		if i == 0 {
			fmt.Println("ready")
		}
	}
}

// holdLockForever takes the lock, starts a child that outlives it (to show the child does
// not inherit the lock), prints the child's pid and waits to be killed.
func holdLockForever(path string) int {
	l, err := Acquire(path, ThisProcess(time.Now()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 3
	}
	defer l.Release()
	child := exec.Command("sleep", "60")
	if err := child.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "helper:", err)
		return 3
	}
	fmt.Println(child.Process.Pid)
	time.Sleep(time.Minute)
	return 0
}

// startHelper runs the test binary as helper name with env and returns it with its first
// line of output.
func startHelper(t *testing.T, name string, env ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), append(env, helperEnv+"="+name)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("helper %s said nothing: %v", name, err)
	}
	return cmd, strings.TrimSpace(line)
}
