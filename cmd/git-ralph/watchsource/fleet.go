package watchsource

import (
	"bytes"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/watch"
)

// FleetLoops is runs as the fleet view lists them: in `runs`'s columns.
func FleetLoops(runs []status.Run) (watch.Loops, error) {
	var table bytes.Buffer
	if err := status.RunsTable(&table, runs, time.Now()); err != nil {
		return watch.Loops{}, err
	}
	rows := strings.Split(strings.TrimRight(table.String(), "\n"), "\n")
	loops := watch.Loops{Header: rows[0], Lines: rows[1:]}
	for _, r := range runs {
		loops.Names, loops.States = append(loops.Names, r.Name), append(loops.States, r.State)
	}
	return loops, nil
}
