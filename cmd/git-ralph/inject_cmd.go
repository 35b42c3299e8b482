package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/reporting"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// maxInjection bounds one injected text: it goes into every agent's prompt once, and a
// mistaken `git ralph inject --file big.log` should say so rather than flood the agent.
const maxInjection = repofile.TextLimit

// InjectCmd is `git ralph inject`.
type InjectCmd struct {
	Text     string `arg:"" optional:"" help:"The text to add; '-' reads it from stdin."`
	File     string `short:"f" type:"existingfile" help:"Read the text from this file."`
	LoopFlag `embed:""`
}

// Run queues the text for the next iteration's prompt of the running or next loop.
func (c *InjectCmd) Run(ctx context.Context, s Streams) error {
	text, err := c.read(s.Stdin)
	if err != nil {
		return err
	}
	root, err := c.root(ctx)
	if err != nil {
		return err
	}
	if _, err := history.Inject(root, text, time.Now()); err != nil {
		return err
	}
	fmt.Fprintf(s.Stdout, "queued %s for the next iteration's prompt (a '## Context' section, used once)\n", display.Plural(len(text), "byte"))
	return nil
}

func (c *InjectCmd) read(stdin io.Reader) (string, error) {
	var data []byte
	var err error
	switch {
	case c.File != "" && c.Text != "":
		return "", hints.Wrap(errors.New("give the text or --file, not both"), "git ralph inject 'text' | git ralph inject --file notes.md | echo text | git ralph inject -")
	case c.File != "":
		// The user's choice of file, inside the repository or not; but a FIFO or a
		// device would hang or flood like a hostile prompt.
		data, err = repofile.Read(c.File, c.File, maxInjection)
		var refused *repofile.RefusedError
		if errors.As(err, &refused) {
			return "", hints.Wrap(err, "inject a regular file of at most %s; for more, a summary, or point the agent at the file", repofile.FormatSize(maxInjection))
		}
	case c.Text == "-":
		if reporting.IsTerminal(stdin) {
			return "", hints.Wrap(errors.New("'-' reads the text from stdin, which is a terminal"), "pipe the text in: echo 'use the v2 API' | git ralph inject -")
		}
		data, err = readBounded(io.NopCloser(stdin), nil)
	default:
		data = []byte(c.Text)
	}
	if err != nil {
		return "", err
	}
	if strings.TrimSpace(string(data)) == "" {
		return "", hints.Wrap(errors.New("nothing to inject: the text is empty"), "git ralph inject 'focus on the failing auth tests'")
	}
	return string(data), nil
}

// readBounded reads at most maxInjection bytes and refuses more.
func readBounded(r io.ReadCloser, err error) ([]byte, error) {
	if err != nil {
		return nil, err
	}
	defer r.Close()
	data, err := io.ReadAll(io.LimitReader(r, maxInjection+1))
	if err != nil {
		return nil, fmt.Errorf("reading the text to inject: %w", err)
	}
	if len(data) > maxInjection {
		return nil, hints.Wrap(fmt.Errorf("the text to inject is larger than %s", display.Size(maxInjection)), "inject a summary, or point the agent at the file instead")
	}
	return data, nil
}
