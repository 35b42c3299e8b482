package config

import (
	"errors"
	"strings"
	"testing"
)

func TestBudgetValues(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    fixture
		cost float64
		toks int
		day  float64
	}{
		{"none by default", fixture{}, 0, 0, 0},
		{"file float and integer", fixture{user: "max_cost = 5.5\nmax_tokens = 1_000_000\ndaily_max_cost = 20\n"}, 5.5, 1_000_000, 20},
		{"env with a dollar sign", fixture{env: []string{"RALPH_MAX_COST=$2.50", "RALPH_DAILY_MAX_COST=10"}}, 2.5, 0, 10},
		{"flag", fixture{flags: []Flag{{Key: "max_cost", Name: "--max-cost", Raw: "1.25"}, {Key: "max_tokens", Name: "--max-tokens", Raw: "5000"}}}, 1.25, 5000, 0},
		// a repository can lower the user's budget …
		{"repo lowers", fixture{user: "max_cost = 5.0\n", repo: "max_cost = 2.0\n"}, 2, 0, 0},
		// … but not raise it, nor lift it with 0
		{"repo cannot raise", fixture{user: "max_cost = 5.0\nmax_tokens = 100\n", repo: "max_cost = 50.0\nmax_tokens = 1000\n"}, 5, 100, 0},
		{"repo cannot lift", fixture{user: "max_cost = 5.0\n", repo: "max_cost = 0\n"}, 5, 0, 0},
		{"repo alone", fixture{repo: "[modes.build]\nmax_cost = 3.0\n"}, 3, 0, 0},
		{"daily: repo cannot raise", fixture{user: "daily_max_cost = 50\n", repo: "daily_max_cost = 1000.0\n"}, 0, 0, 50},
		{"daily: repo lowers", fixture{user: "daily_max_cost = 50\n", repo: "daily_max_cost = 10\n"}, 0, 0, 10},
		{"daily: user's mode section", fixture{user: "daily_max_cost = 50\n[modes.build]\ndaily_max_cost = 5\n", repo: "daily_max_cost = 10\n"}, 0, 0, 5},
		// the user's own flag or variable decides, higher or lower
		{"flag raises", fixture{user: "max_cost = 5.0\n", repo: "max_cost = 2.0\n", flags: []Flag{{Key: "max_cost", Name: "--max-cost", Raw: "9"}}}, 9, 0, 0},
		{"env lifts", fixture{user: "max_cost = 5.0\n", env: []string{"RALPH_MAX_COST=0"}}, 0, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.f.mustLoad(t)
			if c.MaxCost.V != tc.cost || c.MaxTokens.V != tc.toks || c.DailyMaxCost.V != tc.day {
				t.Errorf("max_cost %v (%s), max_tokens %v, daily_max_cost %v; want %v, %v, %v",
					c.MaxCost.V, c.MaxCost.Origin, c.MaxTokens.V, c.DailyMaxCost.V, tc.cost, tc.toks, tc.day)
			}
		})
	}
}

func TestBudgetOriginsShown(t *testing.T) {
	c := fixture{user: "max_cost = 5.0\n", repo: "\nmax_cost = 2.0\n", env: []string{"RALPH_DAILY_MAX_COST=12.5"}}.mustLoad(t)
	want := map[string]string{"max_cost": "$2.00 (.ralph/config.toml:2)", "max_tokens": "none (default)", "daily_max_cost": "$12.50 (env RALPH_DAILY_MAX_COST)"}
	for _, e := range c.Entries() {
		if w, ok := want[e.Key]; ok {
			if got := e.Value + " (" + e.Origin.String() + ")"; got != w {
				t.Errorf("%s: %s, want %s", e.Key, got, w)
			}
			delete(want, e.Key)
		}
	}
	if len(want) > 0 {
		t.Errorf("not listed: %v", want)
	}
}

func TestBudgetRefused(t *testing.T) {
	for _, tc := range []struct {
		name string
		f    fixture
		want string // in the error
	}{
		{"negative", fixture{user: "max_cost = -1.0\n"}, "max_cost: must be between 0 and 1000000, got -1"},
		{"infinite", fixture{user: "max_cost = inf\n"}, "max_cost: must be between 0 and 1000000"},
		{"nan", fixture{user: "max_cost = nan\n"}, "max_cost: must be between 0 and 1000000"},
		{"string in a file", fixture{user: "max_cost = \"5\"\n"}, "max_cost: want an amount, got a string"},
		{"words in env", fixture{env: []string{"RALPH_MAX_COST=five"}}, `env RALPH_MAX_COST: want an amount, got "five"`},
		{"hex in a flag", fixture{flags: []Flag{{Key: "daily_max_cost", Name: "--daily-max-cost", Raw: "0x10"}}}, `--daily-max-cost: want an amount`},
		{"negative tokens", fixture{flags: []Flag{{Key: "max_tokens", Name: "--max-tokens", Raw: "-5"}}}, "--max-tokens: must not be negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.f.load(t)
			var cerr *Error
			if !errors.As(err, &cerr) || !strings.Contains(err.Error(), tc.want) || cerr.Hint() == "" {
				t.Errorf("err = %v; want an *Error with a hint containing %q", err, tc.want)
			}
		})
	}
}

// TestRepositoryCannotLiftSafeguards: a clone's .ralph/config.toml may make the loop stop
// sooner (stop_on_overage on, a lower stagnation threshold) but cannot turn off a protection
// the user's file or the default gives; the user's flag or variable still decides.
func TestRepositoryCannotLiftSafeguards(t *testing.T) {
	for _, tc := range []struct {
		name      string
		f         fixture
		overage   bool
		threshold int
	}{
		{"defaults", fixture{}, false, 3},
		{"repo turns stagnation off", fixture{repo: "stagnation_threshold = 0\n"}, false, 3},
		{"repo raises the threshold", fixture{repo: "stagnation_threshold = 9\n"}, false, 3},
		{"repo lowers the threshold", fixture{repo: "stagnation_threshold = 2\n"}, false, 2},
		{"repo mode section cannot turn it off", fixture{repo: "[modes.build]\nstagnation_threshold = 0\n"}, false, 3},
		{"user turns it off, repo turns it on", fixture{user: "stagnation_threshold = 0\n", repo: "stagnation_threshold = 4\n"}, false, 4},
		{"user's own choice stands", fixture{user: "stagnation_threshold = 0\n"}, false, 0},
		{"env turns it off", fixture{repo: "stagnation_threshold = 2\n", env: []string{"RALPH_STAGNATION_THRESHOLD=0"}}, false, 0},
		{"flag raises it", fixture{repo: "stagnation_threshold = 2\n", flags: []Flag{{Key: "stagnation_threshold", Name: "--stagnation-threshold", Raw: "8"}}}, false, 8},
		{"repo cannot lift the user's stop_on_overage", fixture{user: "stop_on_overage = true\n", repo: "stop_on_overage = false\n"}, true, 3},
		{"repo may turn stop_on_overage on", fixture{repo: "stop_on_overage = true\n"}, true, 3},
		{"env lifts stop_on_overage", fixture{user: "stop_on_overage = true\n", env: []string{"RALPH_STOP_ON_OVERAGE=false"}}, false, 3},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := tc.f.mustLoad(t)
			if c.StopOnOverage.V != tc.overage || c.StagnationThreshold.V != tc.threshold {
				t.Errorf("stop_on_overage %v (%s), stagnation_threshold %v (%s); want %v, %v",
					c.StopOnOverage.V, c.StopOnOverage.Origin, c.StagnationThreshold.V, c.StagnationThreshold.Origin, tc.overage, tc.threshold)
			}
		})
	}
}
