#!/bin/sh
# Builds git-ralph's release archives into dist/: for linux/amd64, linux/arm64,
# darwin/amd64, darwin/arm64 and windows/amd64 a .tar.gz (.zip for Windows) holding the
# program, the README, the man page and the bash, zsh and fish completion scripts, and
# dist/checksums.txt (SHA-256). Pure `go build` cross-compiles with cgo off, so it needs
# Go and nothing else; the archives are byte-for-byte the same for the same commit.
#
#   scripts/release.sh v1.2.0       # a release: the version the binaries print
#   scripts/release.sh --snapshot   # a snapshot of HEAD: 0.0.0-SNAPSHOT-<commit>
#
# docs/guide/install.md says how the archives are installed; docs/dev/releasing.md how they are made.
set -eu
cd "$(dirname "$0")/.."

case "${1:-}" in
--snapshot) version="0.0.0-SNAPSHOT-$(git rev-parse --short=12 HEAD)" ;;
v[0-9]*) version=$1 ;;
*)
	echo "usage: scripts/release.sh vX.Y.Z | --snapshot" >&2
	exit 2
	;;
esac
targets=${RELEASE_TARGETS:-"linux/amd64 linux/arm64 darwin/amd64 darwin/arm64 windows/amd64"}
# every archive entry gets the commit's time: the same commit makes the same archives
when=${SOURCE_DATE_EPOCH:-$(git log -1 --format=%ct)}
ldflags="-s -w -X main.version=$version"
dist=dist
rm -rf "$dist"
mkdir -p "$dist/tmp"
start=$(date +%s)

# the man page and completion scripts come from a build for this machine, so that they
# name the release's version
CGO_ENABLED=0 go build -trimpath -ldflags "$ldflags" -o "$dist/tmp/host/git-ralph" ./cmd/git-ralph
host="$dist/tmp/host/git-ralph"
"$host" version
mkdir -p "$dist/tmp/docs/man/man1" "$dist/tmp/docs/completions"
"$host" man >"$dist/tmp/docs/man/man1/git-ralph.1"
"$host" completion bash >"$dist/tmp/docs/completions/git-ralph.bash"
"$host" completion zsh >"$dist/tmp/docs/completions/_git-ralph"
"$host" completion fish >"$dist/tmp/docs/completions/git-ralph.fish"
cp README.md "$dist/tmp/docs/README.md"

for target in $targets; do
	os=${target%/*}
	arch=${target#*/}
	name="git-ralph_${version#v}_${os}_${arch}"
	stage="$dist/tmp/$name"
	mkdir -p "$stage"
	cp -R "$dist/tmp/docs/." "$stage/"
	exe=git-ralph
	[ "$os" = windows ] && exe=git-ralph.exe
	CGO_ENABLED=0 GOOS=$os GOARCH=$arch go build -trimpath -ldflags "$ldflags" -o "$stage/$exe" ./cmd/git-ralph
	archive="$dist/$name.tar.gz"
	[ "$os" = windows ] && archive="$dist/$name.zip"
	go run scripts/archive.go "$archive" "$name" "$stage" "$when"
	echo "built $archive"
done
rm -rf "$dist/tmp"

(
	cd "$dist"
	archives=$(ls | grep -E '[.](tar[.]gz|zip)$')
	if command -v sha256sum >/dev/null 2>&1; then
		sha256sum -- $archives >checksums.txt
	else
		shasum -a 256 -- $archives >checksums.txt
	fi
	cat checksums.txt
)
echo "release $version: $(ls "$dist" | wc -l | tr -d ' ') files in $dist/ in $(($(date +%s) - start))s"
