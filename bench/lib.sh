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

# build_baseline: when BASELINE names a commit of this repository, git-ralph as of that
# commit is built into $tmp/base/git-ralph, for the scripts that measure it beside the
# checkout's build in the same run, alternating (the machine's load moves between runs).
# $base is that binary, or empty.
build_baseline() {
	base=
	[ -n "${BASELINE:-}" ] || return 0
	echo "building git-ralph at $BASELINE (the baseline)..." >&2
	mkdir "$tmp/base-src"
	git archive "$BASELINE" | tar -x -C "$tmp/base-src"
	(cd "$tmp/base-src" && go build -o "$tmp/base/git-ralph" ./cmd/git-ralph)
	rm -rf "$tmp/base-src"
	base="$tmp/base/git-ralph"
}
