module github.com/git-ralph/git-ralph

go 1.26.8
