// Package gitsnap takes and restores checkpoints: snapshots of the working tree (quick, in process, where it can), the diffs between them, restoring one (rollback) and the bundles that carry one elsewhere.
package gitsnap
