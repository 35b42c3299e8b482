// Command layers fails when a package of the module imports against the layering (docs/architecture.md).
package main
