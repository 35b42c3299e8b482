// Package units writes numbers for people — byte sizes, US dollars, counts with thousands
// separators — one way for the whole tool: a leaf that the commands' display, the loop's
// budget messages and the agents' live rendering share.
package units
