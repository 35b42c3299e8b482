package apiagent

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"slices"
	"strconv"
	"strings"

	"github.com/git-ralph/git-ralph/lazyregexp"
)

// anthropicVersion is the Messages API version the requests ask for.
const anthropicVersion = "2023-06-01"

// anthropic speaks the Messages API: content blocks (text, tool_use, thinking) streamed as
// content_block_start / _delta / _stop events, tool results sent back as tool_result
// blocks of a user message.
type anthropic struct {
	system   string
	tools    []toolSpec
	messages []anthropicMessage
	// maxOutput is the model's own largest max_tokens, once a request over it was
	// refused ("max_tokens: 16384 > 8192, which is the maximum allowed …"); 0: none known.
	maxOutput int
}

// maxTokensRule reads the largest max_tokens the model allows from the API's refusal.
var maxTokensRule = lazyregexp.New(`max_tokens: \d+ > (\d+)`)

// downgrade lowers max_tokens to the model's largest when the API refused it for being
// over it, and reports whether it did: the request is then sent again.
func (a *anthropic) downgrade(e *Error) bool {
	m := maxTokensRule.FindStringSubmatch(e.Message)
	if e.Status != 400 || m == nil || a.maxOutput != 0 {
		return false
	}
	n, err := strconv.Atoi(m[1])
	if err != nil || n <= 0 {
		return false
	}
	a.maxOutput = n
	return true
}

type anthropicMessage struct {
	Role    string            `json:"role"`
	Content []json.RawMessage `json:"content"`
}

func (a *anthropic) path() string { return "/messages" }

func (a *anthropic) header(h http.Header, key string) {
	h.Set("anthropic-version", anthropicVersion)
	if key != "" {
		h.Set("x-api-key", key)
	}
}

func (a *anthropic) begin(system, prompt string, tools []toolSpec) {
	a.system, a.tools = system, tools
	a.messages = []anthropicMessage{{Role: "user", Content: []json.RawMessage{mustJSON(map[string]any{"type": "text", "text": prompt})}}}
}

// body marks the system prompt and the conversation's last block for the prompt cache,
// so that each turn reads the conversation so far from the cache instead of paying for it
// again (the tools, before the system prompt, are cached with it).
func (a *anthropic) body(model string, maxOutput int) ([]byte, error) {
	type tool struct {
		Name        string          `json:"name"`
		Description string          `json:"description"`
		InputSchema json.RawMessage `json:"input_schema"`
	}
	tools := make([]tool, len(a.tools))
	for i, t := range a.tools {
		tools[i] = tool{t.Name, t.Description, t.Schema}
	}
	messages := slices.Clone(a.messages)
	if last := &messages[len(messages)-1]; len(last.Content) > 0 {
		last.Content = slices.Clone(last.Content)
		last.Content[len(last.Content)-1] = withCache(last.Content[len(last.Content)-1])
	}
	if a.maxOutput > 0 {
		maxOutput = min(maxOutput, a.maxOutput)
	}
	return marshal(map[string]any{
		"model": model, "max_tokens": maxOutput, "stream": true,
		"system":   []any{map[string]any{"type": "text", "text": a.system, "cache_control": map[string]string{"type": "ephemeral"}}},
		"tools":    tools,
		"messages": messages,
	})
}

// withCache is block with a cache breakpoint.
func withCache(block json.RawMessage) json.RawMessage {
	var m map[string]any
	if json.Unmarshal(block, &m) != nil {
		return block
	}
	m["cache_control"] = map[string]string{"type": "ephemeral"}
	return mustJSON(m)
}

func (a *anthropic) answer(results []toolResult) {
	if len(results) == 0 {
		return // a user message without content is refused
	}
	content := make([]json.RawMessage, len(results))
	for i, r := range results {
		content[i] = mustJSON(map[string]any{"type": "tool_result", "tool_use_id": r.Call.ID,
			"content": r.Output, "is_error": r.IsError})
	}
	a.messages = append(a.messages, anthropicMessage{Role: "user", Content: content})
}

// anthropicBlock is a content block being streamed.
type anthropicBlock struct {
	start     map[string]any // the block as content_block_start gave it
	typ       string
	text      strings.Builder // text, or thinking
	signature strings.Builder
	input     strings.Builder // a tool_use's partial_json
}

// anthropicEvent is every field of the stream's events that the reader uses.
type anthropicEvent struct {
	Type    string `json:"type"`
	Index   int    `json:"index"`
	Message struct {
		Usage anthropicUsage `json:"usage"`
	} `json:"message"`
	ContentBlock map[string]any `json:"content_block"`
	Delta        struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		Signature   string `json:"signature"`
		PartialJSON string `json:"partial_json"`
		StopReason  string `json:"stop_reason"`
	} `json:"delta"`
	Usage anthropicUsage `json:"usage"`
}

