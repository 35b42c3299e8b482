// Package watchsource reads what `git ralph watch` hands its view: one loop's snapshot from its state and its run's records (files only, every tick; a finished iteration's record read once), the line about the work tree's named checkpoints (listed every few seconds), and the repository's loops as the fleet view lists them.
package watchsource
