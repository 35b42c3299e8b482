package reporting

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"strconv"
	"strings"
	"time"
	"unicode"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/display"
)

// logTimeLayout is how `git ralph logs` shows a record's time, in local time.
const logTimeLayout = "2006-01-02 15:04:05"

// logRecord is one slog JSON record, flattened for reading: its time, level and message,
// then the other attributes in the order the file has them, nested groups as a.b=….
type logRecord struct {
	time, level, msg string
	run              string // the top-level "run" attribute, for --run
	attrs            []logAttr
}

// logAttr is one attribute with its value ready to print.
type logAttr struct{ key, value string }

// parseLogRecord reads one line of the structured log; ok is false when the line is not a
// JSON object (a torn last line, or something a person wrote into the file).
func parseLogRecord(line []byte) (rec logRecord, ok bool) {
	dec := json.NewDecoder(bytes.NewReader(line))
	dec.UseNumber()
	err := flattenObject(dec, "", func(key string, raw json.RawMessage) { rec.add(key, raw) })
	if err != nil {
		return logRecord{}, false
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return logRecord{}, false // something follows the object
	}
	return rec, true
}

// add takes one flattened attribute: the top-level time, level and msg strings have their
// own places; everything else is an attribute.
func (rec *logRecord) add(key string, raw json.RawMessage) {
	s, isString := jsonString(raw)
	switch {
	case key == "time" && isString && rec.time == "":
		rec.time = s
		return
	case key == "level" && isString && rec.level == "":
		rec.level = s
		return
	case key == "msg" && isString && rec.msg == "":
		rec.msg = s
		return
	case key == "run" && isString:
		rec.run = s
	}
	rec.attrs = append(rec.attrs, logAttr{key: quoteIfNeeded(key), value: formatLogValue(raw)})
}

// flattenObject reads a JSON object from dec token by token, so that the attributes keep
// the file's order, and calls add for each leaf with its dotted key.
func flattenObject(dec *json.Decoder, prefix string, add func(string, json.RawMessage)) error {
	if tok, err := dec.Token(); err != nil || tok != json.Delim('{') {
		return errors.New("not a JSON object")
	}
	empty := true
	for dec.More() {
		empty = false
		tok, err := dec.Token()
		if err != nil {
			return err
		}
		key, _ := tok.(string) // inside an object, the decoder only yields string keys
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return err
		}
		if len(raw) > 0 && raw[0] == '{' {
			nested := json.NewDecoder(bytes.NewReader(raw))
			nested.UseNumber()
			if err := flattenObject(nested, prefix+key+".", add); err != nil {
				return err
			}
			continue
		}
		add(prefix+key, raw)
	}
	if empty && prefix != "" {
		add(strings.TrimSuffix(prefix, "."), json.RawMessage("{}"))
	}
	_, err := dec.Token() // the closing brace
	return err
}

// jsonString is raw's value when raw is a JSON string.
func jsonString(raw json.RawMessage) (string, bool) {
	if len(raw) == 0 || raw[0] != '"' {
		return "", false
	}
	var s string
	return s, json.Unmarshal(raw, &s) == nil
}

// formatLogValue shows a string as it is unless it needs quotes; numbers, booleans and
// null as JSON writes them; arrays as compact JSON.
func formatLogValue(raw json.RawMessage) string {
	if s, ok := jsonString(raw); ok {
		return quoteIfNeeded(s)
	}
	var buf bytes.Buffer
	if json.Compact(&buf, raw) != nil {
		return string(raw)
	}
	return buf.String()
}

// quoteIfNeeded quotes s (Go syntax) when it is empty or holds a space, a quote, an equals
// sign or a character that does not print, so that key=value pairs stay unambiguous and no
// control character reaches the terminal.
func quoteIfNeeded(s string) string {
	if s == "" || strings.ContainsFunc(s, func(r rune) bool {
		return unicode.IsSpace(r) || r == '"' || r == '=' || !unicode.IsPrint(r)
	}) {
		return strconv.Quote(s)
	}
	return s
}

// format is the human line: local time, level padded to five, message, attributes.
func (rec logRecord) format(loc *time.Location) string {
	var b strings.Builder
	if rec.time != "" {
		b.WriteString(formatLogTime(rec.time, loc) + " ")
	}
	if rec.level != "" {
		b.WriteString(padRight(display.Printable(rec.level), 5) + " ")
	}
	b.WriteString(display.Printable(rec.msg))
	for _, a := range rec.attrs {
		b.WriteString(" " + a.key + "=" + a.value)
	}
	return strings.TrimRight(b.String(), " ")
}

// formatLogTime shows an RFC 3339 time in loc to the second; anything else as it is.
func formatLogTime(s string, loc *time.Location) string {
	t, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		return quoteIfNeeded(s)
	}
	return t.In(loc).Format(logTimeLayout)
}

func padRight(s string, width int) string {
	if n := len([]rune(s)); n < width {
		return s + strings.Repeat(" ", width-n)
	}
	return s
}
