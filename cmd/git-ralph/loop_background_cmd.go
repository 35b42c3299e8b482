package main

import (
	"context"
	"os"
)

// background starts the loop (or the best-of) as a detached child of the same command
// line, once this process has checked what the start would check.
func (c *LoopCmd) background(ctx context.Context, s Streams, in *interrupts) error {
	return c.loop(s, in).Background(ctx, os.Args[1:])
}
