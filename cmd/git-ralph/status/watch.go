package status

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// clearScreen moves the cursor home and clears the terminal, for a full redraw.
const clearScreen = "\x1b[H\x1b[2J"

// Watch is `git ralph status --watch`: it reads the status every tick (files only:
// the lock, the state, the pause request; git only once, to know which loop it is, so
// watching costs the loop nothing) and shows it until the loop ends, then prints the final status, merge state included.
// On a terminal it redraws the screen; elsewhere (a log, a pipe) it prints the status each
// time it changes, the running clock aside. With no loop running it prints the status once.
// Ctrl+C ends the watch, not the loop, and is no error.
func Watch(ctx context.Context, w io.Writer, root, path string, terminal bool, tick time.Duration) error {
	var last []byte
	place := LoopAt(ctx, root) // while it runs: which loop lives in a work tree does not change
	for {
		st, err := Load(ctx, root, path)
		if err != nil {
			return err
		}
		st.Place = place
		if !st.Running {
			// the loop's merge may have just landed or come to need review: the last
			// status says where it stands now
			st.Place = LoopAt(ctx, root)
			switch {
			case last == nil:
			case terminal:
				fmt.Fprint(w, clearScreen)
			default:
				fmt.Fprintln(w)
			}
			if err := Print(w, st, time.Now()); err != nil {
				return err
			}
			PrintMerge(ctx, w, root)
			return nil
		}
		key := changeKey(st)
		switch {
		case terminal:
			var b bytes.Buffer
			b.WriteString(clearScreen)
			if err := Print(&b, st, time.Now()); err != nil {
				return err
			}
			if _, err := w.Write(b.Bytes()); err != nil {
				return err
			}
		case !bytes.Equal(key, last):
			if last != nil {
				fmt.Fprintln(w)
			}
			if err := Print(w, st, time.Now()); err != nil {
				return err
			}
		}
		last = key
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(tick):
		}
	}
}

// changeKey is what makes a status new to a reader of a log: everything but the clock.
func changeKey(st Status) []byte {
	st.ElapsedMS = nil
	b, _ := json.Marshal(st)
	return b
}
