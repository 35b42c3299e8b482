package agent

import (
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// liveMembers lists the running processes of session sid. Zombies do not count: they
// hold no pipes and wait for a parent (often PID 1, which in containers may never reap
// them) to collect their status.
//
// Every process on the machine is asked its session with getsid, one system call that
// reads nothing; only the session's own have their /proc/PID/stat read. Reading every
// process's stat (opening, formatting, closing a file each) cost 2–3 ms with a hundred
// processes, after every agent and validate command, and grew with the machine's load.
func liveMembers(sid int) ([]member, bool) {
	names, err := procEntries()
	if err != nil {
		return nil, false
	}
	var members []member
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil {
			continue
		}
		if !maybeOf(pid, sid) {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue // gone between ReadDir and ReadFile
		}
		stat, ok := parseStat(data)
		if ok && stat.session == sid && stat.state != 'Z' && stat.state != 'X' {
			members = append(members, member{pid: pid, pgrp: stat.pgrp})
		}
	}
	return members, true
}

// maybeOf reports whether process pid may be of session sid, as getsid tells: false when
// it is of another session or gone since /proc was listed, true when getsid cannot say
// (a seccomp filter that forbids it: then /proc/PID/stat says).
func maybeOf(pid, sid int) bool {
	got, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	switch errno {
	case 0:
		return int(got) == sid
	case syscall.ESRCH:
		return false
	}
	return true
}

// procEntries lists the names in /proc, unsorted.
func procEntries() ([]string, error) {
	dir, err := os.Open("/proc")
	if err != nil {
		return nil, err
	}
	defer dir.Close()
	return dir.Readdirnames(-1)
}

// sessionsOfRun lists the sessions holding a running process whose environment has the
// entry marker (RALPH_RUN=…). Processes of other users cannot be read and are skipped:
// they cannot be ours.
//
// It runs after every agent, validate and judge command, over every process on the
// machine, so each is first asked its session with getsid, one system call that reads
// nothing: a session already found, git-ralph's own and the kernel's are passed over
// without opening a file. The rest have their environment read, with plain system calls
// into one buffer (os.ReadFile costs a stat and the poller's calls besides), and only a
// process that has the marker has its /proc/PID/stat read, to leave out a zombie.
// Reading every process's stat and then the environment of many cost 2–3 ms with a
// hundred processes.
func sessionsOfRun(marker string) []int {
	names, err := procEntries()
	if err != nil {
		return nil
	}
	self := os.Getpid()
	seen := map[int]bool{ownSession(): true} // never our own, whatever its environment
	buf := make([]byte, 16<<10)
	var sessions []int
	for _, name := range names {
		pid, err := strconv.Atoi(name)
		if err != nil || pid == self {
			continue
		}
		sid, known := sessionOf(pid)
		if known && (seen[sid] || sid <= 1) {
			continue
		}
		var ok bool
		if buf, ok = hasEnv(pid, marker, buf); !ok {
			continue
		}
		data, err := os.ReadFile("/proc/" + name + "/stat")
		if err != nil {
			continue
		}
		stat, ok := parseStat(data)
		if !ok || stat.state == 'Z' || stat.state == 'X' || seen[stat.session] || stat.session <= 1 {
			continue
		}
		seen[stat.session] = true
		sessions = append(sessions, stat.session)
	}
	return sessions
}

// sessionOf asks the kernel process pid's session; known is false when it cannot say
// (the process is gone, or a seccomp filter forbids getsid).
func sessionOf(pid int) (sid int, known bool) {
	got, _, errno := syscall.RawSyscall(syscall.SYS_GETSID, uintptr(pid), 0, 0)
	if errno == syscall.ESRCH {
		return 0, true // gone: a session of none, passed over like the kernel's
	}
	return int(got), errno == 0
}

// ownSession is the session git-ralph itself runs in, or 0 when it cannot be read.
func ownSession() int {
	data, err := os.ReadFile("/proc/self/stat")
	if err != nil {
		return 0
	}
	stat, _ := parseStat(data)
	return stat.session
}

// hasEnv reports whether process pid has the environment entry marker, reading its
// environment into buf, which it returns (grown if need be) for the next call.
func hasEnv(pid int, marker string, buf []byte) ([]byte, bool) {
	env, err := readProcFile("/proc/"+strconv.Itoa(pid)+"/environ", buf)
	if err != nil {
		return buf, false
	}
	found := false
	for entry := range bytes.SplitSeq(env, []byte{0}) {
		if string(entry) == marker {
			found = true
			break
		}
	}
	return env[:0], found
}

// readProcFile reads the whole of a /proc file into buf (grown as needed) with plain
// open, read and close.
func readProcFile(path string, buf []byte) ([]byte, error) {
	fd, err := syscall.Open(path, syscall.O_RDONLY|syscall.O_CLOEXEC, 0)
	if err != nil {
		return buf, err
	}
	defer syscall.Close(fd)
	buf = buf[:0]
	for {
		if len(buf) == cap(buf) {
			buf = append(buf, 0)[:len(buf)]
		}
		n, err := syscall.Read(fd, buf[len(buf):cap(buf)])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return buf, err
		}
		if n == 0 {
			return buf, nil
		}
		buf = buf[:len(buf)+n]
	}
}

// isLoop reports whether pid is a running git-ralph: its program is git-ralph's own, or
// it was started under a name beginning with git-ralph. A pid reused by another program
// is not a loop.
func isLoop(pid int) bool {
	if pid <= 1 {
		return false
	}
	dir := "/proc/" + strconv.Itoa(pid)
	data, err := os.ReadFile(dir + "/stat")
	if err != nil {
		return false
	}
	if stat, ok := parseStat(data); !ok || stat.state == 'Z' || stat.state == 'X' {
		return false
	}
	exe, err1 := os.Readlink(dir + "/exe")
	self, err2 := os.Readlink("/proc/self/exe")
	if err1 == nil && err2 == nil && exe == self {
		return true
	}
	cmdline, _ := os.ReadFile(dir + "/cmdline")
	argv0, _, _ := bytes.Cut(cmdline, []byte{0})
	return strings.HasPrefix(filepath.Base(string(argv0)), "git-ralph")
}

// supervised reports whether session sid's leader is still the child of a running
// git-ralph: then the agent is not left over, whatever the state file says.
func supervised(sid int) bool {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(sid) + "/stat")
	if err != nil {
		return false
	}
	stat, ok := parseStat(data)
	return ok && stat.ppid != os.Getpid() && isLoop(stat.ppid)
}

// deathSignal asks the kernel to send SIGTERM to the agent when git-ralph dies, the first
// line of defence: it reaches the agent only, not what the agent started (the watchdog
// stops those).
func deathSignal(attr *syscall.SysProcAttr) { attr.Pdeathsig = syscall.SIGTERM }
