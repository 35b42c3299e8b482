package gitops

import (
	"os"
	"path/filepath"
	"testing"
)

// Where a hostile or unusual repository makes git answer otherwise (or refuse), the files
// must not answer for it: rootFromFiles either agrees with git or leaves it to git.
func TestRootFromFilesNeverAnswersOtherwiseThanGit(t *testing.T) {
	appendConfig := func(text string) func(t *testing.T, dir string) {
		return func(t *testing.T, dir string) {
			f, err := os.OpenFile(filepath.Join(dir, ".git", "config"), os.O_APPEND|os.O_WRONLY, 0)
			if err != nil {
				t.Fatal(err)
			}
			defer f.Close()
			f.WriteString(text)
		}
	}
	cases := map[string]func(t *testing.T, dir string){
		"bare on the section's line":         appendConfig("[core] bare = true\n"),
		"bare glued to the section":          appendConfig("[core]bare\n"),
		"unknown repository format version":  appendConfig("[core]\n\trepositoryformatversion = 2\n"),
		"format version on the section line": appendConfig("[core] repositoryformatversion = 2\n"),
		"unknown extension":                  appendConfig("[core]\n\trepositoryformatversion = 1\n[extensions]\n\tnosuchthing = yes\n"),
		"broken configuration":               appendConfig("[core\n"),
		"junk HEAD in a linked worktree's git directory": func(t *testing.T, dir string) {
			wt := filepath.Join(dir, "dir", "wt")
			run(t, dir, "worktree", "add", "-q", "--detach", wt)
			os.WriteFile(filepath.Join(dir, ".git", "worktrees", "wt", "HEAD"), []byte("junk\n"), 0o644)
		},
		"junk .git file": func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "dir", "junk"), 0o755)
			os.WriteFile(filepath.Join(dir, "dir", "junk", ".git"), []byte("gitdir: nowhere\n"), 0o644)
		},
		"a .git file naming the parent's git directory": func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "dir", "junk"), 0o755)
			os.WriteFile(filepath.Join(dir, "dir", "junk", ".git"), []byte("gitdir: ../../.git\r\n"), 0o644)
		},
		"a .git file with a space too many": func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "dir", "junk"), 0o755)
			os.WriteFile(filepath.Join(dir, "dir", "junk", ".git"), []byte("gitdir:  ../../.git\n"), 0o644)
		},
		"a .git symlink": func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "dir", "junk"), 0o755)
			os.Symlink(filepath.Join(dir, ".git"), filepath.Join(dir, "dir", "junk", ".git"))
		},
		"a nested repository": func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "dir", "junk"), 0o755)
			run(t, filepath.Join(dir, "dir", "junk"), "init", "-q")
		},
		"a submodule": func(t *testing.T, dir string) {
			sub := committedRepo(t)
			run(t, dir, "-c", "protocol.file.allow=always", "submodule", "add", "-q", sub, "dir/junk")
		},
		"a .git directory with a commondir elsewhere": func(t *testing.T, dir string) {
			other := committedRepo(t)
			os.WriteFile(filepath.Join(dir, ".git", "commondir"), []byte(filepath.Join(other, ".git")+"\n"), 0o644)
		},
		"a junk HEAD": func(t *testing.T, dir string) {
			os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte("ref:refs/heads/main\n"), 0o644)
		},
		"empty .git file": func(t *testing.T, dir string) {
			os.MkdirAll(filepath.Join(dir, "dir", "junk"), 0o755)
			os.WriteFile(filepath.Join(dir, "dir", "junk", ".git"), nil, 0o644)
		},
	}
	for name, setup := range cases {
		t.Run(name, func(t *testing.T) {
			dir := committedRepo(t)
			setup(t, dir)
			for _, at := range []string{dir, filepath.Join(dir, "dir"), filepath.Join(dir, "dir", "wt"), filepath.Join(dir, "dir", "junk")} {
				if _, err := os.Stat(at); err != nil {
					continue
				}
				want := rootByGit(at)
				if got, ok := rootFromFiles(at); ok && got != want {
					t.Errorf("rootFromFiles(%s) = %q; git says %q", at, got, want)
				}
			}
		})
	}
}

func TestRootFromFilesLeavesCommandLineConfigurationToGit(t *testing.T) {
	dir := committedRepo(t)
	for name, env := range map[string][][2]string{
		"git -c core.bare=true": {{"GIT_CONFIG_PARAMETERS", "'core.bare'='true'"}},
		"GIT_CONFIG_COUNT":      {{"GIT_CONFIG_COUNT", "1"}, {"GIT_CONFIG_KEY_0", "core.bare"}, {"GIT_CONFIG_VALUE_0", "true"}},
	} {
		t.Run(name, func(t *testing.T) {
			for _, kv := range env {
				t.Setenv(kv[0], kv[1])
			}
			want := rootByGit(dir)
			if got, ok := rootFromFiles(dir); ok && got != want {
				t.Errorf("rootFromFiles = %q; git says %q", got, want)
			}
		})
	}
}

// git refuses an empty GIT_DIR or GIT_WORK_TREE (an empty path is no repository): set is set.
func TestRootFromFilesLeavesAnEmptyGitDirToGit(t *testing.T) {
	dir := committedRepo(t)
	for _, name := range []string{"GIT_DIR", "GIT_WORK_TREE"} {
		t.Run(name, func(t *testing.T) {
			t.Setenv(name, "")
			if got, ok := rootFromFiles(dir); ok {
				t.Errorf("rootFromFiles with %s='' = %q; git says %q", name, got, rootByGit(dir))
			}
		})
	}
}

// The files git reads a few bytes of (HEAD, a .git file, commondir, config) may be huge
// or endless in a hostile repository: they are read within a bound, never whole.
func TestRootFromFilesReadsWithinBounds(t *testing.T) {
	// git itself reads a commondir whole: a smaller one, for it to answer in time
	for name, size := range map[string]int64{"HEAD": 1 << 40, "config": 1 << 40, "commondir": 1 << 20} {
		t.Run(name, func(t *testing.T) {
			dir := committedRepo(t)
			fake := filepath.Join(dir, "dir", "junk", ".git")
			for _, sub := range []string{"objects", "refs"} {
				os.MkdirAll(filepath.Join(fake, sub), 0o755)
			}
			os.WriteFile(filepath.Join(fake, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644)
			huge := filepath.Join(fake, name)
			if err := os.WriteFile(huge, nil, 0o644); err != nil {
				t.Fatal(err)
			}
			if err := os.Truncate(huge, size); err != nil { // sparse: nothing on the disk
				t.Skip("no sparse files here:", err)
			}
			at := filepath.Join(dir, "dir", "junk")
			want := rootByGit(at)
			if got, ok := rootFromFiles(at); ok && got != want {
				t.Errorf("rootFromFiles = %q; git says %q", got, want)
			}
		})
	}
}
