// Package loop runs an agent through fresh-context iterations and decides when to stop.
package loop
