package history

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func TestSavePromptKeepsTheWholeOfASmallPromptRedacted(t *testing.T) {
	s, n := storeWithIteration(t)
	prompt := "Build.\nkey: sk-ant-api03-abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGH\n"
	cut, err := s.SavePrompt(n, prompt)
	if err != nil || cut != 0 {
		t.Fatalf("SavePrompt = %d, %v", cut, err)
	}
	got, err := s.ReadPrompt(n)
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(got), "sk-ant") || !strings.HasPrefix(string(got), "Build.\nkey: [REDACTED:") {
		t.Errorf("kept prompt = %q, want it whole with the key redacted", got)
	}
}

func TestSavePromptBoundsALargeOneKeepingBothEnds(t *testing.T) {
	s, n := storeWithIteration(t)
	// no line break anywhere, and a character of three bytes at every cut
	prompt := "BEGIN" + strings.Repeat("€", PromptLimit) + "END"
	cut, err := s.SavePrompt(n, prompt)
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.ReadPrompt(n)
	if err != nil {
		t.Fatal(err)
	}
	text := string(got)
	switch {
	case len(got) > PromptLimit+200:
		t.Errorf("kept %d bytes, want about %d", len(got), PromptLimit)
	case !strings.HasPrefix(text, "BEGIN") || !strings.HasSuffix(text, "END"):
		t.Errorf("kept prompt lost its beginning or its end")
	case !utf8.ValidString(text):
		t.Errorf("a cut split a character")
	case !strings.Contains(text, "bytes of the prompt left out here"):
		t.Errorf("no note of what was left out")
	case cut != len(prompt)-(len(text)-len(noteOf(text))):
		t.Errorf("cut = %d, but the file lacks %d bytes of the prompt", cut, len(prompt)-(len(text)-len(noteOf(text))))
	}
}

// noteOf is the line boundPrompt puts where it left bytes out.
func noteOf(text string) string {
	i := strings.Index(text, "\n[git-ralph: ")
	j := strings.Index(text[i+1:], "\n")
	return text[i : i+1+j+1]
}

func TestSavePromptIsNotWrittenThroughASymlink(t *testing.T) {
	s, n := storeWithIteration(t)
	outside := filepath.Join(t.TempDir(), "elsewhere")
	if err := os.WriteFile(outside, []byte("mine\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(outside, s.PromptPath(n)); err != nil {
		t.Fatal(err)
	}
	if _, err := s.SavePrompt(n, "Build.\n"); err != nil {
		t.Fatal(err)
	}
	if data, _ := os.ReadFile(outside); string(data) != "mine\n" {
		t.Errorf("the file the symlink led to became %q", data)
	}
	if got, err := s.ReadPrompt(n); err != nil || string(got) != "Build.\n" {
		t.Errorf("ReadPrompt = %q, %v", got, err)
	}
}

func storeWithIteration(t *testing.T) (*Store, int) {
	t.Helper()
	s, err := OpenStore(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.Next()
	if err != nil {
		t.Fatal(err)
	}
	return s, n
}

// BenchmarkSavePrompt is what keeping a prompt adds to an iteration, for a usual prompt
// and for the largest prompt files allow.
func BenchmarkSavePrompt(b *testing.B) {
	for _, size := range []int{16 << 10, 16 << 20} {
		prompt := strings.Repeat("a line of a prompt that goes on for a while, 0123456789\n", size/56)
		b.Run(strconv.Itoa(size>>10)+"KiB", func(b *testing.B) {
			s, err := OpenStore(b.TempDir())
			if err != nil {
				b.Fatal(err)
			}
			n, err := s.Next()
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(prompt)))
			for b.Loop() {
				if _, err := s.SavePrompt(n, prompt); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
