// Command mkhistory fills a repository's .ralph/history with N iteration records, each
// with a small saved diff, for bench/history.sh. It writes through the history package,
// as the loop does, so the files are the real ones.
package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: mkhistory REPO N")
		os.Exit(2)
	}
	n, err := strconv.Atoi(os.Args[2])
	if err != nil || n < 1 {
		fmt.Fprintln(os.Stderr, "mkhistory: N must be a positive number")
		os.Exit(2)
	}
	if err := fill(os.Args[1], n); err != nil {
		fmt.Fprintln(os.Stderr, "mkhistory:", err)
		os.Exit(1)
	}
}

func fill(root string, n int) error {
	store, err := history.OpenStore(root)
	if err != nil {
		return err
	}
	start := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for i := 1; i <= n; i++ {
		num, err := store.Next()
		if err != nil {
			return err
		}
		patch := fmt.Sprintf("diff --git a/f.txt b/f.txt\n--- a/f.txt\n+++ b/f.txt\n@@ -1 +1 @@\n-line %d\n+line %d\n", i-1, i)
		if err := os.WriteFile(store.DiffPath(num), []byte(patch), 0o644); err != nil {
			return err
		}
		at := start.Add(time.Duration(i) * time.Minute)
		rec := history.Record{Iteration: num, Run: "bench", RunIteration: i, Mode: "build", StartedAt: at,
			EndedAt: at.Add(30 * time.Second), DurationMS: 30000, Outcome: "success", FilesChanged: 1,
			Insertions: 1, Deletions: 1, DiffPath: ".ralph/history/" + strconv.Itoa(num) + "/diff.patch"}
		if err := store.Save(rec); err != nil {
			return err
		}
	}
	return nil
}
