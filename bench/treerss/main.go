//go:build linux

// Command treerss runs a command and samples the memory of its whole process tree while it
// runs, for bench/apiloops.sh: how much a set of loops and their agents hold at once,
// which the peak of wait4 (bench/peakrss) cannot say, being the largest single process.
//
//	treerss [-o FILE] [-every 250ms] [-agent NAME] COMMAND [ARG...]
//
// Every interval it walks /proc for the command's descendants and reads each one's VmRSS
// (/proc/PID/status) and Pss (/proc/PID/smaps_rollup: the resident pages, shared ones
// divided among the processes sharing them, so that a sum of Pss does not count
// git-ralph's code fifty times). Each process falls in one of three groups:
//
//   - loop: a process named git-ralph;
//   - agent: a process named NAME (-agent), or any process below one;
//   - other: the rest (git commands, the bash tool's commands), short-lived.
//
// When the command exits, treerss writes one line of key=value fields to FILE (appending)
// or to stderr, and exits with the command's exit code:
//
//	samples=N total_rss=KIB loop_rss=KIB loop_n=N loop_pss=KIB agent_rss=KIB agent_n=N
//	agent_pss=KIB own_rss=KIB own_pss=KIB one_loop_rss=KIB
//
// Each is the peak over the samples: total_rss of every process; loop_rss of the loop
// group (loop_n processes in that sample); agent_rss likewise; own_rss of loop and agent
// together in one sample (what the loops hold, without the passing git commands); the
// _pss fields the same sums of Pss; one_loop_rss the largest single git-ralph seen.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// proc is one process of a sample.
type proc struct {
	pid, ppid int
	comm      string
}

// sums is one sample's figures, in KiB.
type sums struct {
	total, loop, agent, loopPss, agentPss int64
	loopN, agentN                         int
	oneLoop                               int64
}

// peaks is the largest of each figure over the samples.
type peaks struct {
	samples                         int
	total, loop, agent, own, ownPss int64
	loopPss, agentPss, oneLoop      int64
	loopN, agentN                   int
}

func (p *peaks) add(s sums) {
	p.samples++
	p.total = max(p.total, s.total)
	if s.loop > p.loop {
		p.loop, p.loopN = s.loop, s.loopN
	}
	if s.agent > p.agent {
		p.agent, p.agentN = s.agent, s.agentN
	}
	p.own = max(p.own, s.loop+s.agent)
	p.ownPss = max(p.ownPss, s.loopPss+s.agentPss)
	p.loopPss = max(p.loopPss, s.loopPss)
	p.agentPss = max(p.agentPss, s.agentPss)
	p.oneLoop = max(p.oneLoop, s.oneLoop)
}

func (p *peaks) String() string {
	return fmt.Sprintf("samples=%d total_rss=%d loop_rss=%d loop_n=%d loop_pss=%d agent_rss=%d agent_n=%d agent_pss=%d own_rss=%d own_pss=%d one_loop_rss=%d\n",
		p.samples, p.total, p.loop, p.loopN, p.loopPss, p.agent, p.agentN, p.agentPss, p.own, p.ownPss, p.oneLoop)
}

func main() {
	out := flag.String("o", "", "append the figures to `FILE` instead of writing them to stderr")
	every := flag.Duration("every", 250*time.Millisecond, "sample every `INTERVAL`")
	agent := flag.String("agent", "", "the agent's process `NAME` (its comm)")
	flag.Usage = func() {
		fmt.Fprintln(os.Stderr, "usage: treerss [-o FILE] [-every 250ms] [-agent NAME] COMMAND [ARG...]")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() == 0 {
		flag.Usage()
		os.Exit(2)
	}
	cmd := exec.Command(flag.Arg(0), flag.Args()[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = os.Stdin, os.Stdout, os.Stderr
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "treerss:", err)
		os.Exit(127)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	var p peaks
	tick := time.NewTicker(*every)
	defer tick.Stop()
wait:
	for {
		select {
		case <-done:
			break wait
		case <-tick.C:
			p.add(sample(cmd.Process.Pid, *agent))
		}
	}
	if err := report(*out, p.String()); err != nil {
		fmt.Fprintln(os.Stderr, "treerss:", err)
		os.Exit(125)
	}
	code := cmd.ProcessState.ExitCode()
	if code < 0 {
		code = 1
	}
	os.Exit(code)
}

// sample sums the memory of root's descendants (root itself, the shell that starts the
// loops, is not one of them).
func sample(root int, agent string) sums {
	children := map[int][]proc{}
	for _, pr := range processes() {
		children[pr.ppid] = append(children[pr.ppid], pr)
	}
	var s sums
	var walk func(pid int, underAgent bool)
	walk = func(pid int, underAgent bool) {
		for _, c := range children[pid] {
			rss, pss := memory(c.pid)
			isAgent := underAgent || (agent != "" && c.comm == agent)
			switch {
			case c.comm == "git-ralph" && !underAgent:
				s.loop += rss
				s.loopPss += pss
				s.loopN++
				s.oneLoop = max(s.oneLoop, rss)
			case isAgent:
				s.agent += rss
				s.agentPss += pss
				s.agentN++
			}
			s.total += rss
			walk(c.pid, isAgent)
		}
	}
	walk(root, false)
	return s
}

// processes lists every process of the system with its parent and name.
func processes() []proc {
	dirs, _ := filepath.Glob("/proc/[0-9]*/stat")
	var list []proc
	for _, stat := range dirs {
		b, err := os.ReadFile(stat)
		if err != nil {
			continue // ended meanwhile
		}
		// pid (comm) state ppid ...: comm may hold spaces and parentheses, so cut at the last ')'
		open, end := bytes.IndexByte(b, '('), bytes.LastIndexByte(b, ')')
		if open < 0 || end < open {
			continue
		}
		pid, _ := strconv.Atoi(strings.TrimSpace(string(b[:open])))
		fields := strings.Fields(string(b[end+1:]))
		if len(fields) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(fields[1])
		list = append(list, proc{pid: pid, ppid: ppid, comm: string(b[open+1 : end])})
	}
	return list
}

// memory reads a process's VmRSS and Pss in KiB; 0 for what it cannot read (a process that
// ended, a kernel without smaps_rollup).
func memory(pid int) (rss, pss int64) {
	dir := "/proc/" + strconv.Itoa(pid)
	return field(dir+"/status", "VmRSS:"), field(dir+"/smaps_rollup", "Pss:")
}

// field reads the KiB of the line starting with name.
func field(path, name string) int64 {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if rest, ok := strings.CutPrefix(sc.Text(), name); ok {
			fields := strings.Fields(rest)
			if len(fields) > 0 {
				n, _ := strconv.ParseInt(fields[0], 10, 64)
				return n
			}
		}
	}
	return 0
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
