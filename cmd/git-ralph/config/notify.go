package config

import (
	"errors"
	"net/url"
	"slices"
	"strings"
)

// NotifyDesktop, NotifyBell and NotifyNone are the words of the notify setting; any other
// entry is a webhook URL.
const (
	NotifyDesktop = "desktop"
	NotifyBell    = "bell"
	NotifyNone    = "none"
)

const notifyHint = `list "desktop", "bell" or webhook URLs (http:// or https://), like notify = ["desktop", "https://ntfy.sh/mytopic"] or --notify desktop,bell; "none" for no notifications`

// splitList reads a list from an environment variable or a flag: entries separated by
// commas, blanks around them ignored. A URL with a comma in it must be percent-encoded
// (%2C) there; a file's array takes it as it is.
func splitList(raw string) []string {
	list := []string{}
	for _, part := range strings.Split(raw, ",") {
		if part = strings.TrimSpace(part); part != "" {
			list = append(list, part)
		}
	}
	return list
}

// checkNotify accepts the destinations of notifications: desktop, bell, webhook URLs, or
// none alone.
func checkNotify(v any) *problem {
	list := v.([]string)
	for i, entry := range list {
		switch {
		case entry == NotifyDesktop || entry == NotifyBell:
		case entry == NotifyNone && len(list) == 1:
		case entry == NotifyNone:
			return newProblem(`write "none" alone, or leave it out and list the destinations`, "%q can't be combined with other destinations", entry)
		case IsWebhook(entry):
			if p := checkWebhook(entry); p != nil {
				return p
			}
		default:
			if s := suggest(entry, []string{NotifyDesktop, NotifyBell, NotifyNone}); s != "" {
				return newProblem("did you mean "+s+"?", "entry %d: unknown destination %q", i+1, entry)
			}
			return newProblem(notifyHint, "entry %d: unknown destination %q", i+1, entry)
		}
	}
	return nil
}

// IsWebhook reports whether a notify entry is a webhook URL rather than a word.
func IsWebhook(entry string) bool {
	lower := strings.ToLower(entry)
	return strings.HasPrefix(lower, "http://") || strings.HasPrefix(lower, "https://")
}

func checkWebhook(entry string) *problem {
	u, err := url.Parse(entry)
	var uerr *url.Error
	switch {
	case strings.ContainsAny(entry, " \t\r\n"):
		return newProblem("write the URL without spaces, like https://ntfy.sh/mytopic", "%q is not a valid URL", entry)
	case errors.As(err, &uerr):
		return newProblem("write a whole URL, like https://ntfy.sh/mytopic", "%q is not a valid URL: %v", entry, uerr.Err)
	case err != nil:
		return newProblem("write a whole URL, like https://ntfy.sh/mytopic", "%q is not a valid URL", entry)
	case u.Host == "" || u.Hostname() == "":
		return newProblem("write the whole URL with its host, like https://ntfy.sh/mytopic", "%q names no host", entry)
	}
	return nil
}

// hasWebhook reports whether a notify value sends anything to a server: from a
// repository's file, that needs the user's trust (a cloned repository must not have your
// loops post their news to its server).
func hasWebhook(v any) bool {
	list, _ := v.([]string)
	return slices.ContainsFunc(list, IsWebhook)
}

// SendsFromRepo reports whether the repository's file has notifications go to a
// webhook: that is under trust, like its commands.
func SendsFromRepo(v Value[[]string]) bool {
	return v.Origin.Kind == FromRepo && slices.ContainsFunc(v.V, IsWebhook)
}
