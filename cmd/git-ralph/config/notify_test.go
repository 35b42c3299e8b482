package config

import (
	"errors"
	"reflect"
	"testing"
)

// The notify setting: an array in files (or one comma-separated string), a
// comma-separated list in RALPH_NOTIFY and --notify, each entry desktop, bell or a
// webhook URL, or none alone.
func TestNotifyValues(t *testing.T) {
	tests := []struct {
		name string
		f    fixture
		want []string
		from string
	}{
		{"a file's array", fixture{repo: `notify = ["desktop", "https://ntfy.sh/t"]` + "\n"}, []string{"desktop", "https://ntfy.sh/t"}, ".ralph/config.toml:1"},
		{"a file's string", fixture{user: `notify = "bell, desktop"` + "\n"}, []string{"bell", "desktop"}, userDisplay + ":1"},
		{"an empty array", fixture{user: "notify = []\n"}, []string{}, userDisplay + ":1"},
		{"the environment", fixture{env: []string{"RALPH_NOTIFY=bell,,http://127.0.0.1:9/x "}}, []string{"bell", "http://127.0.0.1:9/x"}, "env RALPH_NOTIFY"},
		{"a flag over the file", fixture{user: "notify = [\"bell\"]\n", flags: []Flag{{Key: "notify", Name: "--notify", Raw: "none"}}}, []string{"none"}, "flag --notify"},
		{"a mode's section", fixture{repo: "notify = [\"bell\"]\n[modes.build]\nnotify = [\"desktop\"]\n"}, []string{"desktop"}, ".ralph/config.toml:3 [modes.build]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := tt.f.mustLoad(t)
			if !reflect.DeepEqual(c.Notify.V, tt.want) || c.Notify.Origin.String() != tt.from {
				t.Errorf("notify = %q from %s, want %q from %s", c.Notify.V, c.Notify.Origin, tt.want, tt.from)
			}
		})
	}
}

func TestNotifyBadValues(t *testing.T) {
	tests := []struct {
		name, want, hint string
		f                fixture
	}{
		{"a typo", `.ralph/config.toml:1: notify: entry 2: unknown destination "deskop"`, "did you mean desktop?",
			fixture{repo: `notify = ["bell", "deskop"]` + "\n"}},
		{"a command", `env RALPH_NOTIFY: entry 1: unknown destination "curl x"`, notifyHint,
			fixture{env: []string{"RALPH_NOTIFY=curl x"}}},
		{"a URL without a host", `--notify: "https:///x" names no host`, "write the whole URL with its host, like https://ntfy.sh/mytopic",
			fixture{flags: []Flag{{Key: "notify", Name: "--notify", Raw: "https:///x"}}}},
		{"a URL that does not parse", `--notify: "http://[::1/x" is not a valid URL: missing ']' in host`, "write a whole URL, like https://ntfy.sh/mytopic",
			fixture{flags: []Flag{{Key: "notify", Name: "--notify", Raw: "http://[::1/x"}}}},
		{"a URL with a space", `--notify: "https://a b/x" is not a valid URL`, "write the URL without spaces, like https://ntfy.sh/mytopic",
			fixture{flags: []Flag{{Key: "notify", Name: "--notify", Raw: "https://a b/x"}}}},
		{"none with others", `.ralph/config.toml:1: notify: "none" can't be combined with other destinations`, `write "none" alone, or leave it out and list the destinations`,
			fixture{repo: `notify = ["none", "bell"]` + "\n"}},
		{"a number", `.ralph/config.toml:1: notify: want an array of strings, got an integer (1)`, `write it like this: notify = ["desktop", "bell", "https://ntfy.sh/mytopic"]`,
			fixture{repo: "notify = 1\n"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := tt.f.load(t)
			var e *Error
			if !errors.As(err, &e) || e.Error() != tt.want || e.Hint() != tt.hint {
				t.Fatalf("got %v (hint %q)\nwant %s (hint %q)", err, hintOf(err), tt.want, tt.hint)
			}
		})
	}
}

func hintOf(err error) string {
	var e *Error
	if errors.As(err, &e) {
		return e.Hint()
	}
	return ""
}

// A webhook in the repository's file needs trust; desktop and bell send nothing anywhere
// and do not.
func TestNotifyWebhookNeedsTrust(t *testing.T) {
	c := fixture{repo: "notify = [\"desktop\", \"bell\"]\n"}.mustLoad(t)
	if cmds := c.RepoCommands(); cmds != nil {
		t.Errorf("desktop and bell asked for trust: %v", cmds)
	}
	c = fixture{repo: "[modes.plan]\nnotify = [\"bell\", \"https://ntfy.sh/t\"]\n"}.mustLoad(t)
	if got := c.RepoCommands()["modes.plan.notify"]; got != `["bell","https://ntfy.sh/t"]` {
		t.Errorf("RepoCommands = %v, want the mode's notify", c.RepoCommands())
	}
	c = fixture{user: "notify = [\"https://ntfy.sh/t\"]\n"}.mustLoad(t)
	if cmds := c.RepoCommands(); cmds != nil {
		t.Errorf("the user's own webhook asked for trust: %v", cmds)
	}
}
