// Command layers fails when a package of the module imports against the layering, or when the
// package map of docs/design/architecture.md disagrees with it (-write-doc rewrites the map's
// last column).
package main
