// Package exitcode is every exit code a command returns, named in one table, and the
// error that carries one out of a command (the command package's report prints it).
package exitcode
