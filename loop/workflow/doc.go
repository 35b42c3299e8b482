// Package workflow runs the stages of a .ralph/workflows/NAME.toml file, each stage a loop of its own, in dependency order, with approval gates, artifact checks and invalidation of the stages built on a stage that runs again.
package workflow
