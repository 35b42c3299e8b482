package gitops

// Checkpoint is the state of a repository at one moment: the commit HEAD points to ("" on an
// unborn branch) and a tree object holding the whole working tree, uncommitted and untracked
// (but not ignored) files included. Equal trees mean equal working-tree contents. gitsnap
// takes and restores them; the value is the core's, for idle and every part to pass around.
type Checkpoint struct {
	Head string
	Tree string
}
