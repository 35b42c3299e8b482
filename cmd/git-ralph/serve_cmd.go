package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/serve"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/status"
	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/fleet"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// ServeCmd is `git ralph serve`.
type ServeCmd struct {
	Addr    string `help:"Listen on HOST:PORT instead of 127.0.0.1 on a free port; an address beyond loopback exposes the dashboard to the network, over HTTPS only." placeholder:"HOST:PORT"`
	TLSCert string `name:"tls-cert" help:"Serve HTTPS with this certificate (PEM; with --tls-key) rather than the self-signed one made beyond loopback." placeholder:"FILE" type:"path"`
	TLSKey  string `name:"tls-key" help:"The private key (PEM) of --tls-cert." placeholder:"FILE" type:"path"`
}

// Run serves the dashboard until Ctrl+C.
func (c *ServeCmd) Run(ctx context.Context, s Streams) error {
	here, err := repoRoot(ctx)
	if err != nil {
		return err
	}
	srv, err := serve.New(repoSource{here: here, formats: &liveFormats{}}, c.Addr)
	if err != nil {
		return err
	}
	srv.Repo = repoName(ctx, here)
	if (c.TLSCert == "") != (c.TLSKey == "") {
		return hints.Wrap(errors.New("--tls-cert and --tls-key go together"), "give both (the certificate and its private key, PEM), or neither for a self-signed certificate beyond loopback")
	}
	if c.TLSCert != "" { // before listening: a bad pair is refused with nothing served
		if err := srv.UseKeyPair(c.TLSCert, c.TLSKey); err != nil {
			return hints.Wrap(err, "--tls-cert is the certificate (chain) file and --tls-key its private key, both PEM, as a web server takes them")
		}
	}
	ln, err := listenServe(c.Addr)
	if err != nil {
		return err
	}
	if c.TLSCert == "" && serve.NeedsTLS(ln.Addr()) {
		if err := selfSigned(srv, ln.Addr(), s.Stderr); err != nil {
			ln.Close()
			return err
		}
	}
	return srv.Serve(ctx, ln, s.Stdout)
}

// selfSigned gives the dashboard the self-signed certificate kept in the user's state
// directory ($XDG_STATE_HOME/git-ralph/serve), made there on first use.
func selfSigned(srv *serve.Server, addr net.Addr, stderr io.Writer) error {
	dir, err := history.UserStateDir("serve")
	if err != nil {
		return hints.Wrap(fmt.Errorf("finding the user's state directory for the dashboard's certificate: %w", err), "set XDG_STATE_HOME or HOME, or give --tls-cert and --tls-key")
	}
	made, err := srv.SelfSigned(dir, addr)
	if err != nil {
		return hints.Wrap(err, "or give a certificate of your own: --tls-cert FILE --tls-key FILE")
	}
	if made {
		fmt.Fprintf(stderr, "note: made a self-signed certificate for the dashboard in %s (a browser that accepted an earlier one asks again)\n", dir)
	}
	return nil
}

// addrHint is how --addr is written.
const addrHint = "--addr HOST:PORT, e.g. --addr 127.0.0.1:8080 (port 0: a free one); without --addr the dashboard takes a free port on 127.0.0.1"

// listenServe checks --addr before it listens, so that a mistake is named with its cause
// and its fix rather than in the socket's words.
func listenServe(addr string) (net.Listener, error) {
	if addr != "" {
		_, port, err := net.SplitHostPort(addr)
		var bad *net.AddrError
		if errors.As(err, &bad) {
			return nil, hints.Wrap(fmt.Errorf("--addr %q is not HOST:PORT: %s", addr, bad.Err), addrHint)
		}
		if err != nil {
			return nil, hints.Wrap(fmt.Errorf("--addr %q is not HOST:PORT: %w", addr, err), addrHint)
		}
		if n, err := strconv.Atoi(port); err != nil || n < 0 || n > 65535 {
			return nil, hints.Wrap(fmt.Errorf("--addr %q: the port %q is not a number from 0 to 65535", addr, port), addrHint)
		}
	}
	ln, err := serve.Listen(addr)
	switch {
	case errors.Is(err, syscall.EADDRINUSE):
		return nil, hints.Wrap(err, "another program listens there: pick another port, or leave --addr out for a free one")
	case errors.Is(err, syscall.EADDRNOTAVAIL):
		return nil, hints.Wrap(err, "HOST must be an address of this machine (127.0.0.1 for it alone, 0.0.0.0 for every network it is on)")
	case errors.Is(err, syscall.EACCES):
		return nil, hints.Wrap(err, "ports below 1024 need privileges: pick a port from 1024 up")
	case err != nil:
		return nil, hints.Wrap(err, addrHint)
	}
	return ln, nil
}

