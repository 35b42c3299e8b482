// Package notify tells the user that a loop needs them — it ended, stopped on a limit or an error, or waits for a merge review — on the desktop, with the terminal's bell and through webhooks, never failing or holding up the loop.
package notify
