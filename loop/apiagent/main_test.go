package apiagent

import (
	"testing"

	"github.com/git-ralph/git-ralph/gitops/gittest"
)

func TestMain(m *testing.M) { gittest.Main(m, nil) }
