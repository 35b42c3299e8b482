package doctor

import (
	"strings"
	"testing"
)

func TestPrintDoctorMarksAndHints(t *testing.T) {
	results := []Result{
		{Name: "agent", Status: OK, Detail: "claude found at /bin/claude"},
		{Name: "agent-login", Status: Warn, Detail: "unknown", Hint: "run it\nby hand"},
		{Name: "trust", Status: Fail, Detail: "not approved\x1b[2K", Hint: "git ralph trust"},
	}
	var ascii, marks strings.Builder
	if err := Print(&ascii, results, false); err != nil {
		t.Fatal(err)
	}
	want := "ok   agent        claude found at /bin/claude\n" +
		"warn agent-login  unknown\n" +
		"                  hint: run it\n" +
		"                  hint: by hand\n" +
		"FAIL trust        \"not approved\\x1b[2K\"\n" +
		"                  hint: git ralph trust\n" +
		"1 check failed (1 warning): an unattended run would fail\n"
	if ascii.String() != want {
		t.Errorf("got\n%s\nwant\n%s", ascii.String(), want)
	}
	if err := Print(&marks, results[:1], true); err != nil {
		t.Fatal(err)
	}
	if marks.String() != "✓ agent  claude found at /bin/claude\nready for an unattended run\n" {
		t.Errorf("got\n%s", marks.String())
	}
}

func TestUTF8Locale(t *testing.T) {
	tests := []struct {
		env  map[string]string
		want bool
	}{
		{nil, false},
		{map[string]string{"LANG": "en_US.UTF-8"}, true},
		{map[string]string{"LANG": "de_DE.utf8"}, true},
		{map[string]string{"LANG": "C"}, false},
		{map[string]string{"LC_ALL": "C", "LANG": "en_US.UTF-8"}, false},
		{map[string]string{"LC_CTYPE": "C.UTF-8", "LANG": "C"}, true},
	}
	for _, tt := range tests {
		if got := UTF8Locale(func(k string) string { return tt.env[k] }); got != tt.want {
			t.Errorf("%v: got %v", tt.env, got)
		}
	}
}
