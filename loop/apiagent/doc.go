// Package apiagent is an agent without an agent CLI: git-ralph talks to the model's HTTP
// API itself (Anthropic Messages, OpenAI Responses, OpenAI Chat Completions), runs the
// model's tool calls in the work tree, and records the whole exchange as JSON lines.
package apiagent
