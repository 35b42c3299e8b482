package history

import (
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// The similarity figures survive the record file, and a percentage of 0 is kept apart
// from one that was not measured.
func TestSimilaritySavedWithTheRecord(t *testing.T) {
	s := openStore(t, t.TempDir())
	n := next(t, s)
	rec := sampleRecord(n)
	zero, full := 0, 100
	rec.Similarity = &Similarity{Message: &zero, Validation: &full, Oscillation: true, Repeats: 2, Nudged: true}
	if err := s.Save(rec); err != nil {
		t.Fatal(err)
	}
	got, err := s.Get(n)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got.Similarity, rec.Similarity) {
		t.Errorf("Similarity read back = %+v, want %+v", got.Similarity, rec.Similarity)
	}
	b, _ := json.Marshal(got.Similarity)
	if want := `{"message":0,"validation":100,"oscillation":true,"repeats":2,"nudged":true}`; string(b) != want {
		t.Errorf("JSON = %s, want %s", b, want)
	}
	unmeasured, _ := json.Marshal(Similarity{Repeats: 1})
	if want := `{"repeats":1}`; string(unmeasured) != want {
		t.Errorf("JSON of nothing measured = %s, want %s", unmeasured, want)
	}
	file, _ := os.ReadFile(filepath.Join(s.IterationDir(n), recordFile))
	if !strings.Contains(string(file), "[similarity]") {
		t.Errorf("record file lacks its [similarity] table:\n%s", file)
	}
}

// A record without the check's figures (older, or the check off) has none, and says none.
func TestNoSimilarityNoTable(t *testing.T) {
	s := openStore(t, t.TempDir())
	n := next(t, s)
	if err := s.Save(sampleRecord(n)); err != nil {
		t.Fatal(err)
	}
	file, _ := os.ReadFile(filepath.Join(s.IterationDir(n), recordFile))
	if strings.Contains(string(file), "similarity") {
		t.Errorf("record file has similarity without figures:\n%s", file)
	}
	if got, _ := s.Get(n); got.Similarity != nil {
		t.Errorf("Similarity = %+v, want nil", got.Similarity)
	}
}
