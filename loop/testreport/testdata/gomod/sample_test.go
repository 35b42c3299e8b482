// A real Go test package whose `go test -json` output the parser's tests read: one
// test passes, one fails, one is skipped, and one has a passing and a failing subtest.
package sample

import "testing"

func TestPasses(t *testing.T) {}

func TestFails(t *testing.T) { t.Fatal("want 4, got 5") }

func TestSkipped(t *testing.T) { t.Skip("not on this machine") }

func TestTable(t *testing.T) {
	t.Run("good", func(t *testing.T) {})
	t.Run("bad", func(t *testing.T) { t.Error("wrong") })
}
