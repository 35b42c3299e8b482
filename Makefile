# The go tool is the build system; these are shortcuts.
BIN := $(or $(shell go env GOBIN),$(shell go env GOPATH)/bin)

.PHONY: install test
install:  ## git-ralph on PATH (so `git ralph` works) and its man page (so `git help ralph` works)
	go install ./cmd/git-ralph
	$(BIN)/git-ralph man --install

test:
	go test -race -timeout 30m ./...
