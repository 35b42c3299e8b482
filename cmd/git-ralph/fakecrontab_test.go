package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// fakeCrontab stands in for crontab(1) in the stories, so that no test ever reads or
// changes the real user's table. The table lives in $FAKE_CRONTAB_FILE, by default
// $HOME/crontab.txt (HOME is the story's own):
//
//	crontab -l   print the table, or "no crontab for USER" on stderr and exit 1
//	crontab -    replace the table with stdin, after the checks the real one makes
func fakeCrontab(args []string) int {
	path := os.Getenv("FAKE_CRONTAB_FILE")
	if path == "" {
		path = filepath.Join(os.Getenv("HOME"), "crontab.txt")
	}
	switch {
	case len(args) == 1 && args[0] == "-l":
		return listCrontab(path)
	case len(args) == 1 && args[0] == "-":
		return installCrontab(path)
	}
	fmt.Fprintln(os.Stderr, "usage: crontab -l | crontab -")
	return 2
}

// listCrontab is crontab -l.
func listCrontab(path string) int {
	table, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		fmt.Fprintf(os.Stderr, "no crontab for %s\n", os.Getenv("LOGNAME"))
		return 1
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "crontab:", err)
		return 1
	}
	os.Stdout.Write(table)
	return 0
}

// installCrontab is crontab -.
func installCrontab(path string) int {
	table, err := io.ReadAll(os.Stdin)
	if err == nil {
		err = checkCrontab(string(table))
	}
	if err == nil {
		err = os.WriteFile(path, table, 0o600)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "crontab: %v\nerrors in crontab file, can't install.\n", err)
		return 1
	}
	return 0
}

// cronEnvLine is a crontab line that sets a variable: NAME = value.
var cronEnvLine = regexp.MustCompile(`^\s*[A-Za-z_][A-Za-z0-9_]*\s*=`)

// checkCrontab refuses what cron refuses: a last line without its newline, and a job
// line without a schedule and a command.
func checkCrontab(table string) error {
	if table != "" && !strings.HasSuffix(table, "\n") {
		return fmt.Errorf("missing newline before EOF")
	}
	for i, line := range strings.Split(strings.TrimSuffix(table, "\n"), "\n") {
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") || cronEnvLine.MatchString(line) {
			continue
		}
		fields := strings.Fields(line)
		need := 6
		if strings.HasPrefix(fields[0], "@") {
			need = 2
		}
		if len(fields) < need {
			return fmt.Errorf("line %d: a job needs a schedule and a command: %q", i+1, line)
		}
	}
	return nil
}
