// Command layers fails when a package of the module imports against the layering (docs/design/architecture.md).
package main
