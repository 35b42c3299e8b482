package apiagent

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"strings"
)

// ReadExchange reads back the Result of an iteration from the JSON lines Run wrote to
// Request.Out: what the model said, its turns, the usage and the failure, as Run returned
// them. A view, a replay or a later reading of the output log needs nothing else. The
// lines are read as untrusted: a line that is not a Record is an error naming it.
func ReadExchange(r io.Reader) (Result, error) {
	var res Result
	var said []string
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), maxEvent)
	for n := 1; sc.Scan(); n++ {
		if len(strings.TrimSpace(sc.Text())) == 0 {
			continue
		}
		var rec Record
		if err := json.Unmarshal(sc.Bytes(), &rec); err != nil || rec.Type == "" {
			return res, fmt.Errorf("line %d of the exchange is not a record: %.80q", n, sc.Text())
		}
		switch rec.Type {
		case RecStart:
			res.Model = rec.Model
		case RecText:
			said = append(said, rec.Text)
			res.Final = rec.Text
		case RecUsage:
			res.Turns = rec.Turn
		case RecError:
			res.Err = &Error{Kind: kindNamed(rec.Kind), Status: rec.Status, Message: rec.Message, Permanent: rec.Permanent}
			if rec.ResetAt != nil {
				res.Err.ResetAt = *rec.ResetAt
			}
		case RecEnd:
			if rec.Usage != nil {
				res.Usage = *rec.Usage
			}
			if rec.CostUSD != nil {
				res.CostUSD, res.HasCost = *rec.CostUSD, true
			}
		}
	}
	res.Said = strings.Join(said, "\n")
	return res, sc.Err()
}

// kindNamed is the Kind a record names; an unknown name reads as Fatal.
func kindNamed(name string) Kind {
	for k, n := range kindNames {
		if n == name {
			return k
		}
	}
	return Fatal
}
