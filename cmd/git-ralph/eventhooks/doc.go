// Package eventhooks runs the [hooks] commands (on_iteration, on_complete, on_failure, on_limit) on loop events, each with the event's JSON on stdin.
package eventhooks
