//go:build !unix

package templates

import "errors"

func mkfifo(string) error { return errors.New("no FIFOs here") }
