package agent

import (
	"bytes"
	"fmt"
	"testing"
)

func TestTailKeepsTheEnd(t *testing.T) {
	tests := []struct {
		name   string
		max    int
		writes []string
		want   string
	}{
		{"under the limit", 10, []string{"abc", "def"}, "abcdef"},
		{"exactly full", 6, []string{"abc", "def"}, "abcdef"},
		{"wraps across writes", 5, []string{"abc", "def", "gh"}, "defgh"},
		{"one write larger than the ring", 4, []string{"ab", "cdefghij"}, "ghij"},
		{"many small writes", 3, []string{"a", "b", "c", "d", "e", "f", "g"}, "efg"},
		{"wrap exactly at the end", 4, []string{"abcd", "efgh"}, "efgh"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tail := NewTail(tt.max)
			var total int
			for _, w := range tt.writes {
				tail.Write([]byte(w))
				total += len(w)
			}
			if got := string(tail.Bytes()); got != tt.want {
				t.Errorf("Bytes() = %q, want %q", got, tt.want)
			}
			if tail.Total() != int64(total) {
				t.Errorf("Total() = %d, want %d", tail.Total(), total)
			}
			if tail.Truncated() != (total > tt.max) {
				t.Errorf("Truncated() = %v with %d of %d bytes", tail.Truncated(), total, tt.max)
			}
		})
	}
}

func TestTailMatchesSuffixForRandomWriteSizes(t *testing.T) {
	var all bytes.Buffer
	tail := NewTail(1000)
	for i := 0; i < 500; i++ {
		chunk := []byte(fmt.Sprintf("%d:%s|", i, bytes.Repeat([]byte{'x'}, i*7%311)))
		all.Write(chunk)
		tail.Write(chunk)
		want := all.Bytes()
		if len(want) > 1000 {
			want = want[len(want)-1000:]
		}
		if !bytes.Equal(tail.Bytes(), want) {
			t.Fatalf("after write %d the tail differs from the stream's last bytes", i)
		}
	}
}

func TestTailNeverHoldsMoreThanMax(t *testing.T) {
	tail := NewTail(10_000)
	chunk := bytes.Repeat([]byte("y"), 3000)
	for i := 0; i < 50; i++ {
		tail.Write(chunk)
		if cap(tail.buf) > 10_000 {
			t.Fatalf("after %d writes the ring has capacity %d, more than its 10000-byte limit", i+1, cap(tail.buf))
		}
	}
}

func TestTailBytesThenMoreWrites(t *testing.T) {
	tail := NewTail(4)
	tail.Write([]byte("abcdef"))
	tail.Write([]byte("gh"))
	if got := string(tail.Bytes()); got != "efgh" {
		t.Fatalf("Bytes() = %q", got)
	}
	tail.Write([]byte("ij"))
	if got := string(tail.Bytes()); got != "ghij" {
		t.Errorf("after rotating and writing again Bytes() = %q, want ghij", got)
	}
}