// repoName is the repository's name as a person knows it: its main work tree's
// directory (a worktree loop's directory is the loop's name, not the repository's).
func repoName(ctx context.Context, here string) string {
	if common, err := gitops.CommonDir(ctx, here); err == nil && filepath.Base(common) == ".git" {
		return filepath.Base(filepath.Dir(common))
	}
	return filepath.Base(here)
}

// Merges are the merge queue's entries of the repository's worktree loops, by name.
func (r repoSource) Merges(ctx context.Context) (map[string]history.Merge, error) {
	members, _, err := fleet.Members(ctx, r.here)
	if err != nil {
		return nil, err
	}
	common, err := gitops.CommonDir(ctx, r.here)
	if err != nil {
		return nil, err
	}
	merges := map[string]history.Merge{}
	for _, m := range members {
		if m.Worktree == nil {
			continue
		}
		if merge, found, err := history.LoadMerge(common, m.Name); err == nil && found {
			merges[m.Name] = merge
		}
	}
	return merges, nil
}

// repoSource reads the repository's loops for the dashboard, as runs and history do,
// taking nothing a running loop needs (no lock, no merge recovery: serve only looks).
type repoSource struct {
	here    string
	formats *liveFormats // the live logs' formats, read again only when the records change
}

// Loops are the runs `git ralph runs` lists, read by the same runsOf, but not through
// readRuns: that recovers killed merges (a write) and warns on the terminal serve runs in.
func (r repoSource) Loops(ctx context.Context) ([]status.Run, error) {
	members, _, err := fleet.Members(ctx, r.here)
	if err != nil {
		return nil, err
	}
	return runsOf(ctx, r.here, members, time.Now()), nil
}

// store opens the named loop's history; a loop that does not exist is serve.ErrNotFound.
func (r repoSource) store(ctx context.Context, loop string) (*history.Store, error) {
	m, err := fleet.Find(ctx, r.here, loop)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", serve.ErrNotFound, err)
	}
	return history.OpenStore(m.Path)
}

// Live finds the loop once (git) and returns a reader of its latest iteration's log that
// reads files only, as watch does every tick: the state, the lock's holder, a few records.
func (r repoSource) Live(ctx context.Context, loop string) (serve.LiveReader, error) {
	m, err := fleet.Find(ctx, r.here, loop)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", serve.ErrNotFound, err)
	}
	path, err := lockPath(ctx, m.Path)
	if err != nil {
		return nil, err
	}
	store, err := history.OpenStore(m.Path)
	if err != nil {
		return nil, err
	}
	var last serve.LiveLog // the format is looked up once per iteration
	return func() (serve.LiveLog, error) {
		st, err := readStatus(ctx, m.Path, path)
		if err != nil {
			return serve.LiveLog{}, err
		}
		if m.Worktree != nil {
			st.Place.Name = m.Name // its status names 'loop --worktree NAME'
		}
		live := serve.LiveLog{State: display.Printable(statusSummary(st))}
		if st.State == nil || st.HistoryIteration == 0 {
			return live, nil
		}
		live.Iteration, live.Path = st.HistoryIteration, store.OutputPath(st.HistoryIteration)
		if live.Iteration == last.Iteration {
			live.Format = last.Format
		} else {
			live.Format = r.formats.of(m.Path, store, live.Iteration)
		}
		last = live
		return live, nil
	}, nil
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
	if _, err := fleet.Find(ctx, r.here, loop); err != nil {
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
	var h *hints.Error
	if errors.As(err, &h) && h.Hint() != "" {
		err = fmt.Errorf("%w (hint: %s)", err, h.Hint())
	}
	return strings.Join(strings.Fields(out.String()), " "), err
}

func (r repoSource) Iterations(ctx context.Context, loop string) ([]history.Record, []history.BadRecord, error) {
	store, err := r.store(ctx, loop)
	if err != nil {
		return nil, nil, err
	}
	return store.Scan(0)
}

// Diff reads iteration n's saved diff as `history --diff N` prints it, never through a
// committed symlink, at most limit bytes.
func (r repoSource) Diff(ctx context.Context, loop string, n int, limit int64) ([]byte, bool, error) {
	store, err := r.store(ctx, loop)
	if err != nil {
		return nil, false, err
	}
	f, err := repofile.OpenOwn(store.DiffPath(n), store.DiffPath(n))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, fmt.Errorf("%w: iteration %d of %s has no saved diff", serve.ErrNotFound, n, loop)
	}
	if err != nil {
		return nil, false, fmt.Errorf("reading the diff of iteration %d: %w", n, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading the diff of iteration %d: %w", n, err)
	}
	if int64(len(data)) > limit {
		return data[:limit], true, nil
	}
	return data, false, nil
}
