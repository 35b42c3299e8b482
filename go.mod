module github.com/git-ralph/git-ralph

go 1.26.8

require github.com/alecthomas/kong v1.17.0

require (
	github.com/rogpeppe/go-internal v1.16.0 // indirect
	golang.org/x/sys v0.26.0 // indirect
	golang.org/x/tools v0.26.0 // indirect
)
