// Package reporting turns the loop's events into what people and programs read: progress and status lines, the JSON stream, the event log, and reading that log back.
package reporting
