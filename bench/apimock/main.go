// Command apimock is a mock of the Chat Completions API for bench/apiloops.sh: every
// answer comes after a fixed latency (a model thinking), streamed as the API streams it
// (server-sent events), so that git-ralph's openai-chat agent runs against it as against
// a real server. It needs nothing of the module.
//
//	apimock [-latency 2s] -port-file FILE [-stats FILE]
//
// It listens on 127.0.0.1 on a free port, written to FILE once it listens. A
// conversation's first turn (its last message is not a tool's result) is a call of the
// bash tool that appends the iteration's number to work.txt and commits it; the turn after
// the tool's result is a final text without a tool call, which ends the iteration. Each
// answer carries usage figures. On SIGTERM or SIGINT it stops, and writes to the stats
// file (else stderr) the requests it answered and the most it answered at once.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"syscall"
	"time"
)

// command is what the model runs on a conversation's first turn: one line, one commit.
const command = `echo "iteration $RALPH_ITERATION" >>work.txt && git commit -qm "iteration $RALPH_ITERATION" work.txt`

type obj = map[string]any

// counter counts the requests answered and the most in flight at once.
type counter struct {
	mu                  sync.Mutex
	total, now, maximum int
}

func (c *counter) enter() {
	c.mu.Lock()
	c.total++
	c.now++
	c.maximum = max(c.maximum, c.now)
	c.mu.Unlock()
}

func (c *counter) leave() {
	c.mu.Lock()
	c.now--
	c.mu.Unlock()
}

func main() {
	latency := flag.Duration("latency", 2*time.Second, "how long each answer waits before it streams")
	portFile := flag.String("port-file", "", "write the port to `FILE` once listening")
	statsFile := flag.String("stats", "", "write the counts to `FILE` on exit instead of stderr")
	flag.Parse()
	if *portFile == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: apimock [-latency 2s] -port-file FILE [-stats FILE]")
		os.Exit(2)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, "apimock:", err)
		os.Exit(1)
	}
	var count counter
	mux := http.NewServeMux()
	mux.HandleFunc("POST /v1/chat/completions", func(w http.ResponseWriter, r *http.Request) {
		count.enter()
		defer count.leave()
		answer(w, r, *latency)
	})
	srv := &http.Server{Handler: mux}
	go srv.Serve(ln)
	if err := writePort(*portFile, ln.Addr().(*net.TCPAddr).Port); err != nil {
		fmt.Fprintln(os.Stderr, "apimock:", err)
		os.Exit(1)
	}
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	<-stop
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	srv.Shutdown(ctx)
	count.mu.Lock()
	line := fmt.Sprintf("requests %d, at once at most %d\n", count.total, count.maximum)
	count.mu.Unlock()
	if *statsFile == "" {
		os.Stderr.WriteString(line)
	} else {
		os.WriteFile(*statsFile, []byte(line), 0o644)
	}
}

// writePort writes the port beside FILE and renames it over FILE, so that a reader never
// sees half of it.
func writePort(file string, port int) error {
	if err := os.WriteFile(file+".tmp", fmt.Appendf(nil, "%d\n", port), 0o644); err != nil {
		return err
	}
	return os.Rename(file+".tmp", file)
}

// answer reads the conversation, waits the latency, and streams the next turn: a bash
// call when the last message is not a tool's result, else the final text.
func answer(w http.ResponseWriter, r *http.Request, latency time.Duration) {
	body, err := io.ReadAll(r.Body)
	var req struct {
		Messages []struct {
			Role string `json:"role"`
		} `json:"messages"`
	}
	if err != nil || json.Unmarshal(body, &req) != nil || len(req.Messages) == 0 {
		http.Error(w, `{"error":{"message":"bad request","type":"invalid_request_error"}}`, http.StatusBadRequest)
		return
	}
	select {
	case <-time.After(latency):
	case <-r.Context().Done():
		return
	}
	toolDone := req.Messages[len(req.Messages)-1].Role == "tool"
	w.Header().Set("content-type", "text/event-stream")
	bw := bufio.NewWriter(w)
	event := func(v any) {
		b, _ := json.Marshal(v)
		fmt.Fprintf(bw, "data: %s\n\n", b)
	}
	chunk := func(delta obj, finish any) {
		event(obj{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "model": "mock",
			"choices": []any{obj{"index": 0, "delta": delta, "finish_reason": finish}}})
	}
	chunk(obj{"role": "assistant", "content": ""}, nil)
	finish := "stop"
	if toolDone {
		chunk(obj{"content": "Committed this iteration's line."}, nil)
	} else {
		args, _ := json.Marshal(obj{"command": command})
		chunk(obj{"tool_calls": []any{obj{"index": 0, "id": fmt.Sprintf("call_%d", len(req.Messages)), "type": "function",
			"function": obj{"name": "bash", "arguments": string(args)}}}}, nil)
		finish = "tool_calls"
	}
	chunk(obj{}, finish)
	prompt := int64(len(body) / 4) // about four bytes a token
	event(obj{"id": "chatcmpl-mock", "object": "chat.completion.chunk", "choices": []any{},
		"usage": obj{"prompt_tokens": prompt, "completion_tokens": 40, "total_tokens": prompt + 40}})
	fmt.Fprint(bw, "data: [DONE]\n\n")
	bw.Flush()
}
