package notify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/url"
	"os/exec"
	"runtime"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
)

// Destination is one place a message goes.
type Destination interface {
	// Name says which destination, for warnings and the log; a webhook's shows no path,
	// which often holds a secret (Slack's does).
	Name() string
	Send(ctx context.Context, m Message) error
}

// Destinations turns the notify setting into destinations. bell is where the bell rings:
// the terminal's stderr, or nil when it is not a terminal (then "bell" sends nothing).
func Destinations(list []string, bell io.Writer) []Destination {
	var ds []Destination
	for _, entry := range list {
		switch {
		case entry == config.NotifyDesktop:
			ds = append(ds, desktop{})
		case entry == config.NotifyBell && bell != nil:
			ds = append(ds, terminalBell{w: bell})
		case config.IsWebhook(entry):
			ds = append(ds, webhook{url: entry})
		}
	}
	return ds
}

// terminalBell rings the terminal's bell: one BEL byte.
type terminalBell struct{ w io.Writer }

func (terminalBell) Name() string { return "bell" }

func (b terminalBell) Send(context.Context, Message) error {
	_, err := b.w.Write([]byte{'\a'})
	return err
}

// desktop shows the message with notify-send, or on macOS with osascript's display
// notification, whichever is on PATH.
type desktop struct{}

func (desktop) Name() string { return "desktop" }

func (desktop) Send(ctx context.Context, m Message) error {
	argv, err := desktopCommand(m)
	if err != nil {
		return err
	}
	cmd := exec.CommandContext(ctx, argv[0], argv[1:]...)
	cmd.WaitDelay = time.Second // a notifier that leaves its output open must not hold us
	out, err := cmd.CombinedOutput()
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", argv[0], ctx.Err())
	}
	if err != nil {
		if last := lastLine(out); last != "" {
			return fmt.Errorf("%s: %w: %s", argv[0], err, last)
		}
		return fmt.Errorf("%s: %w", argv[0], err)
	}
	return nil
}

// desktopCommand is the command line that shows m. The title and text are arguments,
// never part of a script: osascript gets them through "on run argv".
func desktopCommand(m Message) ([]string, error) {
	if runtime.GOOS == "darwin" {
		if path, err := exec.LookPath("osascript"); err == nil {
			return []string{path, "-e", "on run argv", "-e", "display notification (item 2 of argv) with title (item 1 of argv)",
				"-e", "end run", m.Title, m.Message}, nil
		}
	}
	path, err := exec.LookPath("notify-send")
	if err != nil {
		return nil, errors.New("no notify-send on PATH (install libnotify-bin, or leave desktop out of notify)")
	}
	return []string{path, "--app-name=git-ralph", m.Title, notOption(m.Message)}, nil
}

// notOption keeps a text that starts with '-' (a reason can) from being read as an
// option: notify-send's GLib parser takes options after the positional arguments too,
// and leaves "--" in place (as the title) when an argument after it starts with '-'.
func notOption(text string) string {
	if strings.HasPrefix(text, "-") {
		return " " + text
	}
	return text
}

// webhook POSTs the message as JSON.
type webhook struct{ url string }

// Name shows the URL's scheme and host only.
func (w webhook) Name() string {
	u, err := url.Parse(w.url)
	if err != nil {
		return "webhook"
	}
	name := "webhook " + u.Scheme + "://" + u.Host
	if strings.Trim(u.Path, "/") != "" || u.RawQuery != "" {
		name += "/…"
	}
	return name
}

// client follows no redirect: a redirected POST would go on as a GET without its body,
// or carry it somewhere the user never named.
var client = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

func (w webhook) Send(ctx context.Context, m Message) error {
	body, err := json.Marshal(m)
	if err != nil {
		return err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, w.url, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("User-Agent", "git-ralph")
	req.Header.Set("Title", mime.QEncoding.Encode("utf-8", m.Title)) // ntfy's title; others ignore it
	resp, err := client.Do(req)
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return uerr.Err // *url.Error repeats the URL, which may hold a secret
	} else if err != nil {
		return err
	}
	defer resp.Body.Close()
	reply, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		if last := lastLine(reply); last != "" {
			return fmt.Errorf("HTTP %s: %s", resp.Status, last)
		}
		return fmt.Errorf("HTTP %s", resp.Status)
	}
	return nil
}

// lastLine is the last non-empty line of a program's or server's reply, kept short.
func lastLine(out []byte) string {
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return shorten(lines[len(lines)-1])
}
