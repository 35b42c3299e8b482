package apiagent

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"
)

const (
	defaultReadLines = 2000 // lines read_file gives when no limit is asked
	maxLineBytes     = 2000 // longer lines are cut in read_file's and grep's results
	maxListEntries   = 1000
)

type readArgs struct {
	Path   string `json:"path"`
	Offset int    `json:"offset"`
	Limit  int    `json:"limit"`
}

// read gives lines of a text file, numbered, within the result's bound: the note at the
// end says where to read on.
func (t *toolbox) read(a readArgs) (string, error) {
	rel, err := t.local(a.Path)
	if err != nil {
		return "", err
	}
	f, err := t.root.Open(rel)
	if err != nil {
		return "", t.pathError(a.Path, err)
	}
	defer f.Close()
	if info, err := f.Stat(); err == nil && info.IsDir() {
		return "", refuse("%s is a directory: use list_dir", a.Path)
	}
	r := bufio.NewReaderSize(f, 64<<10)
	if head, _ := r.Peek(8000); bytes.IndexByte(head, 0) >= 0 {
		return "", refuse("%s is a binary file: not shown", a.Path)
	}
	first, limit := max(a.Offset, 1), a.Limit
	if limit <= 0 {
		limit = defaultReadLines
	}
	return numberLines(r, first, limit, t.maxOut-200)
}

// numberLines writes lines first … first+limit-1 of r with their numbers, up to budget
// bytes, and a note when lines were left.
func numberLines(r *bufio.Reader, first, limit, budget int) (string, error) {
	var b strings.Builder
	n := 0
	for {
		line, err := r.ReadString('\n')
		if len(line) == 0 && err != nil {
			if err != io.EOF {
				return "", refuse("reading: %v", err)
			}
			if n < first {
				return fmt.Sprintf("[the file has %d lines: none from line %d]", n, first), nil
			}
			return b.String(), nil
		}
		n++
		if n < first {
			continue
		}
		if n >= first+limit || b.Len()+len(line) > budget && b.Len() > 0 {
			fmt.Fprintf(&b, "[more lines follow: read on with offset %d]", n)
			return b.String(), nil
		}
		fmt.Fprintf(&b, "%6d\t%s\n", n, cutLine(strings.TrimRight(line, "\r\n")))
	}
}

func cutLine(line string) string {
	if len(line) <= maxLineBytes {
		return line
	}
	return bound(line, maxLineBytes)[:maxLineBytes] + " [line cut]"
}

type writeArgs struct {
	Path    string  `json:"path"`
	Content *string `json:"content"`
}

func (t *toolbox) write(a writeArgs) (string, error) {
	if a.Content == nil {
		return "", refuse("write_file needs content (the file's whole new content)")
	}
	rel, err := t.writable(a.Path)
	if err != nil {
		return "", err
	}
	mode, existed := fs.FileMode(0o644), false
	if info, err := t.root.Stat(rel); err == nil {
		if info.IsDir() {
			return "", refuse("%s is a directory", a.Path)
		}
		mode, existed = info.Mode().Perm(), true
	}
	if dir := filepath.Dir(rel); dir != "." {
		if err := t.root.MkdirAll(dir, 0o755); err != nil {
			return "", t.pathError(a.Path, err)
		}
	}
	if err := t.replaceFile(rel, []byte(*a.Content), mode); err != nil {
		return "", t.pathError(a.Path, err)
	}
	verb := "created"
	if existed {
		verb = "replaced"
	}
	return fmt.Sprintf("%s %s (%d bytes)", verb, a.Path, len(*a.Content)), nil
}

type editArgs struct {
	Path       string `json:"path"`
	OldText    string `json:"old_text"`
	NewText    string `json:"new_text"`
	ReplaceAll bool   `json:"replace_all"`
}

