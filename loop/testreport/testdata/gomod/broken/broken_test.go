// A package that does not build: go test -json reports its failure as the package's.
package broken

import "testing"

func TestNeverRuns(t *testing.T) { undefinedName() }
