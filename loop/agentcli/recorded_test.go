package agentcli

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// recordedExits reads the exits.txt of a directory of realagents recordings
// (testdata/recorded/CLI): one "FILE EXIT" line per recording, the exit code its attempt
// ended with.
func recordedExits(t *testing.T, dir string) map[string]int {
	t.Helper()
	path := filepath.Join(dir, "exits.txt")
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	exits := map[string]int{}
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		code, err := strconv.Atoi(fields[len(fields)-1])
		if len(fields) != 2 || err != nil {
			t.Fatalf("%s:%d: want 'FILE EXIT', got %q", path, n, sc.Text())
		}
		exits[fields[0]] = code
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return exits
}
