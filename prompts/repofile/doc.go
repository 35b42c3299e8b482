// Package repofile reads the files a repository (or a user) names — prompts, fragments,
// config files, injected texts — without trusting them: regular files only, inside the
// repository, within a size cap, never with an open that could block.
package repofile
