package gitsnap

import (
	"bytes"
	"context"
	"strconv"
	"strings"
	"sync"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/internal/gitstore"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// readTrees reads HEAD's trees of the directories that hold a changed path ("" is the top)
// with one `git cat-file --batch`: git reads its packs without loading their whole index,
// as go-git does. A directory HEAD lacks is left out of the map. What a commit's trees hold
// never changes, so the answers for the last HEAD are kept for the next snapshot (an agent
// that leaves its work uncommitted leaves HEAD where it was).
func readTrees(ctx context.Context, dir, head string, changes []*fileChange) (map[string][]object.TreeEntry, error) {
	dirs := map[string]bool{"": true}
	for _, c := range changes {
		for d := parentDir(c.path); d != ""; d = parentDir(d) {
			dirs[d] = true
		}
	}
	trees, missing := headTrees.lookup(head, dirs)
	if len(missing) == 0 {
		return trees, nil
	}
	var request strings.Builder
	for _, d := range missing {
		request.WriteString(head + ":" + d + "\n")
	}
	var out bytes.Buffer
	if err := gitops.GitTo(ctx, dir, nil, strings.NewReader(request.String()), &out, "cat-file", "--batch"); err != nil {
		return nil, err
	}
	read, err := parseBatchTrees(out.Bytes(), missing)
	if err != nil {
		return nil, err
	}
	headTrees.store(head, missing, read)
	for d, entries := range read {
		trees[d] = entries
	}
	return trees, nil
}

// headTrees keeps the trees readTrees read for one commit.
var headTrees treeCache

type treeCache struct {
	mu    sync.Mutex
	head  string
	trees map[string][]object.TreeEntry // nil: HEAD has no such directory
}

// lookup returns the known trees of dirs at head, and the dirs it does not know.
func (c *treeCache) lookup(head string, dirs map[string]bool) (map[string][]object.TreeEntry, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	trees := map[string][]object.TreeEntry{}
	var missing []string
	for d := range dirs {
		entries, known := c.trees[d]
		switch {
		case c.head != head || !known:
			missing = append(missing, d)
		case entries != nil:
			trees[d] = entries
		}
	}
	return trees, missing
}

// store remembers what was read of dirs at head (dirs absent from read do not exist there).
func (c *treeCache) store(head string, dirs []string, read map[string][]object.TreeEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.head != head {
		c.head, c.trees = head, map[string][]object.TreeEntry{}
	}
	for _, d := range dirs {
		c.trees[d] = read[d]
	}
}

// parseBatchTrees reads `git cat-file --batch` answers for names, in order: "<hash> tree
// <size>\n<size bytes>\n", or "<name> missing\n".
func parseBatchTrees(out []byte, names []string) (map[string][]object.TreeEntry, error) {
	trees := map[string][]object.TreeEntry{}
	for _, name := range names {
		header, rest, ok := bytes.Cut(out, []byte{'\n'})
		if !ok {
			return nil, gitstore.ErrNotQuick
		}
		fields := strings.Fields(string(header))
		if len(fields) == 2 && fields[1] == "missing" {
			out = rest
			continue
		}
		size, err := strconv.Atoi(fields[len(fields)-1])
		if len(fields) != 3 || fields[1] != "tree" || err != nil || size+1 > len(rest) {
			return nil, gitstore.ErrNotQuick
		}
		entries, err := parseTree(rest[:size])
		if err != nil {
			return nil, err
		}
		trees[name], out = entries, rest[size+1:]
	}
	return trees, nil
}

// parseTree reads a SHA-1 tree object: "<octal mode> <name>\0<20-byte hash>" per entry.
func parseTree(data []byte) ([]object.TreeEntry, error) {
	var entries []object.TreeEntry
	for len(data) > 0 {
		mode, rest, ok1 := bytes.Cut(data, []byte{' '})
		name, rest, ok2 := bytes.Cut(rest, []byte{0})
		if !ok1 || !ok2 || len(rest) < 20 {
			return nil, gitstore.ErrNotQuick
		}
		m, err := filemode.New(string(mode))
		if err != nil {
			return nil, gitstore.ErrNotQuick
		}
		var hash plumbing.Hash
		copy(hash[:], rest[:20])
		entries = append(entries, object.TreeEntry{Name: string(name), Mode: m, Hash: hash})
		data = rest[20:]
	}
	return entries, nil
}
