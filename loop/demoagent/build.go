package demoagent

import (
	"bytes"
	"context"
	"embed"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// recipes holds the scripts the agent "writes": features/bin/<name> and features/tests/test_<name>.sh.
//
//go:embed features
var recipes embed.FS

// runBuild implements the first unchecked plan item, runs every test, and commits.
func runBuild(ctx context.Context, dir string, out io.Writer) (outcome, error) {
	plan, err := readPlan(dir)
	if errors.Is(err, fs.ErrNotExist) {
		say(out, "%s does not exist; run plan mode first so there is something to build", PlanFile)
		return failed, nil
	}
	if err != nil {
		return failed, err
	}
	say(out, "reading %s (%d items)", PlanFile, len(plan.Items))
	item, ok := plan.next()
	if !ok {
		say(out, "every item in %s is already checked", PlanFile)
		return succeeded, nil
	}
	return buildItem(ctx, dir, plan, item, out)
}

// buildItem writes one feature and its test, and commits them once every test passes.
func buildItem(ctx context.Context, dir string, plan Plan, item Item, out io.Writer) (outcome, error) {
	say(out, "next item: %s", item.Feature)
	if !hasRecipe(item.Feature) {
		say(out, "the demo agent has no script for %q; it only knows the textkit features", item.Feature)
		return failed, nil
	}
	if err := writeFeature(dir, item.Feature, out); err != nil {
		return failed, err
	}
	passed, err := runTests(ctx, dir, out)
	if err != nil || !passed {
		return failed, err
	}
	open := plan.check(item)
	say(out, "checking off %s in %s (%d left)", item.Feature, PlanFile, open)
	if err := plan.write(dir); err != nil {
		return failed, err
	}
	if err := commit(ctx, dir, fmt.Sprintf("feat: add %s with test", item.Feature), out); err != nil {
		return failed, err
	}
	if open == 0 {
		return succeeded, nil
	}
	return working, nil
}

// recipeFiles are the paths, relative to the project root, of a feature's script and test.
func recipeFiles(feature string) []string {
	return []string{"bin/" + feature, "tests/test_" + feature + ".sh"}
}

func hasRecipe(feature string) bool {
	for _, rel := range recipeFiles(feature) {
		if _, err := fs.Stat(recipes, "features/"+rel); err != nil {
			return false
		}
	}
	return true
}

// writeFeature writes bin/<feature> (executable) and tests/test_<feature>.sh from the recipes.
func writeFeature(dir, feature string, out io.Writer) error {
	for _, rel := range recipeFiles(feature) {
		data, err := recipes.ReadFile("features/" + rel)
		if err != nil {
			return fmt.Errorf("finding a recipe for %s: %w", rel, err)
		}
		lines, noun := bytes.Count(data, []byte("\n")), "lines"
		if lines == 1 {
			noun = "line"
		}
		say(out, "writing %s (%d %s)", rel, lines, noun)
		if err := writeScript(filepath.Join(dir, filepath.FromSlash(rel)), data); err != nil {
			return err
		}
	}
	return nil
}

// writeScript writes data to path with mode 0755, creating its directory.
func writeScript(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return fmt.Errorf("creating %s: %w", filepath.Dir(path), err)
	}
	if err := os.WriteFile(path, data, 0o755); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := os.Chmod(path, 0o755); err != nil {
		return fmt.Errorf("making %s executable: %w", path, err)
	}
	return nil
}

// runTests runs every tests/*.sh with sh from dir and reports whether all passed.
func runTests(ctx context.Context, dir string, out io.Writer) (bool, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "tests", "*.sh"))
	if err != nil {
		return false, fmt.Errorf("listing tests: %w", err)
	}
	noun := "tests"
	if len(paths) == 1 {
		noun = "test"
	}
	say(out, "running %d %s with sh", len(paths), noun)
	passed := true
	for _, path := range paths {
		ok, err := runTest(ctx, dir, "tests/"+filepath.Base(path), out)
		if err != nil {
			return false, err
		}
		passed = passed && ok
	}
	if !passed {
		say(out, "a test failed; leaving the work uncommitted")
	}
	return passed, nil
}

// runTest runs one test script, printing PASS or FAIL and, on failure, its output.
func runTest(ctx context.Context, dir, rel string, out io.Writer) (bool, error) {
	cmd := exec.CommandContext(ctx, "sh", rel)
	cmd.Dir = dir
	output, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		return false, fmt.Errorf("running %s: %w", rel, err)
	}
	if err == nil {
		say(out, "PASS %s", rel)
		return true, nil
	}
	say(out, "FAIL %s (exit %d)", rel, exit.ExitCode())
	for _, line := range strings.Split(strings.TrimRight(string(output), "\n"), "\n") {
		say(out, "    %s", line)
	}
	return false, nil
}
