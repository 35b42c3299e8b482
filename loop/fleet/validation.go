package fleet

import (
	"fmt"
	"strings"
)

// ValidationResult is what a candidate's last validation came to, as the ranking orders it.
type ValidationResult int

// The results of a validation, in the ranking's order after ValidationPassed: a candidate
// whose validation never ran ranks before one whose validation failed.
const (
	ValidationNone   ValidationResult = iota // no validate command ran (none configured, or no iteration)
	ValidationPassed                         // the last iteration's validation passed
	ValidationFailed                         // it failed, or timed out
)

var validationWords = [...]string{ValidationNone: "none", ValidationPassed: "passed", ValidationFailed: "failed"}

// String is the result's word in the ranking's file: none, passed, failed.
func (v ValidationResult) String() string {
	if v < 0 || int(v) >= len(validationWords) {
		return fmt.Sprintf("ValidationResult(%d)", int(v))
	}
	return validationWords[v]
}

// MarshalText writes the result's word, so that the ranking's file reads as text.
func (v ValidationResult) MarshalText() ([]byte, error) {
	if v < 0 || int(v) >= len(validationWords) {
		return nil, fmt.Errorf("no validation result %d", int(v))
	}
	return []byte(validationWords[v]), nil
}

// UnmarshalText reads a result's word; any other is an error that names the words.
func (v *ValidationResult) UnmarshalText(b []byte) error {
	for i, w := range validationWords {
		if string(b) == w {
			*v = ValidationResult(i)
			return nil
		}
	}
	return fmt.Errorf("%q is no validation result (none, passed, failed)", clip(string(b), 40))
}

// Validation is a candidate's last validation: its result and the record's words for it
// ("passed", "failed: exit code 2", "timed out after 10m0s"; "" when none ran).
type Validation struct {
	Result ValidationResult `toml:"result"`
	Detail string           `toml:"detail,omitempty"`
}

// ValidationOf reads an iteration record's validation words: "" none ran, "passed", and
// anything else (failed, timed out) a failure, its words kept as the detail.
func ValidationOf(recorded string) Validation {
	switch strings.TrimSpace(recorded) {
	case "":
		return Validation{}
	case "passed":
		return Validation{Result: ValidationPassed, Detail: "passed"}
	}
	return Validation{Result: ValidationFailed, Detail: recorded}
}

// Text is the validation as the ranking shows it: its words, "-" when none ran.
func (v Validation) Text() string {
	switch {
	case v.Detail != "":
		return v.Detail
	case v.Result == ValidationNone:
		return "-"
	}
	return v.Result.String()
}
