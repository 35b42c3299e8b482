// Package pathglob matches slash-separated paths against globs whose "**" segment means any depth (the protected paths): a leaf the config, the loop and the merge queue share.
package pathglob
