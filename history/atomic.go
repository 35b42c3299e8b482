package history

import (
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// tempSuffix ends the name of every file WriteFileAtomic is still writing. A leading dot and
// this suffix keep such files out of directory listings meant for people and out of the
// record numbering (a name like ".last.123.tmp" is never a number).
const tempSuffix = ".tmp"

// WriteFileAtomic replaces path with data so that a crash at any instant leaves either the
// old file or the new one, never a torn mix or an empty file:
//
//  1. the data goes to a new temp file in the same directory (rename is only atomic within
//     one filesystem),
//  2. the temp file is fsync'ed before the rename — without it, after a power loss, "a
//     zero-length file is a valid and possible outcome" (ext4 with delayed allocation),
//  3. rename replaces the target in one step,
//  4. the directory is fsync'ed so that the rename itself survives a power loss (Pillai et
//     al., OSDI 2014; google/renameio and natefinch/atomic skip this step).
//
// On any error the temp file is removed and the old file is left as it was. os.File.Sync is
// F_FULLFSYNC on macOS, so the data reaches the disk there too. Rename is not atomic on NFS
// with several clients; .ralph/ is expected to live on a local disk.
func WriteFileAtomic(path string, data []byte, perm fs.FileMode) (err error) {
	return writeFileAtomic(path, data, perm, true)
}

// ReplaceFile is WriteFileAtomic without the two fsyncs: a killed process (kill -9, a
// crash) still leaves the old file or the new one, since the page cache outlives it; only
// a power cut may bring back an older content. For a file whose older content is as good
// a state to resume from — the merge journal's records before the landing one — it
// saves a disk flush per write, milliseconds each on a busy disk.
func ReplaceFile(path string, data []byte, perm fs.FileMode) error {
	return writeFileAtomic(path, data, perm, false)
}

func writeFileAtomic(path string, data []byte, perm fs.FileMode, durable bool) (err error) {
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := createTemp(dir, base, perm)
	if err != nil {
		return fmt.Errorf("creating a temp file for %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err := fill(tmp, data, durable); err != nil {
		return fmt.Errorf("writing %s: %w", tmp.Name(), err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", tmp.Name(), err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	if !durable {
		return nil
	}
	return syncDir(dir)
}

// createTemp creates a new temp file ".base.<random>.tmp" in dir with perm, which the
// kernel trims by the umask as for any file (os.CreateTemp would make it 0600, and a
// chmod to perm would ignore the umask: a user with umask 077 found state.toml 0644).
func createTemp(dir, base string, perm fs.FileMode) (*os.File, error) {
	for range 100 {
		name := filepath.Join(dir, "."+base+"."+strconv.FormatUint(uint64(rand.Uint32()), 10)+tempSuffix)
		f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_EXCL, perm)
		if !errors.Is(err, fs.ErrExist) {
			return f, err
		}
	}
	return nil, fmt.Errorf("no free temp file name in %s", dir)
}

// fill writes data to a fresh temp file and, when durable, flushes it to the disk.
func fill(f *os.File, data []byte, durable bool) error {
	if _, err := f.Write(data); err != nil {
		return err
	}
	if !durable {
		return nil
	}
	return f.Sync()
}

// syncDir makes a rename in dir durable. Filesystems that cannot fsync a directory (some
// network and FUSE filesystems answer EINVAL or ENOTSUP) are accepted as they are: there is
// nothing more to be done there, and refusing would stop the loop for no gain.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("opening %s to sync it: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil && !errors.Is(err, syscall.EINVAL) && !errors.Is(err, syscall.ENOTSUP) {
		return fmt.Errorf("syncing directory %s: %w", dir, err)
	}
	return nil
}

// staleTempAge is how old a temp file must be before removeStaleTemps deletes it. A write
// takes milliseconds, so an hour-old temp file was left by a process that was killed
// between creating and renaming it; a younger one may belong to a writer still at work
// (`git ralph status` reading while the loop saves), which must not lose its file.
const staleTempAge = time.Hour

// removeStaleTemps deletes temp files of WriteFileAtomic for path that a killed process
// left behind. Errors are ignored: the leftovers are harmless clutter, ignored by git.
func removeStaleTemps(path string, now time.Time) {
	dir, base := filepath.Split(path)
	matches, _ := filepath.Glob(filepath.Join(dir, "."+escapeGlob(base)+".*"+tempSuffix))
	for _, m := range matches {
		if info, err := os.Lstat(m); err == nil && info.Mode().IsRegular() && now.Sub(info.ModTime()) > staleTempAge {
			os.Remove(m)
		}
	}
}

// escapeGlob quotes the characters filepath.Match treats specially.
func escapeGlob(s string) string {
	r := strings.NewReplacer(`\`, `\\`, "*", `\*`, "?", `\?`, "[", `\[`)
	return r.Replace(s)
}
