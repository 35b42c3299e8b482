package doctor

// Status is how a check came out.
type Status string

const (
	// OK: nothing to do.
	OK Status = "ok"
	// Warn: worth knowing, but an unattended run would not fail for it (or the check
	// could not tell: an unknown is a warning, never a failure).
	Warn Status = "warn"
	// Fail: an unattended run would fail, or do nothing, because of it.
	Fail Status = "fail"
)

// Result is one check's line: its name, how it came out, what it found and how to fix it.
type Result struct {
	Name   string `json:"name"`
	Status Status `json:"status"`
	Detail string `json:"detail"`
	Hint   string `json:"hint,omitempty"`
}

// Failed reports whether any result is a failure.
func Failed(results []Result) bool {
	for _, r := range results {
		if r.Status == Fail {
			return true
		}
	}
	return false
}

func ok(name, detail string) Result { return Result{Name: name, Status: OK, Detail: detail} }

func warn(name, detail, hint string) Result {
	return Result{Name: name, Status: Warn, Detail: detail, Hint: hint}
}

func fail(name, detail, hint string) Result {
	return Result{Name: name, Status: Fail, Detail: detail, Hint: hint}
}
