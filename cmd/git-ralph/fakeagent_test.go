package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"
)

// fakeAgent is an agent for the stories, for what a shell one-liner does badly:
//
//	fake-agent flood BYTES end|start|none  print BYTES of filler with the SUCCESS tag at
//	                                       the end, at the start, or nowhere
//	fake-agent split                       print the SUCCESS tag in two writes
func fakeAgent(args []string) int {
	io.Copy(io.Discard, os.Stdin) // an agent reads its prompt
	if len(args) == 0 {
		fmt.Fprintln(os.Stderr, "usage: fake-agent flood|split ...")
		return 2
	}
	switch args[0] {
	case "flood":
		return flood(args[1:])
	case "split":
		os.Stdout.WriteString("working...\n<promise>SUCC")
		time.Sleep(100 * time.Millisecond)
		os.Stdout.WriteString("ESS</promise>\n")
		return 0
	}
	fmt.Fprintf(os.Stderr, "fake-agent: unknown behaviour %q\n", args[0])
	return 2
}

func flood(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "usage: fake-agent flood BYTES end|start|none")
		return 2
	}
	total, err := strconv.Atoi(args[0])
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	tag := "<promise>SUCCESS</promise>\n"
	if args[1] == "start" {
		os.Stdout.WriteString(tag)
	}
	line := bytes.Repeat([]byte("filler output from a chatty agent "), 2)
	line = append(line, '\n')
	chunk := bytes.Repeat(line, 64*1024/len(line))
	for written := 0; written < total; written += len(chunk) {
		os.Stdout.Write(chunk)
	}
	if args[1] == "end" {
		os.Stdout.WriteString(tag)
	}
	return 0
}
