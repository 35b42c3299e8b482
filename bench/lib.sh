# Sourced by the bench scripts, from the repository's root: a scratch directory $tmp
# (removed on exit), and git-ralph plus the named helper programs of bench/ built into
# $tmp/bin, first on PATH.
#
#   . bench/lib.sh; build_tools [peakrss|mkhistory ...]
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
trap 'exit 130' INT TERM

build_tools() {
	echo "building git-ralph${1:+ and $*}..." >&2
	go build -o "$tmp/bin/git-ralph" ./cmd/git-ralph
	for tool in "$@"; do
		go build -o "$tmp/bin/$tool" "./bench/$tool"
	done
	PATH="$tmp/bin:$PATH"
	export PATH
}