type anthropicUsage struct {
	Input      int64 `json:"input_tokens"`
	Output     int64 `json:"output_tokens"`
	CacheRead  int64 `json:"cache_read_input_tokens"`
	CacheWrite int64 `json:"cache_creation_input_tokens"`
}

// merge takes the counts u states: message_delta's usage is cumulative and may restate
// the input counts.
func (u anthropicUsage) merge(into *Usage) {
	if u.Input > 0 {
		into.Input = u.Input
	}
	if u.CacheRead > 0 {
		into.CacheRead = u.CacheRead
	}
	if u.CacheWrite > 0 {
		into.CacheWrite = u.CacheWrite
	}
	if u.Output > 0 {
		into.Output = u.Output
	}
}

func (a *anthropic) read(s *sseReader) (reply, error) {
	var rep reply
	var blocks []*anthropicBlock
	for {
		ev, err := s.next()
		if err == io.EOF {
			return rep, errors.New("the stream ended before message_stop")
		}
		if err != nil {
			return rep, err
		}
		var e anthropicEvent
		if json.Unmarshal(ev.data, &e) != nil {
			continue // not an event of this API: skipped, as unknown events are
		}
		switch e.Type {
		case "message_start":
			e.Message.Usage.merge(&rep.Usage)
		case "content_block_start":
			if e.Index < 0 || e.Index > 1<<16 {
				continue
			}
			for len(blocks) <= e.Index {
				blocks = append(blocks, nil)
			}
			typ, _ := e.ContentBlock["type"].(string)
			blocks[e.Index] = &anthropicBlock{start: e.ContentBlock, typ: typ}
		case "content_block_delta":
			if e.Index >= 0 && e.Index < len(blocks) && blocks[e.Index] != nil {
				blocks[e.Index].add(e)
			}
		case "message_delta":
			rep.Stop = e.Delta.StopReason
			e.Usage.merge(&rep.Usage)
		case "message_stop":
			a.finish(&rep, blocks)
			return rep, nil
		case "error":
			return rep, errorEvent(parseAPIError(ev.data))
		}
	}
}

func (b *anthropicBlock) add(e anthropicEvent) {
	switch e.Delta.Type {
	case "text_delta":
		b.text.WriteString(e.Delta.Text)
	case "thinking_delta":
		b.text.WriteString(e.Delta.Thinking)
	case "signature_delta":
		b.signature.WriteString(e.Delta.Signature)
	case "input_json_delta":
		b.input.WriteString(e.Delta.PartialJSON)
	}
}

// finish assembles the reply from the blocks and adds the model's message to the
// conversation: thinking blocks go back as they came (the API checks their signature),
// empty text blocks not at all (the API refuses them).
func (a *anthropic) finish(rep *reply, blocks []*anthropicBlock) {
	var content []json.RawMessage
	var said, thought []string
	for _, b := range blocks {
		if b == nil {
			continue
		}
		switch b.typ {
		case "text":
			if b.text.Len() == 0 {
				continue
			}
			said = append(said, b.text.String())
			content = append(content, mustJSON(map[string]any{"type": "text", "text": b.text.String()}))
		case "thinking":
			thought = append(thought, b.text.String())
			content = append(content, mustJSON(map[string]any{"type": "thinking", "thinking": b.text.String(), "signature": b.signature.String()}))
		case "redacted_thinking":
			content = append(content, mustJSON(b.start))
		case "tool_use":
			id, _ := b.start["id"].(string)
			name, _ := b.start["name"].(string)
			input := []byte(b.input.String())
			if len(strings.TrimSpace(string(input))) == 0 {
				input = []byte("{}")
			}
			rep.Calls = append(rep.Calls, toolCall{ID: id, Name: name, Input: input})
			var sent any = json.RawMessage(input)
			if !json.Valid(input) {
				sent = map[string]any{} // the API takes an object back; the tool result says what was wrong
			}
			content = append(content, mustJSON(map[string]any{"type": "tool_use", "id": id, "name": name, "input": sent}))
		}
	}
	rep.Text, rep.Thinking = strings.Join(said, "\n"), strings.Join(thought, "\n")
	rep.ContextFull = rep.Stop == "model_context_window_exceeded"
	if len(content) > 0 {
		a.messages = append(a.messages, anthropicMessage{Role: "assistant", Content: content})
	}
}
