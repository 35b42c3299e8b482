package loop

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/git-ralph/git-ralph/history"
)

// limitedAgent is a claude-shaped agent on account "login" that counts its runs in
// $dir/runs and, on its first run, hits a limit that resets at reset.
func limitedAgent(reset time.Time) string {
	return `n=$(cat runs 2>/dev/null || echo 0); echo $((n+1)) > runs
		echo '{"type":"system","subtype":"init","apiKeySource":"login","model":"m"}'
		if [ "$n" = 0 ]; then
			echo '{"type":"rate_limit_event","rate_limit_info":{"status":"rejected","resetsAt":` + strconv.FormatInt(reset.Unix(), 10) + `}}'
			echo '{"type":"result","is_error":true,"result":"You have hit your limit"}'
			exit 1
		fi
		echo '{"type":"result","is_error":false,"result":"done"}'`
}

func TestALimitIsSharedWithTheOtherLoopsOfTheSameAgent(t *testing.T) {
	store := &history.Limits{Dir: filepath.Join(t.TempDir(), "limits")}
	reset := time.Now().Add(time.Hour).Truncate(time.Second)
	first := newRepo(t)
	cfg := config(first, limitedAgent(reset), 1)
	cfg.Agent = claudeReader(t)
	cfg.Limits, cfg.LimitFrom = store, first
	cfg.BackoffMax = 10 * time.Millisecond // the margin after a stated reset
	cfg.MaxLimitWait = time.Minute         // the first loop stops rather than wait
	if res, err := Run(context.Background(), cfg, Deps{}); err != nil || res.Status != StatusLimited {
		t.Fatalf("first loop: %+v, %v", res, err)
	}
	shared, ok, _ := store.For("claude", "login", time.Now())
	if !ok || shared.From != first || shared.Account != "login" || !shared.Until.Equal(reset.Add(10*time.Millisecond)) {
		t.Fatalf("shared limit = %+v, %v", shared, ok)
	}
	os.RemoveAll(store.Dir)

	// a second loop that starts while the limit lasts, on the same account (an earlier run
	// of it learned it), waits for its reset, then runs once; its clock stands still at the
	// moment the limit was shared, so that however long a busy machine takes to set up and
	// start it, the limit still lasts when it looks, and its wait (a real timer) is the
	// whole second
	second := newRepo(t)
	os.WriteFile(filepath.Join(second, "runs"), []byte("1"), 0o644) // its agent is not limited itself
	if err := history.SaveState(second, history.State{Run: "earlier", AgentAccount: "login"}); err != nil {
		t.Fatal(err)
	}
	cfg2 := config(second, limitedAgent(reset), 1)
	cfg2.Agent = claudeReader(t)
	cfg2.Limits, cfg2.LimitFrom = store, second
	sharedAt := time.Now()
	store.Share(history.SharedLimit{Agent: "claude", Account: "login", Until: sharedAt.Add(time.Second), Message: "You have hit your limit", From: first})
	rec := &recorder{}
	began := time.Now()
	res, err := Run(context.Background(), cfg2, Deps{Reporter: rec, Now: func() time.Time { return sharedAt }})
	if err != nil || res.Status != StatusMaxIters {
		t.Fatalf("second loop: %+v, %v", res, err)
	}
	if waited := time.Since(began); waited < 900*time.Millisecond {
		t.Errorf("the second loop ran after %s, before the shared reset", waited)
	}
	if runs, _ := os.ReadFile(filepath.Join(second, "runs")); strings.TrimSpace(string(runs)) != "2" {
		t.Errorf("the second loop's agent ran %s times in all, want once after the wait", runs)
	}
	var w Waiting
	for _, e := range rec.events {
		if ew, ok := e.(Waiting); ok {
			w = ew
		}
	}
	if w.From != first || w.Kind != "limit" {
		t.Errorf("waiting event = %+v, want the first loop's limit", w)
	}
}

// TestALimitOfAnotherAccountOrAgentIsNotWaitedFor: once the loop knows the account its
// agent runs on, a limit of another account (or agent) shared meanwhile does not hold it.
func TestALimitOfAnotherAccountOrAgentIsNotWaitedFor(t *testing.T) {
	store := &history.Limits{Dir: filepath.Join(t.TempDir(), "limits")}
	dir := newRepo(t)
	later := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
	// the first iteration's agent shares, as two other loops would, limits of another
	// account and another agent
	cfg := config(dir, `echo ran >> runs
		echo '{"type":"system","subtype":"init","apiKeySource":"login"}'
		if [ "$RALPH_ITERATION" = 1 ]; then
			mkdir -p `+store.Dir+`
			printf 'agent = "claude"\naccount = "ANTHROPIC_API_KEY"\nuntil = %s\n' "$(date -u -d @`+later+` +%Y-%m-%dT%H:%M:%SZ)" > `+store.Dir+`/claude@key.toml
			printf 'agent = "codex"\nuntil = %s\n' "$(date -u -d @`+later+` +%Y-%m-%dT%H:%M:%SZ)" > `+store.Dir+`/codex.toml
		fi
		echo '{"type":"result","is_error":false,"result":"done"}'`, 2)
	cfg.Agent = claudeReader(t)
	cfg.Limits, cfg.LimitFrom = store, dir
	began := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a wrong wait would last an hour
	defer cancel()
	res, err := Run(ctx, cfg, Deps{})
	if err != nil || res.Status != StatusMaxIters {
		t.Fatalf("Run = %+v, %v after %s", res, err, time.Since(began))
	}
	if all, _ := store.Active(time.Now()); len(all) != 2 {
		t.Errorf("the other limits were not there to be passed over: %+v", all)
	}
}

