package main

import (
	"fmt"

	"github.com/alecthomas/kong"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/help"
)

// CompletionCmd is `git ralph completion bash|zsh|fish`. The script is generated from
// the command-line model when it runs, so every command and flag is covered as soon as
// it exists.
type CompletionCmd struct {
	Shell string `arg:"" enum:"bash,zsh,fish" help:"The shell to print the completion script for: bash, zsh or fish."`
}

// Run prints the completion script for the chosen shell.
func (c *CompletionCmd) Run(s Streams, k *kong.Kong) error {
	script, err := help.Completion(c.Shell, version, k.Model)
	if err != nil {
		return err
	}
	_, err = fmt.Fprint(s.Stdout, script)
	return err
}

// Help is the detail of `git ralph completion -h`: where each shell finds the script.
func (c *CompletionCmd) Help() string {
	return `Install it once; it covers "git ralph" and "git-ralph":

  bash: git ralph completion bash > ~/.local/share/bash-completion/completions/git-ralph
  zsh:  git ralph completion zsh > ~/.zfunc/_git-ralph  (with fpath=(~/.zfunc $fpath) before compinit in ~/.zshrc)
  fish: git ralph completion fish > ~/.config/fish/conf.d/git-ralph.fish`
}
