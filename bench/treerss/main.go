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
//   - loop: a process named git-ralph, but its watchdog;
//   - watchdog: a git-ralph run as `git-ralph __watchdog …`, the process a loop starts
//     beside its agents to stop them should the loop die (loop/agent/watchdog.go);
//   - agent: a process named NAME (-agent), or any process below one;
//   - other: the rest (git commands, the bash tool's commands), short-lived.
//
// A Ctrl+C does not stop treerss: it waits for the command, which the terminal's Ctrl+C
// reaches as well. When the command exits, treerss writes one line of key=value fields to FILE (appending)
// or to stderr, and exits with the command's exit code:
//
//	samples=N total_rss=KIB loop_rss=KIB loop_n=N loop_pss=KIB watchdog_rss=KIB
//	watchdog_n=N watchdog_pss=KIB agent_rss=KIB agent_n=N agent_pss=KIB own_rss=KIB
//	own_pss=KIB own_anon=KIB one_loop_rss=KIB one_loop_anon=KIB one_watchdog_rss=KIB
//	one_watchdog_anon=KIB cpu_ms=MS
//
// Each is the peak over the samples: total_rss of every process; loop_rss of the loop
// group (loop_n processes in that sample); watchdog_rss and agent_rss likewise; own_rss
// of the loop, watchdog and agent groups together in one sample (what the loops hold,
// without the passing git commands); the _pss fields the same sums of Pss, own_anon of
// RssAnon (the memory no other process shares); one_loop_rss and one_watchdog_rss the
// largest single process of the group seen, and the _anon fields its RssAnon then.
// cpu_ms is the CPU time (user and system) of the command and of the descendants it
// waited for, which for a shell that waits for its loops is every loop's and all they ran.
package main

import (
	"bufio"
	"bytes"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
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

// group is one group's figures in a sample, in KiB: the sums of RSS and Pss, the
// processes, the largest RSS of one.
type group struct {
	rss, pss, anon, one, oneAnon int64
	n                            int
}

func (g *group) add(m mem) {
	g.rss += m.rss
	g.pss += m.pss
	g.anon += m.anon
	if m.rss > g.one {
		g.one, g.oneAnon = m.rss, m.anon
	}
	g.n++
}

// peak keeps, of each sample's group, the largest sums (with the processes of the sample
// of the largest RSS) and the largest single process.
func (g *group) peak(s group) {
	if s.rss > g.rss {
		g.rss, g.n = s.rss, s.n
	}
	g.pss = max(g.pss, s.pss)
	g.anon = max(g.anon, s.anon)
	if s.one > g.one {
		g.one, g.oneAnon = s.one, s.oneAnon
	}
}

// sums is one sample's figures.
type sums struct {
	total                 int64
	loop, watchdog, agent group
}

// peaks is the largest of each figure over the samples.
type peaks struct {
	samples               int
	total, own, ownPss    int64
	ownAnon               int64
	loop, watchdog, agent group
}

func (p *peaks) add(s sums) {
	p.samples++
	p.total = max(p.total, s.total)
	p.loop.peak(s.loop)
	p.watchdog.peak(s.watchdog)
	p.agent.peak(s.agent)
	p.own = max(p.own, s.loop.rss+s.watchdog.rss+s.agent.rss)
	p.ownPss = max(p.ownPss, s.loop.pss+s.watchdog.pss+s.agent.pss)
	p.ownAnon = max(p.ownAnon, s.loop.anon+s.watchdog.anon+s.agent.anon)
}

func (p *peaks) String() string {
	return fmt.Sprintf("samples=%d total_rss=%d loop_rss=%d loop_n=%d loop_pss=%d watchdog_rss=%d watchdog_n=%d watchdog_pss=%d "+
		"agent_rss=%d agent_n=%d agent_pss=%d own_rss=%d own_pss=%d own_anon=%d one_loop_rss=%d one_loop_anon=%d one_watchdog_rss=%d one_watchdog_anon=%d",
		p.samples, p.total, p.loop.rss, p.loop.n, p.loop.pss, p.watchdog.rss, p.watchdog.n, p.watchdog.pss,
		p.agent.rss, p.agent.n, p.agent.pss, p.own, p.ownPss, p.ownAnon, p.loop.one, p.loop.oneAnon, p.watchdog.one, p.watchdog.oneAnon)
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
	// A Ctrl+C reaches the command's processes from the terminal: treerss waits for them
	// to end, so that whatever runs after it (the script's cleanup) runs after them.
	signal.Ignore(os.Interrupt)
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
	cpu := cmd.ProcessState.UserTime() + cmd.ProcessState.SystemTime()
	if err := report(*out, fmt.Sprintf("%s cpu_ms=%d\n", p.String(), cpu.Milliseconds())); err != nil {
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
			m := memory(c.pid)
			isAgent := underAgent || (agent != "" && c.comm == agent)
			switch {
			case c.comm == "git-ralph" && !underAgent && isWatchdog(c.pid):
				s.watchdog.add(m)
			case c.comm == "git-ralph" && !underAgent:
				s.loop.add(m)
			case isAgent:
				s.agent.add(m)
			}
			s.total += m.rss
			walk(c.pid, isAgent)
		}
	}
	walk(root, false)
	return s
}

// isWatchdog reports whether pid's first argument is git-ralph's watchdog's.
func isWatchdog(pid int) bool {
	b, _ := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	args := bytes.Split(b, []byte{0})
	return len(args) > 1 && string(args[1]) == "__watchdog"
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

// mem is a process's memory in KiB: its VmRSS, its RssAnon (the part no other process
// can share: heap and stacks, not the program's code) and its Pss.
type mem struct{ rss, anon, pss int64 }

// memory reads a process's memory; 0 for what it cannot read (a process that ended, a
// kernel without smaps_rollup).
func memory(pid int) mem {
	dir := "/proc/" + strconv.Itoa(pid)
	return mem{rss: field(dir+"/status", "VmRSS:"), anon: field(dir+"/status", "RssAnon:"),
		pss: field(dir+"/smaps_rollup", "Pss:")}
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
