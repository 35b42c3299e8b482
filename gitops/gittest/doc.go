// Package gittest: for tests only, the hermetic git environment and small repositories of the packages' tests.
package gittest
