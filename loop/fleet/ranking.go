package fleet

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/prompts/repofile"
	"github.com/pelletier/go-toml/v2"
)

// RankingSchema is the version of the files a Ranking is kept in.
const RankingSchema = 1

// Ranking is a best-of-N group as it is kept between commands: its candidates, and, once
// all of them have ended and the best-of ranked them, their figures best first and when.
// It is kept per repository in the common git directory beside the worktree loops'
// records, so that every work tree, `watch` and `serve` read the same ranking the best-of
// printed, without measuring (or running the score command) again.
type Ranking struct {
	SchemaVersion int       `toml:"schema_version"`
	Name          string    `toml:"name"`       // the group's: its candidates are NAME-1 … NAME-N
	Candidates    []string  `toml:"candidates"` // NAME-1 … NAME-N
	Score         string    `toml:"score,omitempty"`
	StartedAt     time.Time `toml:"started_at,omitzero"` // when the best-of last ran candidates
	// RankedAt is when the figures below were measured; zero while candidates run (or a
	// best-of was stopped before it ranked them).
	RankedAt time.Time `toml:"ranked_at,omitzero"`
	Ranked   []Figures `toml:"ranked,omitempty"` // best first
}

// IsRanked reports whether the group's candidates were ranked since they last ran.
func (r Ranking) IsRanked() bool { return !r.RankedAt.IsZero() && len(r.Ranked) > 0 }

// Winner is the first of the ranking when it ran an iteration: the candidate the
// best-of named; false before the ranking, or when no candidate ran.
func (r Ranking) Winner() (Figures, bool) {
	if !r.IsRanked() || !r.Ranked[0].Ran() {
		return Figures{}, false
	}
	return r.Ranked[0], true
}

// Has reports whether loop is one of the group's candidates.
func (r Ranking) Has(loop string) bool {
	for _, c := range r.Candidates {
		if c == loop {
			return true
		}
	}
	return false
}

// rankingsDir holds one file per best-of group, NAME.toml, under the common git dir.
const rankingsDir = "ralph/bestof"

// maxRankingFile bounds what is read of a ranking's file: 32 candidates' figures take a
// few KiB; anything far larger is not git-ralph's.
const maxRankingFile = 1 << 20

func rankingFile(commonDir, name string) string {
	return filepath.Join(commonDir, filepath.FromSlash(rankingsDir), name+".toml")
}

// KeepRanking writes the group's ranking atomically (a reader finds the old file or the
// new, never a mix) into the common git directory of dir's repository.
func KeepRanking(ctx context.Context, dir string, r Ranking) error {
	common, err := gitops.CommonDir(ctx, dir)
	if err != nil {
		return err
	}
	return saveRanking(common, r)
}

func saveRanking(commonDir string, r Ranking) error {
	r.SchemaVersion = RankingSchema
	if err := r.check(); err != nil {
		return fmt.Errorf("internal: keeping the ranking of %s: %w", r.Name, err)
	}
	data, err := toml.Marshal(r)
	if err != nil {
		return fmt.Errorf("encoding the ranking of %s: %w", r.Name, err)
	}
	path := rankingFile(commonDir, r.Name)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	return history.WriteFileAtomic(path, data, 0o644)
}

// LoadRanking reads the ranking of the best-of group name in dir's repository; false
// when it has none.
func LoadRanking(ctx context.Context, dir, name string) (Ranking, bool, error) {
	common, err := gitops.CommonDir(ctx, dir)
	if err != nil {
		return Ranking{}, false, err
	}
	return loadRanking(common, name)
}

