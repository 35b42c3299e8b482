package agentcli

import (
	"encoding/json"
	"strings"
)

// jsonString is raw as a string when it is a JSON string (or an object with a
// "message"), "" otherwise.
func jsonString(raw json.RawMessage) string {
	if len(raw) == 0 {
		return ""
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var obj struct {
		Message string `json:"message"`
	}
	if json.Unmarshal(raw, &obj) == nil {
		return obj.Message
	}
	return ""
}

// errorText is the message of an error event, wherever the CLI put it: "message",
// "error" (a string, or an object with a message), or the line itself.
func errorText(line []byte) string {
	var e struct {
		Message json.RawMessage `json:"message"`
		Error   json.RawMessage `json:"error"`
	}
	_ = json.Unmarshal(line, &e)
	var parts []string
	for _, raw := range []json.RawMessage{e.Message, e.Error} {
		if s := jsonString(raw); s != "" {
			parts = append(parts, s)
		}
	}
	if len(parts) == 0 {
		return string(line)
	}
	return strings.Join(parts, "\n")
}
