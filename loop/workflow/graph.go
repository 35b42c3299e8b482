package workflow

import (
	"slices"
	"strings"

	"github.com/git-ralph/git-ralph/fielderr"
)

// checkLinks checks every name a stage gives of another: depends_on, on_complete,
// on_failure.
func (w *Workflow) checkLinks() error {
	names := w.Names()
	for _, s := range w.Stages {
		field := "stages." + s.Name + ".depends_on"
		for i, d := range s.DependsOn {
			switch {
			case d == s.Name:
				return w.errAt(field, "the stage %s depends on itself", "remove it from its own depends_on", d)
			case w.Stage(d) == nil:
				return w.errAt(field, "unknown stage %q", stageHint(d, names), d)
			case slices.Contains(s.DependsOn[:i], d):
				return w.errAt(field, "%s is listed twice", "list each stage once", d)
			}
		}
		for _, key := range []string{"on_complete", "on_failure"} {
			if err := w.checkNext(s, key); err != nil {
				return err
			}
		}
	}
	return w.checkHandlers()
}

// checkNext checks an on_complete or on_failure value: a word that is no stage but
// close to one is a misspelt stage, not a command.
func (w *Workflow) checkNext(s *Stage, key string) error {
	v := s.OnComplete
	if key == "on_failure" {
		v = s.OnFailure
	}
	field := "stages." + s.Name + "." + key
	stage, _ := w.Next(v)
	switch {
	case stage == s.Name:
		return w.errAt(field, "the stage %s names itself", `name another stage, "stop", or a command`, v)
	case stage == "" && isWord(v) && v != Stop && fielderr.Suggest(v, w.Names()) != "":
		return w.errAt(field, "unknown stage %q", stageHint(v, w.Names())+` (or write "stop", or a command with arguments)`, v)
	}
	return nil
}

// checkHandlers marks the stages that run only when another fails, and refuses one that
// also takes part in the normal order.
func (w *Workflow) checkHandlers() error {
	for _, s := range w.Stages {
		if h, _ := w.Next(s.OnFailure); h != "" {
			w.Stage(h).Handler = true
		}
	}
	for _, s := range w.Stages {
		if s.Handler && s.Gate != "" {
			return w.errAt("stages."+s.Name+".gate", "the stage %s runs only when another fails (on_failure): no one would be asked to approve it",
				"remove its gate, or make it a stage of the normal order (depends_on) with the gate", s.Name)
		}
		for _, d := range s.DependsOn {
			dep := w.Stage(d)
			switch {
			case s.Handler:
				return w.errAt("stages."+s.Name+".depends_on", "the stage %s runs only when another fails (on_failure), so it cannot wait for %s",
					"remove its depends_on, or name another stage in on_failure", s.Name, d)
			case dep.Handler:
				return w.errAt("stages."+s.Name+".depends_on", "%s runs only when another stage fails (on_failure): %s would never run",
					"depend on a stage of the normal order", d, s.Name)
			}
		}
	}
	return nil
}

func stageHint(name string, names []string) string {
	if s := fielderr.Suggest(name, names); s != "" {
		return "did you mean " + s + "?"
	}
	return "the stages are " + strings.Join(names, ", ")
}

// Needs are the stages that must be done before s runs.
func (w *Workflow) Needs(s *Stage) []string {
	if needs, ok := w.needs[s.Name]; ok {
		return slices.Clone(needs)
	}
	needs := slices.Clone(s.DependsOn)
	for _, o := range w.Stages {
		if next, _ := w.Next(o.OnComplete); next == s.Name && !slices.Contains(needs, o.Name) {
			needs = append(needs, o.Name)
		}
	}
	return needs
}

// checkCycles refuses stages that wait for each other, naming the circle: a → b → a.
func (w *Workflow) checkCycles() error {
	const (
		unseen = iota
		open
		closed
	)
	mark := map[string]int{}
	var path []string
	var visit func(name string) []string
	visit = func(name string) []string {
		switch mark[name] {
		case open:
			i := slices.Index(path, name)
			return append(slices.Clone(path[i:]), name)
		case closed:
			return nil
		}
		mark[name] = open
		path = append(path, name)
		for _, d := range w.Needs(w.Stage(name)) {
			if c := visit(d); c != nil {
				return c
			}
		}
		path = path[:len(path)-1]
		mark[name] = closed
		return nil
	}
	for _, s := range w.Stages {
		if c := visit(s.Name); c != nil {
			slices.Reverse(c) // as the work flows: the needed stage first
			return w.errAt("stages."+c[0]+".depends_on", "a dependency cycle: %s", "a stage cannot wait, directly or not, for itself: remove one link of the cycle",
				strings.Join(c, " → "))
		}
	}
	return nil
}

// Order is the stages of the normal order (not the on_failure handlers) so that each
// comes after those it needs; among stages free at once, the file's order decides.
func (w *Workflow) Order() []*Stage {
	done := map[string]bool{}
	var order []*Stage
	for len(order) < len(w.Stages) {
		progressed := false
		for _, s := range w.Stages {
			if done[s.Name] || !w.ready(s, done) {
				continue
			}
			done[s.Name] = true
			order, progressed = append(order, s), true
			break
		}
		if !progressed {
			break // a cycle: Parse refuses those
		}
	}
	return slices.DeleteFunc(order, func(s *Stage) bool { return s.Handler })
}

func (w *Workflow) ready(s *Stage, done map[string]bool) bool {
	for _, d := range w.Needs(s) {
		if !done[d] {
			return false
		}
	}
	return true
}

// Dependents are every stage that needs name, directly or through others, in order.
func (w *Workflow) Dependents(name string) []string {
	hit := map[string]bool{name: true}
	var out []string
	for _, s := range w.Order() {
		for _, d := range w.Needs(s) {
			if hit[d] && !hit[s.Name] {
				hit[s.Name] = true
				out = append(out, s.Name)
			}
		}
	}
	return out
}