// edit replaces exact text, refusing text that is missing, or ambiguous without
// replace_all, with what the model should do instead.
func (t *toolbox) edit(a editArgs) (string, error) {
	if a.OldText == "" {
		return "", refuse("old_text is empty: give the exact text to replace (write_file writes a whole file)")
	}
	rel, err := t.writable(a.Path)
	if err != nil {
		return "", err
	}
	info, err := t.root.Stat(rel)
	if err != nil {
		return "", t.pathError(a.Path, err)
	}
	data, err := t.root.ReadFile(rel)
	if err != nil {
		return "", t.pathError(a.Path, err)
	}
	text := string(data)
	count := strings.Count(text, a.OldText)
	switch {
	case count == 0:
		return "", refuse("old_text was not found in %s: read the file again and copy the text exactly, whitespace and indentation included", a.Path)
	case count > 1 && !a.ReplaceAll:
		return "", refuse("old_text occurs %d times in %s (at lines %s): include more of the surrounding text so that it occurs once, or set replace_all to replace every one",
			count, a.Path, occurrenceLines(text, a.OldText))
	}
	n := 1
	if a.ReplaceAll {
		n = -1
	}
	if err := t.replaceFile(rel, []byte(strings.Replace(text, a.OldText, a.NewText, n)), info.Mode().Perm()); err != nil {
		return "", t.pathError(a.Path, err)
	}
	if a.ReplaceAll {
		return fmt.Sprintf("replaced %d occurrences in %s", count, a.Path), nil
	}
	return "replaced 1 occurrence in " + a.Path, nil
}

// occurrenceLines lists the lines at which old starts in text: "3, 17, 40".
func occurrenceLines(text, old string) string {
	var lines []string
	offset := 0
	for len(lines) < 10 {
		i := strings.Index(text[offset:], old)
		if i < 0 {
			break
		}
		offset += i
		lines = append(lines, fmt.Sprint(strings.Count(text[:offset], "\n")+1))
		offset += len(old)
	}
	return strings.Join(lines, ", ")
}

type listArgs struct {
	Path string `json:"path"`
}

func (t *toolbox) list(a listArgs) (string, error) {
	rel, err := t.local(a.Path)
	if err != nil {
		return "", err
	}
	f, err := t.root.Open(rel)
	if err != nil {
		return "", t.pathError(a.Path, err)
	}
	defer f.Close()
	entries, err := f.ReadDir(-1)
	if err != nil {
		return "", refuse("%s is not a directory it can list: %v", a.Path, errors.Unwrap(err))
	}
	var b strings.Builder
	for i, e := range sortedEntries(entries) {
		if i == maxListEntries {
			fmt.Fprintf(&b, "[%d more entries not shown]\n", len(entries)-i)
			break
		}
		b.WriteString(entryLine(e))
	}
	if b.Len() == 0 {
		return "(empty directory)", nil
	}
	return b.String(), nil
}

func entryLine(e fs.DirEntry) string {
	switch {
	case e.IsDir():
		return e.Name() + "/\n"
	case e.Type()&fs.ModeSymlink != 0:
		return e.Name() + " (symbolic link)\n"
	}
	if info, err := e.Info(); err == nil {
		return fmt.Sprintf("%s (%d bytes)\n", e.Name(), info.Size())
	}
	return e.Name() + "\n"
}

// replaceFile writes data as the file rel by writing a new file beside it and renaming it
// over the old one: a file that is a hard link to another (to one of .git's, made with
// bash) is replaced, not written through, and a crash leaves the old file or the new one,
// never half of it.
func (t *toolbox) replaceFile(rel string, data []byte, mode fs.FileMode) error {
	tmp := filepath.Join(filepath.Dir(rel), fmt.Sprintf(".%s.git-ralph-%d.tmp", filepath.Base(rel), time.Now().UnixNano()))
	f, err := t.root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, mode)
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = t.root.Chmod(tmp, mode) // the umask may have taken bits off
	}
	if err == nil {
		err = t.root.Rename(tmp, rel)
	}
	if err != nil {
		_ = t.root.Remove(tmp)
	}
	return err
}
