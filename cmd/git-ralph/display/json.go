package display

import (
	"encoding/json"
	"fmt"
	"io"
)

// JSON writes v as indented JSON for a command's --json, a line of its own; a nil slice
// (no records) is [].
func JSON(w io.Writer, v any) error {
	data, err := json.MarshalIndent(v, "", "  ")
	if err != nil {
		return fmt.Errorf("encoding JSON: %w", err)
	}
	if string(data) == "null" {
		data = []byte("[]")
	}
	_, err = fmt.Fprintf(w, "%s\n", data)
	return err
}
