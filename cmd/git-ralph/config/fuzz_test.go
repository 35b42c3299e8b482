package config

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzLoad writes arbitrary bytes as the repository file: Load must not panic, and must
// return a usable Config or an *Error.
func FuzzLoad(f *testing.F) {
	for _, seed := range []string{
		"",
		"max_iterations = 3\nunlimited = true\n[modes.plan]\nprompt = \"p.md\"\nvalidate = \"go test ./...\"\n",
		"modes.plan.max_iterations = 0x10\nmodes = 3\n",
		"modes = { review = { validate = \"lint\",\n max_iterations = 4 } }\n",
		"[agents.claude]\nargs = []\nextra_args = [\"--model\", \"opus\"]\n[hooks]\ntimeout = \"1m\"\non_complete = \"x\"\n",
		"[[modes]]\nplan = 1\n",
		"max_output_buffer = \"10MB\"\niteration_timeout = 30\n",
		"backoff_base = \"2m\"\n",
		"prompt = \"a\"\nprompts = [\"b\", [1, {a = 2}], 1979-05-27T07:32:00Z]\n",
		"[modes.\"\"]\n[agents.\"\"]\n",
		"a = [1,\n",
		"validate = \"\xff\"\n",
		"push = true\npush = false\n",
		"\"\" = 1\n",
		"[modes.plan.mode]\n",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		root := t.TempDir()
		path := filepath.Join(root, ".ralph", "config.toml")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		c, err := Load(Sources{RepoRoot: root, Flags: []Flag{{Key: "mode", Name: "--mode", Raw: "plan"}}})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) {
				t.Fatalf("Load error %T %v is not an *Error", err, err)
			}
			if e.Hint() == "" || e.File != RepoFile {
				t.Fatalf("error %q: hint %q, file %q", e, e.Hint(), e.File)
			}
			return
		}
		if c == nil {
			t.Fatal("Load returned neither a Config nor an error")
		}
		if len(c.Entries()) < 19 {
			t.Fatalf("only %d entries", len(c.Entries()))
		}
		c.RepoCommands()
		if c.MaxIterations.V < 0 || c.BackoffMax.V < c.BackoffBase.V {
			t.Fatalf("invalid config accepted: %+v", c)
		}
	})
}
