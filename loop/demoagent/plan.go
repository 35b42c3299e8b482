package demoagent

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/lazyregexp"
	"github.com/git-ralph/git-ralph/prompts/repofile"
)

// Feature is one tool the specs ask for; each becomes one plan item.
type Feature struct {
	Name    string // the tool's name: bin/<Name>, tests/test_<Name>.sh
	Summary string // what it does, in a few words
}

// Item is one checkbox line of the plan.
type Item struct {
	Line    int // index of the line in the plan
	Feature string
	Done    bool
}

// Plan is IMPLEMENTATION_PLAN.md as lines, with its checkbox items.
type Plan struct {
	Lines []string
	Items []Item
}

var itemPattern = lazyregexp.New(`^- \[([ x])\] ([A-Za-z0-9_-]+):`)

const planHeader = `# Implementation plan

Gap analysis of specs/ against bin/: a feature is done when bin/<name> exists.
Highest priority first; each build iteration takes the first unchecked item,
writes bin/<name> and tests/test_<name>.sh, and runs every test in tests/.
`

// runPlan compares the specs with bin/ and writes and commits the plan.
func runPlan(ctx context.Context, dir string, out io.Writer) (outcome, error) {
	features, err := readSpecs(dir, out)
	if err != nil {
		return failed, err
	}
	if len(features) == 0 {
		say(out, "found no features (### headings) in specs/*.md; nothing to plan")
		return failed, nil
	}
	text, done := renderPlan(dir, features, out)
	say(out, "writing %s (%d items, %d done)", PlanFile, len(features), done)
	if err := os.WriteFile(filepath.Join(dir, PlanFile), []byte(text), 0o644); err != nil {
		return failed, fmt.Errorf("writing %s: %w", PlanFile, err)
	}
	message := fmt.Sprintf("plan: %d items from specs, %d done", len(features), done)
	if err := commit(ctx, dir, message, out); err != nil {
		return failed, err
	}
	if done == len(features) {
		say(out, "every feature in specs/ is implemented")
		return succeeded, nil
	}
	return working, nil
}

// readSpecs returns the features under ### headings in specs/*.md, in file then heading order.
func readSpecs(dir string, out io.Writer) ([]Feature, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "specs", "*.md"))
	if err != nil {
		return nil, fmt.Errorf("listing specs: %w", err)
	}
	var features []Feature
	for _, path := range paths {
		say(out, "reading specs/%s", filepath.Base(path))
		data, err := repofile.ReadIn(dir, filepath.Join("specs", filepath.Base(path)), "specs/"+filepath.Base(path), repofile.PromptLimit)
		if err != nil {
			return nil, fmt.Errorf("reading spec: %w", err)
		}
		features = append(features, parseSpec(string(data))...)
	}
	return features, nil
}

// parseSpec finds each "### name" heading and summarises the paragraph under it.
func parseSpec(text string) []Feature {
	lines := strings.Split(text, "\n")
	var features []Feature
	for i, line := range lines {
		name, ok := strings.CutPrefix(line, "### ")
		if ok && strings.TrimSpace(name) != "" {
			features = append(features, Feature{Name: strings.TrimSpace(name), Summary: summarise(lines[i+1:])})
		}
	}
	return features
}

// summarise returns the first clause of the first non-blank line, starting lower-case.
func summarise(lines []string) string {
	for _, line := range lines {
		line = strings.TrimSpace(line)
		if line == "" {
			continue
		}
		if strings.HasPrefix(line, "#") {
			break
		}
		clause, _, _ := strings.Cut(line, ",")
		clause = strings.TrimSuffix(strings.TrimSpace(clause), ".")
		if clause != "" {
			return strings.ToLower(clause[:1]) + clause[1:]
		}
	}
	return "as described in specs/"
}

// renderPlan writes the plan text, checking the features whose script exists.
func renderPlan(dir string, features []Feature, out io.Writer) (text string, done int) {
	var b strings.Builder
	b.WriteString(planHeader + "\n")
	for _, f := range features {
		box := " "
		if implemented(dir, f.Name) {
			box, done = "x", done+1
			say(out, "checking bin/%s: present", f.Name)
		} else {
			say(out, "checking bin/%s: missing", f.Name)
		}
		fmt.Fprintf(&b, "- [%s] %s: %s (bin/%s, tests/test_%s.sh)\n", box, f.Name, f.Summary, f.Name, f.Name)
	}
	return b.String(), done
}

func implemented(dir, feature string) bool {
	_, err := os.Stat(filepath.Join(dir, "bin", feature))
	return err == nil
}

// readPlan loads the plan; a missing plan is reported as fs.ErrNotExist.
func readPlan(dir string) (Plan, error) {
	data, err := repofile.ReadIn(dir, PlanFile, PlanFile, repofile.PromptLimit)
	if err != nil {
		return Plan{}, fmt.Errorf("reading plan: %w", err)
	}
	plan := Plan{Lines: strings.Split(string(data), "\n")}
	for i, line := range plan.Lines {
		if m := itemPattern.FindStringSubmatch(line); m != nil {
			plan.Items = append(plan.Items, Item{Line: i, Feature: m[2], Done: m[1] == "x"})
		}
	}
	return plan, nil
}

// next returns the first unchecked item, if any.
func (p Plan) next() (Item, bool) {
	for _, item := range p.Items {
		if !item.Done {
			return item, true
		}
	}
	return Item{}, false
}

// check marks item done and returns how many items are still unchecked.
func (p *Plan) check(item Item) (open int) {
	p.Lines[item.Line] = strings.Replace(p.Lines[item.Line], "- [ ]", "- [x]", 1)
	for i := range p.Items {
		if p.Items[i].Line == item.Line {
			p.Items[i].Done = true
		}
		if !p.Items[i].Done {
			open++
		}
	}
	return open
}

func (p Plan) write(dir string) error {
	err := os.WriteFile(filepath.Join(dir, PlanFile), []byte(strings.Join(p.Lines, "\n")), 0o644)
	if err != nil {
		return fmt.Errorf("writing plan: %w", err)
	}
	return nil
}

// commit stages everything and commits it, narrating what happened.
func commit(ctx context.Context, dir, message string, out io.Writer) error {
	committed, err := gitops.CommitAll(ctx, dir, message)
	if err != nil {
		return fmt.Errorf("committing %q: %w", message, err)
	}
	if committed {
		say(out, "git commit -m %q", message)
	} else {
		say(out, "nothing changed; no commit")
	}
	return nil
}
