package launch

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/git-ralph/git-ralph/cmd/git-ralph/config"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/hints"
	"github.com/git-ralph/git-ralph/cmd/git-ralph/schedule"
	"github.com/git-ralph/git-ralph/history"
	"github.com/git-ralph/git-ralph/loop/agentcli"
	"github.com/git-ralph/git-ralph/loop/recording"
)

// replayPrefix makes an agent setting a recording to play back: "replay:DIR".
const replayPrefix = "replay:"

// replaySource is the recording a loop plays back as its agent.
type replaySource struct {
	dir      string
	manifest recording.Manifest
}

// chooseReplay makes the recording in dir the agent: git-ralph itself plays it
// (`git-ralph replay-agent`), and the preset it was recorded with reads the output, so
// the same tokens, cost and promises come out as when it was recorded.
func (s *Settings) chooseReplay(dir string, origin config.Origin) error {
	if dir == "" {
		return hints.Wrap(fmt.Errorf("agent %q (%s) names no recording", replayPrefix, origin), "give the directory a loop recorded with --record DIR: --agent replay:DIR")
	}
	if s.Loop.AgentCmd != "" {
		return hints.Wrap(errors.New("--agent replay:DIR plays the recording as the agent, and agent_cmd names another"), "drop --agent-cmd (or agent_cmd) for the replay")
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return err
	}
	if err := outsideWorkTree(s.Loop.Dir, abs, "--agent replay:DIR"); err != nil {
		return err
	}
	m, err := recording.ReadManifest(abs)
	if err != nil {
		return hints.Wrap(fmt.Errorf("cannot replay %s: %w", dir, err), "give the directory a loop recorded with --record DIR")
	}
	speed, err := replaySpeed(s.replaySpeed)
	if err != nil {
		return err
	}
	if s.Loop.AgentCmd, err = selfCommand("replay-agent", "--speed", strconv.FormatFloat(speed, 'g', -1, 64), abs); err != nil {
		return err
	}
	s.Loop.Replay, s.replay = true, &replaySource{dir: abs, manifest: m}
	what := "replay of a recording read as text"
	if m.Agent != "" {
		what = "replay of a recording read as " + m.Agent
	}
	s.extra = append(s.extra, config.Entry{Key: "agent command", Value: s.Loop.AgentCmd,
		Origin: config.Origin{Kind: config.FromDefault, Name: what}})
	if m.Agent == "" {
		return nil
	}
	preset, ok := agentcli.Lookup(m.Agent)
	if !ok {
		return hints.Wrap(fmt.Errorf("%s: recorded with agent %q, which this git-ralph does not know", filepath.Join(dir, recording.ManifestFile), m.Agent),
			"replay it with the git-ralph version that recorded it (%s)", m.GitRalph)
	}
	s.applyPreset(preset)
	return nil
}

// replaySpeed reads --replay-speed: full (0, the default), recorded (1), or a positive
// multiple of the recorded pace.
func replaySpeed(text string) (float64, error) {
	switch text {
	case "", "full":
		return 0, nil
	case "recorded":
		return 1, nil
	}
	f, err := strconv.ParseFloat(strings.TrimSuffix(text, "x"), 64)
	if err != nil || !(f > 0 && f <= 1000) { // so written, NaN fails too
		return 0, hints.Wrap(fmt.Errorf("--replay-speed %q is not a pace", text), "use full (no waits), recorded, or a multiple of the recorded pace such as 2 or 0.5")
	}
	return f, nil
}

// checkReplay refuses to replay a recording made in another repository, unless
// --replay-force: its changes would not apply, or would apply to the wrong project.
func checkReplay(ctx context.Context, o *Options, set *Settings) error {
	if set.replay == nil {
		if o.ReplaySpeed != "" || o.ReplayForce {
			return hints.Wrap(errors.New("--replay-speed and --replay-force go with --agent replay:DIR"), "drop them, or replay a recording")
		}
		return nil
	}
	here, err := recording.IdentityOf(ctx, set.Loop.Dir)
	if err != nil {
		return err
	}
	recorded := set.replay.manifest.Repository
	if recorded.Matches(here) || o.ReplayForce {
		return nil
	}
	return hints.Wrap(fmt.Errorf("%s: %w (%s; this one: %s)", set.replay.dir, recording.ErrOtherRepository, recorded, here),
		"replay it in a clone of the repository it was recorded in, or add --replay-force to replay it here anyway")
}

// recorder opens the recording of --record, if any.
func recorder(ctx context.Context, o *Options, set *Settings) (*recording.Recorder, error) {
	if o.Record == "" {
		return nil, nil
	}
	dir, err := filepath.Abs(o.Record)
	if err != nil {
		return nil, err
	}
	if err := outsideWorkTree(set.Loop.Dir, dir, "--record DIR"); err != nil {
		return nil, err
	}
	m := recording.Manifest{GitRalph: o.Version, Agent: set.Loop.Agent.Name, CreatedAt: time.Now().UTC()}
	if !set.Loop.Replay {
		m.AgentCmd = set.Loop.AgentCmd
	}
	r, err := recording.Create(ctx, dir, set.Loop.Dir, m)
	switch {
	case errors.Is(err, recording.ErrNotRecording):
		return nil, hints.Wrap(fmt.Errorf("--record: %w", err), "record into a new or empty directory")
	case errors.Is(err, recording.ErrOtherRepository):
		return nil, hints.Wrap(fmt.Errorf("--record: %w", err), "record into a new directory")
	case errors.Is(err, fs.ErrPermission):
		return nil, hints.Wrap(fmt.Errorf("--record: %w", err), "record into a directory you can write")
	case err != nil:
		return nil, fmt.Errorf("--record: %w", err)
	}
	return r, nil
}

// selfCommand is a command line that runs this very binary with args in place of the
// shell (exec), so that the agent's process is git-ralph itself and ends as it ends, by a
// signal too: "exec git-ralph …" when that is the git-ralph on PATH, else by its path.
func selfCommand(args ...string) (string, error) {
	exe, err := os.Executable()
	if err != nil {
		return "", fmt.Errorf("finding git-ralph's own executable: %w", err)
	}
	words := []string{"exec", schedule.ShellWord(exe)}
	if onPath, err := exec.LookPath("git-ralph"); err == nil && sameFile(onPath, exe) {
		words[1] = "git-ralph"
	}
	for _, a := range args {
		words = append(words, schedule.ShellWord(a))
	}
	return strings.Join(words, " "), nil
}

// outsideWorkTree refuses a recording inside the work tree at root, but for git-ralph's
// own directory there: the checkpoints would take it for the agent's work (a recording
// that records itself growing), and a replay's restore would write over it.
func outsideWorkTree(root, dir, flag string) error {
	rel, err := filepath.Rel(realPath(root), realPath(dir))
	sep := string(filepath.Separator)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+sep) || strings.HasPrefix(rel, history.Dir+sep) {
		return nil
	}
	return hints.Wrap(fmt.Errorf("%s: %s is inside the work tree", flag, dir),
		"keep recordings outside the repository, or under %s/ (which git ignores), e.g. %s/recordings/NAME", history.Dir, history.Dir)
}

// realPath is path with its symlinks resolved, as far as it exists.
func realPath(path string) string {
	if real, err := filepath.EvalSymlinks(path); err == nil {
		return real
	}
	if parent := filepath.Dir(path); parent != path {
		return filepath.Join(realPath(parent), filepath.Base(path))
	}
	return path
}
