#!/bin/sh
# Checks that `go install github.com/git-ralph/git-ralph/cmd/git-ralph@latest` works
# from a clean GOPATH and that `git-ralph version` then names the module version. The
# module is served from a file-based module proxy in a temporary directory, built from
# HEAD as the Go module proxy serves a tag ($proxy/github.com/git-ralph/git-ralph/@v/list,
# VERSION.info, .mod, .zip); its dependencies come from this machine's module cache
# first, then from GOPROXY. The module, build and GOPATH caches are empty, so the time it
# prints is a cold install's.
#
#   scripts/install-check.sh [VERSION]    (default v0.0.0-installcheck)
set -eu
cd "$(dirname "$0")/.."

version=${1:-v0.0.0-installcheck}
module=github.com/git-ralph/git-ralph
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
cache=$(go env GOMODCACHE)/cache/download
upstream=$(go env GOPROXY)

# the proxy: a module zip holds the files of the commit under MODULE@VERSION/
at="$tmp/proxy/$module/@v"
mkdir -p "$at"
git archive --format=zip --prefix="$module@$version/" -o "$at/$version.zip" HEAD
git show HEAD:go.mod >"$at/$version.mod"
printf '{"Version":"%s","Time":"%s"}\n' "$version" "$(git show -s --format=%cI HEAD)" >"$at/$version.info"
echo "$version" >"$at/list"

# a user's machine: nothing cached, outside any module
mkdir -p "$tmp/home"
start=$(date +%s)
(
	cd "$tmp/home"
	env GOPATH="$tmp/gopath" GOMODCACHE="$tmp/gopath/pkg/mod" GOCACHE="$tmp/gocache" GOBIN= \
		GOFLAGS=-mod=mod GOSUMDB=off GOTOOLCHAIN=local \
		GOPROXY="file://$tmp/proxy,file://$cache,$upstream" \
		go install "$module/cmd/git-ralph@latest"
)
elapsed=$(($(date +%s) - start))

got=$("$tmp/gopath/bin/git-ralph" version)
if [ "$got" != "git-ralph $version" ]; then
	echo "install-check: git-ralph version printed \"$got\", want \"git-ralph $version\"" >&2
	exit 1
fi
"$tmp/gopath/bin/git-ralph" completion bash | grep -q __git_ralph || {
	echo "install-check: the installed git-ralph printed no bash completion" >&2
	exit 1
}
echo "install-check: go install $module/cmd/git-ralph@latest from a clean GOPATH: \"$got\" in ${elapsed}s" \
	"(module cache $(du -sh "$tmp/gopath/pkg/mod" | cut -f1), build cache $(du -sh "$tmp/gocache" | cut -f1))"
