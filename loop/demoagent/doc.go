// Package demoagent is the deterministic scripted agent that `git ralph demo` runs against its scratch textkit project.
package demoagent
