// Package status reads what 'git ralph status' reports: the saved state, the holder of the lock, the agent a dead loop left running, and the history's numbers of the iterations it names.
package status
