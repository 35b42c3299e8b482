// Package cancel finds the loop `git ralph cancel` stops (the lock's holder on this host) and explains a failed signal; it stops the agent a dead loop left running, and for `cancel --rollback` waits for the stopped loop's lock and rolls back to the start of its run.
package cancel
