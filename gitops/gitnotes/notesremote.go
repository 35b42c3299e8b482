package gitnotes

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/git-ralph/git-ralph/gitops"
	"github.com/git-ralph/git-ralph/gitops/gitpush"
)

// Fetch fetches the remote's ref (a notes ref) into a scratch ref and merges it
// into the local ref of the same name (see Merge). found is false when the remote
// has no such ref: nothing to merge.
func Fetch(ctx context.Context, dir, remote, ref string) (found bool, err error) {
	scratch := scratchRef()
	defer deleteScratch(ctx, dir, scratch)
	_, err = gitops.Git(ctx, dir, "fetch", "--quiet", "--no-tags", "--no-write-fetch-head", "--no-recurse-submodules", "--no-auto-maintenance",
		"--end-of-options", remote, "+"+ref+":"+scratch)
	var gitErr *gitops.Error
	if errors.As(err, &gitErr) && strings.Contains(gitErr.Stderr, "couldn't find remote ref") {
		return false, nil
	}
	if errors.As(err, &gitErr) {
		return false, fmt.Errorf("git fetch of %s from %s failed: %s", ref, remote, gitpush.Reason(gitErr.Stderr))
	}
	if err != nil {
		return false, fmt.Errorf("fetching %s from %s: %w", ref, remote, err)
	}
	if err := Merge(ctx, dir, ref, scratch); err != nil {
		return true, fmt.Errorf("merging the %s of %s into this repository's: %s", ref, remote, gitMessage(err))
	}
	return true, nil
}

// Push sends the local notes ref to the remote's ref of the same name, never
// forcing. When the remote rejects it because its notes moved (a teammate, another
// machine or another loop pushed notes), they are fetched and merged (Fetch) and
// the push is tried again, notesPushAttempts times in all.
func Push(ctx context.Context, dir, remote, ref string) error {
	for attempt := 1; ; attempt++ {
		err := pushNotesOnce(ctx, dir, remote, ref)
		if err == nil || !isRejected(err) || attempt == notesPushAttempts {
			return err
		}
		if err := fetchNotesBounded(ctx, dir, remote, ref); err != nil {
			return err
		}
	}
}

// fetchNotesBounded is Fetch within Timeout, as a push is: a remote that
// rejected the push and then stops answering must not hang a loop nobody watches.
func fetchNotesBounded(ctx context.Context, dir, remote, ref string) error {
	ctx, cancel := context.WithTimeout(ctx, gitpush.Timeout)
	defer cancel()
	_, err := Fetch(ctx, dir, remote, ref)
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("git fetch %s %s: no answer within %s", remote, ref, gitpush.Timeout)
	}
	return err
}

func pushNotesOnce(ctx context.Context, dir, remote, ref string) error {
	ctx, cancel := context.WithTimeout(ctx, gitpush.Timeout)
	defer cancel()
	_, err := gitops.GitEnv(ctx, dir, []string{gitpush.AutoPushEnv}, "push", "--quiet", "--end-of-options", remote, ref+":"+ref)
	if ctx.Err() == context.DeadlineExceeded {
		return fmt.Errorf("git push %s %s: no answer within %s", remote, ref, gitpush.Timeout)
	}
	var gitErr *gitops.Error
	if errors.As(err, &gitErr) {
		return &notesPushError{remote: remote, ref: ref, stderr: gitErr.Stderr}
	}
	return err
}

// notesPushError is a push of notes the remote refused, with git's words.
type notesPushError struct{ remote, ref, stderr string }

func (e *notesPushError) Error() string {
	return fmt.Sprintf("git push of %s to %s failed: %s", e.ref, e.remote, gitpush.Reason(e.stderr))
}

// isRejected reports whether err is a push refused because the remote's ref moved: a
// fetch and a merge can fix that (a hook's refusal, "[remote rejected]", they cannot).
func isRejected(err error) bool {
	var e *notesPushError
	return errors.As(err, &e) && strings.Contains(e.stderr, "[rejected]")
}

// gitMessage is what git said in err, without the command line and git's advice; other
// errors as they are.
func gitMessage(err error) string {
	var gitErr *gitops.Error
	if errors.As(err, &gitErr) {
		return gitpush.Reason(gitErr.Stderr)
	}
	return err.Error()
}
