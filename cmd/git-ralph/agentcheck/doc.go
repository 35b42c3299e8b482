// Package agentcheck finds the program an agent preset or a custom agent command would start, and says what it searched when it is not there.
package agentcheck
