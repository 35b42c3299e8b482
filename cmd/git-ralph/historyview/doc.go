// Package historyview lays out what `git ralph history` shows: the table of the iterations' records, one iteration in full with the prompt its agent was given, and the saved diffs (one iteration's, or a range's between the kept trees), and the saved output of an iteration that `git ralph logs N` prints.
package historyview
