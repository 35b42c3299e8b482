//go:build unix

// Command peakrss runs a command and reports its wall time and peak resident set size,
// for bench/capture.sh, which must run where only Go, git and coreutils are installed
// (so neither /usr/bin/time nor awk can be assumed).
//
//	peakrss [-o FILE] COMMAND [ARG...]
//
// The command inherits stdin, stdout and stderr. When it exits, peakrss writes one line,
// "PEAK_KIB WALL_MICROSECONDS CPU_MICROSECONDS", to FILE (appending) or to stderr, and exits with the
// command's exit code (1 if it was killed by a signal). A third field follows on the line:
// the CPU time (user and system) of the command and of the descendants it waited for, in
// microseconds, for bench/merge.sh.
//
// The peak is ru_maxrss as wait4 reports it: on Linux, the largest of the command's own
// peak and those of the descendants it waited for, so a command that runs bigger
// programs than itself reports theirs.
package main

import (
	"flag"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"syscall"
	"time"
)

func main() {
	out := flag.String("o", "", "append the figures to `FILE` instead of writing them to stderr")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: peakrss [-o FILE] COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	started := time.Now()
	err := cmd.Run()
	wall := time.Since(started)
	if cmd.ProcessState == nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(127)
	}
	peak := int64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)
	if runtime.GOOS == "darwin" || runtime.GOOS == "ios" {
		peak /= 1024 // bytes there, KiB elsewhere
	}
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if err := report(*out, fmt.Sprintf("%d %d %d\n", peak, wall.Microseconds(), cpu.Microseconds())); err != nil {
		fmt.Fprintln(os.Stderr, "peakrss:", err)
		os.Exit(125)
	}
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		code = 1
	}
	os.Exit(code)
}

func report(path, line string) error {
	if path == "" {
		_, err := os.Stderr.WriteString(line)
		return err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return err
	}
	if _, err := f.WriteString(line); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