// loadRanking reads and checks the file of the group name. The file is read as
// untrusted: torn by a crash of an older writer, edited by hand or planted, it comes
// back as an error naming the file and what is wrong, never a panic or a ranking that
// names loops that are not its candidates.
func loadRanking(commonDir, name string) (Ranking, bool, error) {
	if CheckName(name) != nil { // a name from a URL or a key: no group has it, and no path is made of it
		return Ranking{}, false, nil
	}
	path := rankingFile(commonDir, name)
	// without blocking and never through a symlink: an agent can plant a FIFO there,
	// which a plain open would wait on for good
	f, err := repofile.OpenOwn(path, path)
	if errors.Is(err, fs.ErrNotExist) {
		return Ranking{}, false, nil
	}
	var refused *repofile.RefusedError
	if errors.As(err, &refused) {
		return Ranking{}, false, rankingError(path, refused.Reason)
	}
	if err != nil {
		return Ranking{}, false, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(f, maxRankingFile+1))
	if err != nil {
		return Ranking{}, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if len(data) > maxRankingFile {
		return Ranking{}, false, rankingError(path, fmt.Sprintf("it is larger than %d KiB", maxRankingFile>>10))
	}
	var r Ranking
	if err := toml.Unmarshal(data, &r); err != nil {
		var de *toml.DecodeError
		if errors.As(err, &de) {
			row, col := de.Position()
			return Ranking{}, false, rankingError(fmt.Sprintf("%s:%d:%d", path, row, col), de.Error())
		}
		return Ranking{}, false, rankingError(path, err.Error())
	}
	switch {
	case r.SchemaVersion > RankingSchema:
		return Ranking{}, false, &Error{Err: fmt.Errorf("%s was written by a newer git-ralph (schema %d)", path, r.SchemaVersion),
			Advice: "use that git-ralph to read it, or run the best-of again with this one to rank anew"}
	case r.Name != name:
		return Ranking{}, false, rankingError(path, fmt.Sprintf("name: it names the group %q, not %q", clip(r.Name, 60), name))
	}
	if err := r.check(); err != nil {
		return Ranking{}, false, rankingError(path, err.Error())
	}
	return r, true, nil
}

// rankingError is a ranking's file that cannot be used, with the way out.
func rankingError(where, what string) error {
	return &Error{Err: fmt.Errorf("the best-of ranking %s cannot be read: %s", where, what),
		Advice: "it is git-ralph's own record: run the same 'git ralph loop --best-of N' again to rank the candidates anew, or delete the file"}
}

// check refuses a ranking that is not one a best-of writes: a group's name that names no
// loop, candidates other than NAME-1 … NAME-N, figures of a loop that is not a candidate
// (or twice), and numbers that no measure gives.
func (r Ranking) check() error {
	if err := CheckName(r.Name); err != nil {
		return fmt.Errorf("name: %w", err)
	}
	if n := len(r.Candidates); n < 1 || n > MaxCandidates {
		return fmt.Errorf("candidates: %d of them, not 1 to %d", n, MaxCandidates)
	}
	for i, c := range r.Candidates {
		if want := r.Name + "-" + strconv.Itoa(i+1); c != want {
			return fmt.Errorf("candidates[%d]: %q, not %q", i, clip(c, 60), want)
		}
	}
	if len(r.Ranked) > len(r.Candidates) {
		return fmt.Errorf("ranked: %d figures for %d candidates", len(r.Ranked), len(r.Candidates))
	}
	seen := map[string]bool{}
	for i, f := range r.Ranked {
		switch {
		case !r.Has(f.Name):
			return fmt.Errorf("ranked[%d].name: %q is not a candidate of %s", i, clip(f.Name, 60), r.Name)
		case seen[f.Name]:
			return fmt.Errorf("ranked[%d].name: %s is ranked twice", i, f.Name)
		case f.Iterations < 0 || f.DiffLines < 0:
			return fmt.Errorf("ranked[%d]: a negative count of iterations or lines", i)
		case f.Score != nil && (math.IsNaN(*f.Score) || math.IsInf(*f.Score, 0)):
			return fmt.Errorf("ranked[%d].score: %v is not a score", i, *f.Score)
		case f.Validation.Result < ValidationNone || f.Validation.Result > ValidationFailed:
			return fmt.Errorf("ranked[%d].validation: no such result", i)
		}
		seen[f.Name] = true
	}
	return nil
}

// Rankings reads every best-of group's ranking of dir's repository, by name. A file that
// cannot be read does not hide the others: its problem comes back in bad.
func Rankings(ctx context.Context, dir string) (list []Ranking, bad []error, err error) {
	common, err := gitops.CommonDir(ctx, dir)
	if err != nil {
		return nil, nil, err
	}
	entries, err := os.ReadDir(filepath.Join(common, filepath.FromSlash(rankingsDir)))
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil, nil
	}
	if err != nil {
		return nil, nil, fmt.Errorf("listing the best-of rankings: %w", err)
	}
	for _, e := range entries {
		name, ok := strings.CutSuffix(e.Name(), ".toml")
		if !ok || strings.HasPrefix(name, ".") {
			continue
		}
		r, found, err := loadRanking(common, name)
		switch {
		case err != nil:
			bad = append(bad, err)
		case found:
			list = append(list, r)
		}
	}
	sort.Slice(list, func(i, j int) bool { return list[i].Name < list[j].Name })
	return list, bad, nil
}

// MeasureAll measures each candidate (see Measure) and ranks them, best first.
func MeasureAll(ctx context.Context, dir string, names []string, score string) []Figures {
	list := make([]Figures, 0, len(names))
	for _, n := range names {
		list = append(list, Measure(ctx, dir, n, score))
	}
	Rank(list)
	return list
}
