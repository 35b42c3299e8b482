package config

import (
	"bytes"
	"fmt"
	"sort"
	"strconv"
	"strings"

	"github.com/pelletier/go-toml/v2"
	"github.com/pelletier/go-toml/v2/unstable"
)

// item is one definition in a TOML document, in document order: a table header, an
// inline table, or a key with its value. Dotted keys and table headers are expanded
// into full paths.
type item struct {
	path   []string
	line   int
	header bool // a [table] or [[table]] header
	value  any  // string, int64, bool, tomlFloat, tomlDate, []any, tomlTable or tomlArrayTable
}

// Markers for TOML values that no key accepts (only their type matters), and floats,
// which the money keys take.
type (
	tomlFloat struct {
		v  float64
		ok bool // v holds the value: false for an integer too large for int64
	}
	tomlDate       struct{}
	tomlTable      struct{}
	tomlArrayTable struct{}
)

// maxDefinitions bounds the keys and tables of one file. go-toml's decoder checks each
// new key against its siblings one by one, so a file of n definitions takes time in n²:
// 116,000 tables in 1 MiB took 40 s. 5,000 take well under a second, and a real config
// holds a few dozen.
const maxDefinitions = 5000

// ErrTooManyDefinitions is a file with more than maxDefinitions keys and tables.
var ErrTooManyDefinitions = fmt.Errorf("it defines more than %d keys and tables", maxDefinitions)

// parseTOML decodes data into items. Syntax errors, duplicate keys and tables defined
// twice come back as go-toml errors (*toml.DecodeError).
func parseTOML(data []byte) ([]item, error) {
	// The AST keeps the lines and costs time in proportion to the file; it goes first,
	// so that a file too big for the full decoder is refused before that runs.
	items, astErr := parseAST(data)
	if len(items) > maxDefinitions {
		return nil, ErrTooManyDefinitions
	}
	// The full decoder applies every rule of the TOML spec (duplicates, redefined
	// tables, impossible dates, integer overflow).
	var check map[string]any
	if err := toml.Unmarshal(data, &check); err != nil {
		return nil, err
	}
	return items, astErr
}

// parseAST lists data's items in document order, stopping at the first syntax error or
// once there are more than maxDefinitions.
func parseAST(data []byte) ([]item, error) {
	d := astDecoder{lines: lineStarts(data)}
	var p unstable.Parser
	p.Reset(data)
	var prefix []string
	for len(d.items) <= maxDefinitions && p.NextExpression() {
		n := p.Expression()
		switch n.Kind {
		case unstable.Table, unstable.ArrayTable:
			prefix = keyPath(nil, n)
			it := item{path: prefix, line: d.lineOfKey(n), header: true, value: tomlTable{}}
			if n.Kind == unstable.ArrayTable {
				it.value = tomlArrayTable{}
			}
			d.items = append(d.items, it)
		case unstable.KeyValue:
			d.keyValue(prefix, n)
		}
	}
	return d.items, p.Error()
}

type astDecoder struct {
	lines []int // offset at which each line starts
	items []item
}

// keyValue adds a key's item, expanding inline tables into one item per key.
func (d *astDecoder) keyValue(prefix []string, n *unstable.Node) {
	path := keyPath(prefix, n)
	line := d.lineAt(int(n.Raw.Offset))
	v := n.Value()
	if v.Kind != unstable.InlineTable {
		d.items = append(d.items, item{path: path, line: line, value: convert(v)})
		return
	}
	d.items = append(d.items, item{path: path, line: line, value: tomlTable{}})
	it := v.Children()
	for it.Next() {
		if kv := it.Node(); kv.Kind == unstable.KeyValue {
			d.keyValue(path, kv)
		}
	}
}

// keyPath appends the parts of a node's (possibly dotted) key to a copy of prefix.
func keyPath(prefix []string, n *unstable.Node) []string {
	path := append([]string(nil), prefix...)
	it := n.Key()
	for it.Next() {
		path = append(path, string(it.Node().Data))
	}
	return path
}

func (d *astDecoder) lineOfKey(n *unstable.Node) int {
	if k := n.Child(); k != nil {
		return d.lineAt(int(k.Raw.Offset))
	}
	return 0
}

// lineAt is the 1-based line of a byte offset.
func (d *astDecoder) lineAt(offset int) int {
	return sort.SearchInts(d.lines, offset+1)
}

func lineStarts(data []byte) []int {
	starts := []int{0}
	for i := bytes.IndexByte(data, '\n'); i >= 0; {
		starts = append(starts, starts[len(starts)-1]+i+1)
		i = bytes.IndexByte(data[starts[len(starts)-1]:], '\n')
	}
	return starts
}

// convert turns a value node into a Go value; see item.value.
func convert(n *unstable.Node) any {
	switch n.Kind {
	case unstable.String:
		return string(n.Data)
	case unstable.Integer:
		i, err := strconv.ParseInt(string(n.Data), 0, 64) // base 0: 0x, 0o, 0b, underscores
		if err != nil {
			return tomlFloat{} // out of range; the full decoder rejects it first
		}
		return i
	case unstable.Bool:
		return string(n.Data) == "true"
	case unstable.Float:
		f, err := strconv.ParseFloat(strings.ReplaceAll(string(n.Data), "_", ""), 64) // also inf and nan
		return tomlFloat{v: f, ok: err == nil}
	case unstable.Array:
		list := []any{}
		it := n.Children()
		for it.Next() {
			list = append(list, convert(it.Node()))
		}
		return list
	case unstable.InlineTable:
		return tomlTable{}
	}
	return tomlDate{}
}
