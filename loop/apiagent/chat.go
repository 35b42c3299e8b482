package apiagent

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
)

// chat speaks the OpenAI Chat Completions API, which OpenAI serves and most local servers
// imitate (ollama, llama.cpp's server, vLLM, LM Studio): chunks of one choice whose delta
// carries the text and the tool calls, each call's arguments streamed in pieces under the
// call's index; the results sent back as messages of role "tool".
type chat struct {
	tools    []toolSpec
	messages []json.RawMessage
	// completionTokens: the model takes the output cap as max_completion_tokens, having
	// refused max_tokens (OpenAI's reasoning models).
	completionTokens bool
}

// downgrade names the output cap max_completion_tokens when the server refused
// max_tokens for it, and reports whether it did: the request is then sent again.
func (c *chat) downgrade(e *Error) bool {
	if c.completionTokens || e.Status != 400 || !strings.Contains(e.Message, "max_completion_tokens") {
		return false
	}
	c.completionTokens = true
	return true
}

func (c *chat) path() string { return "/chat/completions" }

func (c *chat) header(h http.Header, key string) { bearer(h, key) }

func (c *chat) begin(system, prompt string, tools []toolSpec) {
	c.tools = tools
	c.messages = []json.RawMessage{
		mustJSON(map[string]any{"role": "system", "content": system}),
		mustJSON(map[string]any{"role": "user", "content": prompt}),
	}
}

func (c *chat) body(model string, maxOutput int) ([]byte, error) {
	tools := make([]map[string]any, len(c.tools))
	for i, t := range c.tools {
		tools[i] = map[string]any{"type": "function", "function": map[string]any{
			"name": t.Name, "description": t.Description, "parameters": t.Schema}}
	}
	body := map[string]any{
		"model": model, "messages": c.messages, "tools": tools, "stream": true,
		"stream_options": map[string]bool{"include_usage": true},
	}
	switch {
	case maxOutput > 0 && c.completionTokens:
		body["max_completion_tokens"] = maxOutput
	case maxOutput > 0:
		body["max_tokens"] = maxOutput
	}
	return marshal(body)
}

func (c *chat) answer(results []toolResult) {
	for _, r := range results {
		c.messages = append(c.messages, mustJSON(map[string]any{"role": "tool", "tool_call_id": r.Call.ID, "content": r.Output}))
	}
}

// chatChunk is every field of a chunk that the reader uses.
type chatChunk struct {
	Choices []struct {
		Delta struct {
			Content          string `json:"content"`
			Reasoning        string `json:"reasoning"`
			ReasoningContent string `json:"reasoning_content"`
			ToolCalls        []struct {
				Index    int    `json:"index"`
				ID       string `json:"id"`
				Function struct {
					Name      string `json:"name"`
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *struct {
		Prompt        int64 `json:"prompt_tokens"`
		Completion    int64 `json:"completion_tokens"`
		PromptDetails struct {
			Cached int64 `json:"cached_tokens"`
		} `json:"prompt_tokens_details"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// chatCall is a tool call being streamed.
type chatCall struct {
	id, name string
	args     strings.Builder
}

// read reads chunks until "data: [DONE]". A server that closes the stream after the
// finish reason without [DONE] has still answered whole; one that closes it before has not.
func (c *chat) read(s *sseReader) (reply, error) {
	a := &chatAnswer{}
	for {
		ev, err := s.next()
		if (err == io.EOF || errors.Is(err, errCut)) && a.finished {
			break // the answer is whole; what was cut is [DONE] or a usage chunk
		}
		if err == io.EOF {
			return a.rep, errors.New("the stream ended before its finish reason")
		}
		if err != nil {
			return a.rep, err
		}
		if string(ev.data) == "[DONE]" {
			break
		}
		if err := a.add(ev.data); err != nil {
			return a.rep, err
		}
	}
	c.finish(&a.rep, a.text.String(), a.thought.String(), a.calls)
	return a.rep, nil
}

// chatAnswer is what the chunks of one answer add up to so far.
type chatAnswer struct {
	rep           reply
	text, thought strings.Builder
	calls         []*chatCall
	finished      bool // a finish reason came
}

// add folds one chunk into the answer: its usage, its choices' words and tool calls, its
// finish reason. A chunk that is not JSON is skipped; an error chunk is the answer's error.
func (a *chatAnswer) add(data []byte) error {
	var ch chatChunk
	if json.Unmarshal(data, &ch) != nil {
		return nil
	}
	if len(ch.Error) > 0 && string(ch.Error) != "null" {
		return errorEvent(parseAPIError(data))
	}
	if u := ch.Usage; u != nil {
		cached := min(max(u.PromptDetails.Cached, 0), u.Prompt)
		a.rep.Usage = Usage{Input: u.Prompt - cached, Output: u.Completion, CacheRead: cached}
	}
	for _, choice := range ch.Choices {
		a.text.WriteString(choice.Delta.Content)
		a.thought.WriteString(choice.Delta.ReasoningContent + choice.Delta.Reasoning)
		for _, tc := range choice.Delta.ToolCalls {
			a.addCall(tc.Index, tc.ID, tc.Function.Name, tc.Function.Arguments)
		}
		if choice.FinishReason != nil && *choice.FinishReason != "" {
			a.rep.Stop, a.finished = *choice.FinishReason, true
		}
	}
	return nil
}

// addCall adds a piece of the tool call at index (bounded: a server's index is not
// trusted to size a slice with).
func (a *chatAnswer) addCall(index int, id, name, args string) {
	if index < 0 || index > 1<<10 {
		return
	}
	for len(a.calls) <= index {
		a.calls = append(a.calls, &chatCall{})
	}
	call := a.calls[index]
	if call.id == "" {
		call.id = id // sent once, with the name; some servers repeat both
	}
	if call.name == "" {
		call.name = name
	}
	call.args.WriteString(args)
}

// finish adds the model's message to the conversation. A call without an id (some local
// servers send none) gets one, so that its result can name it.
func (c *chat) finish(rep *reply, text, thought string, calls []*chatCall) {
	rep.Text, rep.Thinking = text, thought
	var sent []map[string]any
	for i, call := range calls {
		if call.id == "" {
			call.id = "call_" + strconv.Itoa(len(c.messages)) + "_" + strconv.Itoa(i)
		}
		args := call.args.String()
		rep.Calls = append(rep.Calls, toolCall{ID: call.id, Name: call.name, Input: []byte(args)})
		if !json.Valid([]byte(args)) {
			args = "{}" // servers parse the history's arguments; the tool result says what was wrong
		}
		sent = append(sent, map[string]any{"id": call.id, "type": "function",
			"function": map[string]any{"name": call.name, "arguments": args}})
	}
	msg := map[string]any{"role": "assistant", "content": text}
	if len(sent) > 0 {
		msg["tool_calls"] = sent
		if text == "" {
			msg["content"] = nil
		}
	}
	c.messages = append(c.messages, mustJSON(msg))
}
