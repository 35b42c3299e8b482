package apiagent

import (
	"bytes"
	"encoding/json"
)

// marshal is json.Marshal without the escaping of <, > and & that HTML needs: the
// requests and the exchange's lines carry the promise tag and code as they are written.
func marshal(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte{'\n'}), nil
}

// mustJSON marshals a value made of maps, strings and valid raw JSON, which cannot fail.
func mustJSON(v any) json.RawMessage {
	b, err := marshal(v)
	if err != nil {
		panic("apiagent: " + err.Error())
	}
	return b
}
