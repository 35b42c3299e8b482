// Package serve is `git ralph serve`: a local web dashboard of the repository's loops.
//
// It renders what it is handed by the command (a Source: the loops as `runs` reads them,
// one loop's history records, one iteration's saved diff) with html/template, so every
// string a repository supplies is escaped. It is built to be safe on a shared machine:
// it listens on loopback unless told otherwise, under a random host name of its own
// (NAME.localhost, so that its cookie reaches no other local server; any other Host is
// refused, against DNS rebinding), every request carries a random token (once in the
// URL, then in an HttpOnly SameSite=Strict cookie), and a request that
// changes anything is a POST with a CSRF token and a same-origin Origin. Everything it
// serves is embedded in the binary: it works offline.
package serve
