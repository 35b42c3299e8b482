// Package fielderr is the error of a bad value in a file, "FILE:LINE: FIELD: what is wrong" with a hint, and the "did you mean" for a misspelt name: a leaf the config, workflows and templates share.
package fielderr
