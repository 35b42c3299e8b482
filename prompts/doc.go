// Package prompts finds a mode's prompt file and assembles the text an agent receives.
package prompts