func TestASharedLimitLongerThanMaxLimitWaitStopsTheRunAtOnce(t *testing.T) {
	store := &history.Limits{Dir: filepath.Join(t.TempDir(), "limits")}
	store.Share(history.SharedLimit{Agent: "claude", Until: time.Now().Add(7 * time.Hour), Message: "weekly limit", From: "/elsewhere"})
	dir := newRepo(t)
	cfg := config(dir, `echo ran >> runs`, 1)
	cfg.Agent = claudeReader(t)
	cfg.Limits, cfg.LimitFrom = store, dir
	res, err := Run(context.Background(), cfg, Deps{})
	if err != nil || res.Status != StatusLimited || !strings.Contains(res.Reason, "shared by the loop in /elsewhere: usage limit until") {
		t.Fatalf("Run = %+v, %v", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); !os.IsNotExist(err) {
		t.Errorf("the agent ran: %v", err)
	}
	st, _ := history.LoadState(dir)
	if st.LimitFrom != "/elsewhere" || st.WaitUntil.IsZero() {
		t.Errorf("saved state: wait %v from %q", st.WaitUntil, st.LimitFrom)
	}
}

func TestCancelEndsASharedWait(t *testing.T) {
	store := &history.Limits{Dir: filepath.Join(t.TempDir(), "limits")}
	store.Share(history.SharedLimit{Agent: "claude", Until: time.Now().Add(time.Hour), From: "/elsewhere"})
	dir := newRepo(t)
	cfg := config(dir, `echo ran >> runs`, 1)
	cfg.Agent = claudeReader(t)
	cfg.Limits, cfg.LimitFrom = store, dir
	finish := make(chan struct{})
	time.AfterFunc(300*time.Millisecond, func() { close(finish) })
	res, err := Run(context.Background(), cfg, Deps{Finish: finish})
	if err != nil || res.Status != StatusInterrupted || !res.Cancelled {
		t.Fatalf("Run = %+v, %v; want interrupted by cancel", res, err)
	}
	if _, err := os.Stat(filepath.Join(dir, "runs")); !os.IsNotExist(err) {
		t.Errorf("the agent ran: %v", err)
	}
}

// TestALoopStartedLaterKnowsItsAccount: the account the agent stated is kept in the
// state, so a loop started later (from cron) passes over another account's limit before
// its agent runs again.
func TestALoopStartedLaterKnowsItsAccount(t *testing.T) {
	store := &history.Limits{Dir: filepath.Join(t.TempDir(), "limits")}
	dir := newRepo(t)
	cfg := config(dir, `echo ran >> runs
		echo '{"type":"system","subtype":"init","apiKeySource":"login"}'
		echo '{"type":"result","is_error":false,"result":"done"}'`, 1)
	cfg.Agent = claudeReader(t)
	cfg.Limits, cfg.LimitFrom = store, dir
	if _, err := Run(context.Background(), cfg, Deps{}); err != nil {
		t.Fatal(err)
	}
	if st, _ := history.LoadState(dir); st.AgentAccount != "login" {
		t.Fatalf("saved account %q, want login", st.AgentAccount)
	}
	store.Share(history.SharedLimit{Agent: "claude", Account: "ANTHROPIC_API_KEY", Until: time.Now().Add(time.Hour), From: "/elsewhere"})
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a wrong wait would last an hour
	defer cancel()
	res, err := Run(ctx, cfg, Deps{})
	if err != nil || res.Status != StatusMaxIters {
		t.Fatalf("the later loop: %+v, %v", res, err)
	}
}

// TestALoopThatDoesNotKnowItsAccountRunsOnceToLearnIt: a limit another loop met on a
// stated account (a subscription login) does not stop a loop whose account is not known
// yet (a fresh repository, an API key): its first attempt tells the account; then it
// waits if it is the same, with a hint naming whose limit it is and how to clear it.
func TestALoopThatDoesNotKnowItsAccountRunsOnceToLearnIt(t *testing.T) {
	for _, tc := range []struct {
		account string
		runs    string
		status  Status
	}{
		{"ANTHROPIC_API_KEY", "2", StatusMaxIters}, // another account: never held
		{"none", "1", StatusLimited},               // the same: held after its first attempt
	} {
		t.Run(tc.account, func(t *testing.T) {
			store := &history.Limits{Dir: filepath.Join(t.TempDir(), "limits")}
			shared := history.SharedLimit{Agent: "claude", Account: "none", Until: time.Now().Add(7 * time.Hour), Message: "weekly limit", From: "/elsewhere"}
			store.Share(shared)
			dir := newRepo(t)
			cfg := config(dir, `n=$(cat runs 2>/dev/null || echo 0); echo $((n+1)) > runs
				echo '{"type":"system","subtype":"init","apiKeySource":"`+tc.account+`"}'
				echo '{"type":"result","is_error":false,"result":"done"}'`, 2)
			cfg.Agent = claudeReader(t)
			cfg.Limits, cfg.LimitFrom = store, dir
			res, err := Run(context.Background(), cfg, Deps{})
			if err != nil || res.Status != tc.status {
				t.Fatalf("Run = %+v, %v; want %s", res, err, tc.status)
			}
			if runs, _ := os.ReadFile(filepath.Join(dir, "runs")); strings.TrimSpace(string(runs)) != tc.runs {
				t.Errorf("the agent ran %q times, want %s", runs, tc.runs)
			}
			if tc.status != StatusLimited {
				return
			}
			for _, want := range []string{"the loop in /elsewhere met this limit of claude on the account its CLI called \"none\"",
				"remove " + store.Path(shared) + " to clear the shared wait"} {
				if !strings.Contains(res.Hint, want) {
					t.Errorf("hint %q lacks %q", res.Hint, want)
				}
			}
		})
	}
}
