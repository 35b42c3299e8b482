package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/launch"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/pick"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/serve"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/servesource"
	"github.com/git-ralph/git-ralph/loop/fleet"
)

// ServeCmd is `git ralph serve`.
type ServeCmd struct {
	Addr    string `help:"Listen on HOST:PORT instead of 127.0.0.1 on a free port; an address beyond loopback exposes the dashboard to the network, over HTTPS only." placeholder:"HOST:PORT"`
	TLSCert string `name:"tls-cert" help:"Serve HTTPS with this certificate (PEM; with --tls-key) rather than the self-signed one made beyond loopback." placeholder:"FILE" type:"path"`
	TLSKey  string `name:"tls-key" help:"The private key (PEM) of --tls-cert." placeholder:"FILE" type:"path"`
}

// Run serves the dashboard until Ctrl+C.
func (c *ServeCmd) Run(ctx context.Context, s Streams) error {
	here, err := launch.RepoRoot(ctx)
	if err != nil {
		return err
	}
	srv, err := serve.New(repoSource{Repo: servesource.Repo{Here: here, Formats: &servesource.LiveFormats{}}, picks: pick.New(here)}, c.Addr)
	if err != nil {
		return err
	}
	srv.Repo = servesource.Name(ctx, here)
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return hints.Wrap(errors.New("--tls-cert and --tls-key go together"), "give both (the certificate and its private key, PEM), or neither for a self-signed certificate beyond loopback")
	}
	if c.TLSCert != "" { // before listening: a bad pair is refused with nothing served
		if err := srv.UseKeyPair(c.TLSCert, c.TLSKey); err != nil {
			return hints.Wrap(err, "--tls-cert is the certificate (chain) file and --tls-key its private key, both PEM, as a web server takes them")
		}
	}
	ln, err := servesource.Listen(c.Addr)
	if err != nil {
		return err
	}
	if c.TLSCert == "" && serve.NeedsTLS(ln.Addr()) {
		if err := servesource.SelfSigned(srv, ln.Addr(), s.Stderr); err != nil {
			ln.Close()
			return err
		}
	}
	return srv.Serve(ctx, ln, s.Stdout)
}

// repoSource is the dashboard's Source: the repository's loops as servesource.Repo
// reads them, the actions run as this package's commands, and the best-of candidates'
// merges it starts (picks; nil: it merges none).
type repoSource struct {
	servesource.Repo
	picks *pick.Picker
}

// Act runs the command of the action's name on the loop, as watch's keys do: the same
// code as `git ralph pause --loop NAME`, its output returned as one line; ErrNotFound for
// an action or a loop that does not exist. An inject's text
// goes through stdin ('inject -'), so that any text, "-" too, is queued as it is.
func (r repoSource) Act(ctx context.Context, loop, action, text string) (string, error) {
	f := LoopFlag{Loop: loop}
	var cmd commandRun
	switch action {
	case "pause":
		cmd = &PauseCmd{LoopFlag: f}
	case "resume":
		cmd = &ResumeCmd{LoopFlag: f}
	case "cancel":
		cmd = &CancelCmd{LoopFlag: f}
	case "inject":
		cmd = &InjectCmd{Text: "-", LoopFlag: f}
	case "checkpoint":
		cmd = &CheckpointCmd{Label: strings.TrimSpace(text), LoopFlag: f}
	default:
		return "", fmt.Errorf("%w: no action %q (pause, resume, cancel, inject, checkpoint)", serve.ErrNotFound, action)
	}
	// a loop that does not exist is the page's 404, not an action's error shown on a
	// page that is not there either
	if _, err := fleet.Find(ctx, r.Here, loop); err != nil {
		return "", fmt.Errorf("%w: %w", serve.ErrNotFound, err)
	}
	return runForView(ctx, cmd, text)
}

// commandRun is a command of this package, run by a view rather than by kong.
type commandRun interface {
	Run(context.Context, Streams) error
}

// runForView runs a command for a view (watch's keys, serve's buttons) with stdin as its
// input, and returns what it printed as one line, its error with its hint.
func runForView(ctx context.Context, cmd commandRun, stdin string) (string, error) {
	var out bytes.Buffer
	err := cmd.Run(ctx, Streams{Stdin: strings.NewReader(stdin), Stdout: &out, Stderr: &out})
	return strings.Join(strings.Fields(out.String()), " "), hints.Inline(err)
}

// BestOfs are the repository's best-of groups, as fleet keeps their rankings.
func (r repoSource) BestOfs(ctx context.Context) ([]fleet.Ranking, []error, error) {
	return fleet.Rankings(ctx, r.Here)
}

// PickMerge starts the merge of a best-of's candidate (pick.Picker).
func (r repoSource) PickMerge(ctx context.Context, group, candidate string) (string, error) {
	if r.picks == nil {
		return "", errors.New("this dashboard does not merge")
	}
	said, err := r.picks.Pick(ctx, group, candidate)
	return said, hints.Inline(err)
}

// Picked is what became of the merges the dashboard started.
func (r repoSource) Picked() map[string]serve.PickedMerge {
	if r.picks == nil {
		return nil
	}
	return r.picks.Picked()
}
