//go:build ignore

// archive writes the files under a directory into a .tar.gz or a .zip, for
// scripts/release.sh: in name order, under one top directory, every entry with the same
// time and with modes that say only whether a file is executable, so that the same
// files make the same archive on any machine (with the standard library alone, where tar
// and zip differ or are missing).
//
// Usage: go run scripts/archive.go OUT.tar.gz|OUT.zip TOPDIR DIR UNIXTIME
package main

import (
	"archive/tar"
	"archive/zip"
	"compress/gzip"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

func main() {
	if len(os.Args) != 5 {
		fmt.Fprintln(os.Stderr, "usage: go run scripts/archive.go OUT.tar.gz|OUT.zip TOPDIR DIR UNIXTIME")
		os.Exit(2)
	}
	out, top, dir := os.Args[1], os.Args[2], os.Args[3]
	secs, err := strconv.ParseInt(os.Args[4], 10, 64)
	if err != nil {
		fail(fmt.Errorf("UNIXTIME %q: %w", os.Args[4], err))
	}
	files, err := list(dir)
	if err != nil {
		fail(err)
	}
	f, err := os.Create(out)
	if err != nil {
		fail(err)
	}
	when := time.Unix(secs, 0).UTC()
	switch {
	case strings.HasSuffix(out, ".tar.gz"):
		err = writeTarGz(f, top, dir, files, when)
	case strings.HasSuffix(out, ".zip"):
		err = writeZip(f, top, dir, files, when)
	default:
		err = fmt.Errorf("%s: the archive's name must end in .tar.gz or .zip", out)
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(out)
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "archive:", err)
	os.Exit(1)
}

// list returns the regular files under dir, slash-separated and relative to it, in name
// order (WalkDir's).
func list(dir string) ([]string, error) {
	var files []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !d.Type().IsRegular() {
			return fmt.Errorf("%s is not a regular file", p)
		}
		rel, err := filepath.Rel(dir, p)
		files = append(files, filepath.ToSlash(rel))
		return err
	})
	return files, err
}

// mode is 0755 for an executable (the program, git-ralph or git-ralph.exe) and 0644 for
// the rest.
func mode(name string) int64 {
	if base := path.Base(name); base == "git-ralph" || base == "git-ralph.exe" {
		return 0o755
	}
	return 0o644
}

func writeTarGz(w io.Writer, top, dir string, files []string, when time.Time) error {
	gz, err := gzip.NewWriterLevel(w, gzip.BestCompression)
	if err != nil {
		return err
	}
	tw := tar.NewWriter(gz)
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		hdr := &tar.Header{Name: top + "/" + name, Mode: mode(name), Size: int64(len(data)), ModTime: when,
			Typeflag: tar.TypeReg, Format: tar.FormatPAX, Uname: "root", Gname: "root"}
		if err := tw.WriteHeader(hdr); err != nil {
			return err
		}
		if _, err := tw.Write(data); err != nil {
			return err
		}
	}
	if err := tw.Close(); err != nil {
		return err
	}
	return gz.Close()
}

func writeZip(w io.Writer, top, dir string, files []string, when time.Time) error {
	zw := zip.NewWriter(w)
	for _, name := range files {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(name)))
		if err != nil {
			return err
		}
		hdr := &zip.FileHeader{Name: top + "/" + name, Method: zip.Deflate, Modified: when}
		hdr.SetMode(fs.FileMode(mode(name)))
		fw, err := zw.CreateHeader(hdr)
		if err != nil {
			return err
		}
		if _, err := fw.Write(data); err != nil {
			return err
		}
	}
	return zw.Close()
}
