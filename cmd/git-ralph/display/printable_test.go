package display

import "testing"

func TestPrintable(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"plain", "make test", "make test"},
		{"unicode", "echo héllo ✓", "echo héllo ✓"},
		{"empty", "", ""},
		{"carriage return and erase line", "touch /tmp/PWN #\r\x1b[2K  validate   make test", `"touch /tmp/PWN #\r\x1b[2K  validate   make test"`},
		{"line break", "make\nrm -rf ~", `"make\nrm -rf ~"`},
		{"tab", "a\tb", `"a\tb"`},
		{"C1 control (CSI)", "a\u009b2Kb", `"a\u009b2Kb"`},
		{"bidirectional override", "echo \u202e;tset", `"echo \u202e;tset"`},
		{"zero-width space", "make\u200btest", `"make\u200btest"`},
		{"invalid UTF-8", "a\xffb", `"a\xffb"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := Printable(tc.in); got != tc.want {
				t.Errorf("printable(%q) = %s, want %s", tc.in, got, tc.want)
			}
		})
	}
}

func TestPrintableText(t *testing.T) {
	in := "# Build\n\tstep one\r\x1b[2Kall is well\n\u202eevil \xff done ✓\n"
	want := "# Build\n\tstep one\\r\\x1b[2Kall is well\n\\u202eevil \\xff done ✓\n"
	if got := PrintableText(in); got != want {
		t.Errorf("printableText() = %q, want %q", got, want)
	}
}
