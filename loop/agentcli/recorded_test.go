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

// readEachRecording reads each of files, the rows of a CLI's table in order, from
// testdata/recorded/CLI with the preset's reader and the exit code exits.txt gives it,
// and hands each subtest its row's index and the report; the table and exits.txt must
// name the same number of recordings.
func readEachRecording(t *testing.T, cli string, files []string, each func(t *testing.T, row int, got Report)) {
	t.Helper()
	dir := filepath.Join("testdata", "recorded", cli)
	exits := recordedExits(t, dir)
	if len(exits) != len(files) {
		t.Errorf("%s/exits.txt has %d recordings, the table %d", dir, len(exits), len(files))
	}
	for row, file := range files {
		t.Run(strings.TrimSuffix(file, ".out"), func(t *testing.T) {
			output, err := os.ReadFile(filepath.Join(dir, file))
			if err != nil {
				t.Fatal(err)
			}
			exit, ok := exits[file]
			if !ok {
				t.Fatalf("%s/exits.txt has no exit code for %s", dir, file)
			}
			each(t, row, read(t, cli, output, exit))
		})
	}
}
