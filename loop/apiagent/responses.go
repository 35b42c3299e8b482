package apiagent

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strings"
)

// responses speaks the OpenAI Responses API: output items (message, reasoning,
// function_call) streamed as response.output_item.added / … / .done events, tool results
// sent back as function_call_output items. Nothing is stored on the server (store:
// false): each request carries the whole conversation, reasoning items included in their
// encrypted form.
type responses struct {
	system string
	tools  []toolSpec
	input  []json.RawMessage
	// plain: the model refused the encrypted reasoning (a model that does not reason,
	// such as gpt-4.1: "Encrypted content is not supported with this model"), so it is
	// not asked for again.
	plain bool
}

// downgrade stops asking for the encrypted reasoning when the server refused it, and
// reports whether it did: the request is then sent again without it.
func (o *responses) downgrade(e *Error) bool {
	if o.plain || e.Status != 400 || !strings.Contains(strings.ToLower(e.Message), "encrypted content") {
		return false
	}
	o.plain = true
	return true
}

func (o *responses) path() string { return "/responses" }

func (o *responses) header(h http.Header, key string) { bearer(h, key) }

// bearer sets OpenAI's Authorization header; a local server may need no key at all.
func bearer(h http.Header, key string) {
	if key != "" {
		h.Set("Authorization", "Bearer "+key)
	}
}

func (o *responses) begin(system, prompt string, tools []toolSpec) {
	o.system, o.tools = system, tools
	o.input = []json.RawMessage{mustJSON(map[string]any{"role": "user", "content": prompt})}
}

func (o *responses) body(model string, maxOutput int) ([]byte, error) {
	tools := make([]map[string]any, len(o.tools))
	for i, t := range o.tools {
		tools[i] = map[string]any{"type": "function", "name": t.Name, "description": t.Description, "parameters": t.Schema}
	}
	body := map[string]any{
		"model": model, "instructions": o.system, "input": o.input, "tools": tools,
		"stream": true, "store": false,
	}
	if !o.plain {
		body["include"] = []string{"reasoning.encrypted_content"}
	}
	if maxOutput > 0 {
		body["max_output_tokens"] = maxOutput
	}
	return marshal(body)
}

func (o *responses) answer(results []toolResult) {
	for _, r := range results {
		out := r.Output
		if r.IsError {
			out = "error: " + out // the API has no error flag on a function's output
		}
		o.input = append(o.input, mustJSON(map[string]any{"type": "function_call_output", "call_id": r.Call.ID, "output": out}))
	}
}

// responsesEvent is every field of the stream's events that the reader uses.
type responsesEvent struct {
	Type     string          `json:"type"`
	Item     json.RawMessage `json:"item"`
	Response struct {
		Status            string            `json:"status"`
		Output            []json.RawMessage `json:"output"`
		Usage             *responsesUsage   `json:"usage"`
		Error             json.RawMessage   `json:"error"`
		IncompleteDetails struct {
			Reason string `json:"reason"`
		} `json:"incomplete_details"`
	} `json:"response"`
}

type responsesUsage struct {
	Input        int64 `json:"input_tokens"`
	Output       int64 `json:"output_tokens"`
	InputDetails struct {
		Cached int64 `json:"cached_tokens"`
	} `json:"input_tokens_details"`
}

// responsesItem is what the reader needs of an output item.
type responsesItem struct {
	Type    string `json:"type"`
	CallID  string `json:"call_id"`
	Name    string `json:"name"`
	Args    string `json:"arguments"`
	Content []struct {
		Type    string `json:"type"`
		Text    string `json:"text"`
		Refusal string `json:"refusal"`
	} `json:"content"`
	Summary []struct {
		Text string `json:"text"`
	} `json:"summary"`
	Encrypted *string `json:"encrypted_content"`
}

func (o *responses) read(s *sseReader) (reply, error) {
	var rep reply
	var items []json.RawMessage
	for {
		ev, err := s.next()
		if err == io.EOF {
			return rep, errors.New("the stream ended before response.completed")
		}
		if err != nil {
			return rep, err
		}
		var e responsesEvent
		if json.Unmarshal(ev.data, &e) != nil {
			continue
		}
		switch e.Type {
		case "response.output_item.done":
			items = append(items, e.Item)
		case "response.completed", "response.incomplete":
			if u := e.Response.Usage; u != nil {
				cached := min(max(u.InputDetails.Cached, 0), u.Input)
				rep.Usage = Usage{Input: u.Input - cached, Output: u.Output, CacheRead: cached}
			}
			rep.Stop = e.Response.Status
			if reason := e.Response.IncompleteDetails.Reason; reason != "" {
				rep.Stop += ": " + reason
			}
			if len(items) == 0 { // a server that streams no items still lists them at the end
				items = e.Response.Output
			}
			o.finish(&rep, items)
			return rep, nil
		case "response.failed":
			return rep, errorEvent(parseAPIError(mustJSON(map[string]json.RawMessage{"error": e.Response.Error})))
		case "error":
			return rep, errorEvent(parseAPIError(ev.data))
		}
	}
}

// finish reads the items and adds them to the conversation: messages and function calls
// without their ids (which name nothing when the server stores nothing), reasoning only
// when it came encrypted (without, it is a reference to a stored item, which the server
// would refuse).
func (o *responses) finish(rep *reply, items []json.RawMessage) {
	var said, thought []string
	for _, raw := range items {
		var it responsesItem
		var fields map[string]any
		if json.Unmarshal(raw, &it) != nil || json.Unmarshal(raw, &fields) != nil {
			continue
		}
		switch it.Type {
		case "message":
			for _, c := range it.Content {
				if c.Text != "" {
					said = append(said, c.Text)
				}
				if c.Refusal != "" {
					said = append(said, c.Refusal)
				}
			}
			delete(fields, "id")
			o.input = append(o.input, mustJSON(fields))
		case "reasoning":
			for _, part := range it.Summary {
				thought = append(thought, part.Text)
			}
			if it.Encrypted != nil && *it.Encrypted != "" {
				o.input = append(o.input, raw)
			}
		case "function_call":
			rep.Calls = append(rep.Calls, toolCall{ID: it.CallID, Name: it.Name, Input: []byte(it.Args)})
			delete(fields, "id")
			o.input = append(o.input, mustJSON(fields))
		}
	}
	rep.Text, rep.Thinking = strings.Join(said, "\n"), strings.Join(thought, "\n")
}
