package main

import (
	"bytes"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdWebhook is `webhook NAME STATUS`: a web server on 127.0.0.1 for the rest of the
// story that answers every request with STATUS and appends each request's JSON body, one
// line each, to $WORK/NAME.jsonl (before it answers, so a sender that waited for the
// answer finds it there). $NAME is set to its URL; `webhook NAME closed` sets $NAME to
// a URL where nothing listens.
func cmdWebhook(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 2 {
		ts.Fatalf("usage: webhook NAME STATUS|closed")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	ts.Check(err)
	url := "http://" + ln.Addr().String() + "/" + args[0]
	if args[1] == "closed" {
		ln.Close()
		ts.Setenv(args[0], url)
		return
	}
	status, err := strconv.Atoi(args[1])
	ts.Check(err)
	record := filepath.Join(ts.Getenv("WORK"), args[0]+".jsonl")
	var mu sync.Mutex
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		var line bytes.Buffer
		if json.Compact(&line, body) != nil {
			line.WriteString(strconv.Quote(string(body)))
		}
		line.WriteByte('\n')
		mu.Lock()
		f, err := os.OpenFile(record, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o644)
		if err == nil {
			f.Write(line.Bytes())
			f.Close()
		}
		mu.Unlock()
		w.WriteHeader(status)
		io.WriteString(w, http.StatusText(status)+"\n")
	})}
	go srv.Serve(ln)
	ts.Defer(func() { srv.Close() })
	ts.Setenv(args[0], url)
}
