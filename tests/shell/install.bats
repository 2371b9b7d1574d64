#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Shipping: make install/uninstall into a DESTDIR, the installed binary's
# own `perfcap test`, the man pages, the bash completion, make dist, and
# the Debian package (debian/) built from a clean clone, checked by
# lintian, installed, run and purged.

load helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
OUTDIR=$(dirname "$W")

setup() {
	common_setup
}

# make in the checkout, never rebuilding the binary under test (another
# engineer may be editing the tree): -o marks it up to date.
mk() {
	make -C "$TOP" --no-print-directory -s OUT="$OUTDIR" BIN="$P" -o "$P" "$@"
}

# A command without what `make check` hands down: its MAKEFLAGS carry
# OUT=... BIN=... as command-line variables into every make below.
clean_env() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u OUT -u BIN -u TESTS "$@"
}

# The commands perfcap --help lists.
commands() {
	local help
	help=$("$P" --help)
	sed -nE 's/^  ([a-z][a-z-]*)  +[a-z].*/\1/p' <<<"$help"
}

@test "make install into a DESTDIR: the binary, a man page for every command, bash completion; make uninstall removes them" {
	d=$BATS_TEST_TMPDIR/root
	run -0 mk install DESTDIR="$d" PREFIX=/usr
	find "$d" -type f -printf '%P\n' | sort >got
	{
		echo usr/bin/perfcap
		echo usr/share/bash-completion/completions/perfcap
		for c in "" $(commands); do echo "usr/share/man/man1/perfcap${c:+-$c}.1"; done
		for f in "$TOP"/doc/*.1; do echo "usr/share/man/man1/${f##*/}"; done
	} | sort -u >want
	diff want got
	# Every command has its page; the five the issue names among them.
	for c in record loss dump test; do grep -qx "usr/share/man/man1/perfcap-$c.1" got; done
	grep -qx usr/share/man/man1/perfcap.1 got
	[ -x "$d/usr/bin/perfcap" ]
	[ "$(stat -c %a "$d/usr/share/man/man1/perfcap.1")" = 644 ]
	cmp "$P" "$d/usr/bin/perfcap"
	run -0 mk uninstall DESTDIR="$d" PREFIX=/usr
	[ -z "$(find "$d" -type f)" ]
	# PREFIX defaults to /usr/local.
	run -0 mk install DESTDIR="$d"
	[ -x "$d/usr/local/bin/perfcap" ]
	[ -f "$d/usr/local/share/man/man1/perfcap-record.1" ]
	[ -f "$d/usr/local/share/bash-completion/completions/perfcap" ]
	run -0 mk uninstall DESTDIR="$d"
	[ -z "$(find "$d" -type f)" ]
}

@test "the installed binary runs its own perfcap test away from the source tree" {
	d=$BATS_TEST_TMPDIR/root
	run -0 mk install DESTDIR="$d" PREFIX=/usr
	cd /
	run "$d/usr/bin/perfcap" test 1 2 writer sigkill
	echo "$output"
	[ "$status" = 0 ]
	[ "$(wc -l <<<"$output")" = 6 ]
	[ "$(grep -cE ' : (Ok|Skip \(.+\))$' <<<"$output")" = 6 ]
	selftest_skips_are_the_machines
	grep -qE '^ 1: .* : Ok$' <<<"$output"
	# It ran itself, the installed copy, as the recorder and the workload.
	run -0 "$d/usr/bin/perfcap" test -v 2
	grep -qF "$d/usr/bin/perfcap record" <<<"$output"
	refute grep -qF "$TOP" <<<"$output"
}

@test "the man pages render without a warning; perfcap(1) names every command" {
	command -v man >/dev/null || skip "man is not installed"
	for f in "$TOP"/doc/*.1; do
		err=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -E UTF-8 -l "$f" 2>&1 >/dev/null)
		echo "$f: $err"
		[ -z "$err" ]
	done
	page=$(MANWIDTH=200 man -l "$TOP/doc/perfcap.1" 2>/dev/null)
	for c in $(commands); do
		grep -qE "perfcap-$c\(1\)" <<<"$page"
	done
}

@test "perfcap-record(1) documents every option perfcap record --list-options names" {
	command -v man >/dev/null || skip "man is not installed"
	page=$(MANWIDTH=200 man -l "$TOP/doc/perfcap-record.1" 2>/dev/null)
	missing=()
	opts=$("$P" record --list-options)
	for o in $(tr -d = <<<"$opts" | grep -vx -- --list-opts); do
		# an option's entry starts a line: "-e, --event=events", "--aio[=n]"
		grep -qE -- "^ +(-[a-zA-Z], )?$o([ =,[]|$)|^ +-[a-zA-Z], $o|, $o([ =,[]|$)" <<<"$page" ||
			missing+=("$o")
	done
	echo "not in the man page: ${missing[*]}"
	[ ${#missing[@]} -eq 0 ]
}

# What completing the last word of a command line offers, one per line.
complete_line() { # LINE
	bash -c '
		source "$1"
		COMP_LINE=$2
		read -ra COMP_WORDS <<<"$2"
		[[ $2 == *" " ]] && COMP_WORDS+=("")
		COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_perfcap
		printf "%s\n" "${COMPREPLY[@]}"
	' _ "$TOP/completions/perfcap.bash" "$1"
}

@test "bash completion: the commands, and record's options as perfcap record --help lists them" {
	# The completion runs the perfcap first on PATH.
	mkdir bin
	ln -s "$P" bin/perfcap
	export PATH=$PWD/bin:$PATH
	run -0 complete_line "perfcap "
	for c in $(commands); do grep -qx "$c" <<<"$output"; done
	run -0 complete_line "perfcap rec"
	[ "$output" = record ]
	# Every long option of record's help, and nothing else.
	help=$("$P" record --help)
	sed -nE 's/^ +(-.*)/\1/p' <<<"$help" | sed -E 's/   *.*//' |
		grep -oE -- '--[a-z][a-z-]*(\[=)?' | sed 's/\[=$/=/' | sort -u >want
	[ "$(wc -l <want)" -ge 20 ]
	complete_line "perfcap record --" | sort >got
	diff want got
	run -0 complete_line "perfcap record --writer "
	[ "$(sort <<<"$output" | tr '\n' ' ')" = "aio sync uring " ]
	run -0 complete_line "perfcap record -o out.data --wr"
	[ "$output" = --writer ]
	run -0 complete_line "perfcap loss --j"
	[ "$output" = --json ]
	run -0 complete_line "perfcap test -"
	grep -qx -- --list <<<"$output"
	run -0 complete_line "perfcap test 1"
	grep -qx 1 <<<"$output"
	grep -qx 10 <<<"$output"
}

@test "the version: git describe in a checkout; debian/changelog names the release in src/version.h" {
	base=$(sed -nE 's/^#define PERFCAP_BASE_VERSION "(.*)"$/\1/p' "$TOP/src/version.h")
	[ -n "$base" ]
	run -0 "$P" --version
	[[ $output =~ ^perfcap\ version\ [0-9]+\.[0-9]+ ]]
	# As perf: "perf -v", "perf --version" and "perf version" say the same.
	v1=$output
	run -0 "$P" -v
	[ "$output" = "$v1" ]
	run -0 "$P" version
	[ "$output" = "$v1" ]
	pkg=$(sed -nE '1s/^perfcap \(([^)-]+)(-[^)]*)?\).*/\1/p' "$TOP/debian/changelog")
	echo "src/version.h $base, debian/changelog $pkg"
	[ "$pkg" = "$base" ]
	[ -e "$TOP/.git" ] || skip "not a git checkout"
	v=$("$TOP/scripts/version.sh")
	echo "scripts/version.sh: $v"
	[[ $v == "$base-g"* ]] || [[ $v =~ ^[0-9] ]]
	grep -qF "$(git -C "$TOP" rev-parse --short=7 HEAD)" <<<"$v" ||
		git -C "$TOP" describe --tags --match 'v[0-9]*' >/dev/null 2>&1
}

@test "make dist: a tarball of HEAD with a VERSION file, which builds without git and reports that version" {
	[ -e "$TOP/.git" ] || skip "not a git checkout"
	run -0 mk OUT="$BATS_TEST_TMPDIR/o" dist
	tarball=$(ls "$BATS_TEST_TMPDIR"/o/perfcap-*.tar.gz)
	v=$(basename "$tarball" .tar.gz)
	v=${v#perfcap-}
	[ "$v" = "$("$TOP/scripts/version.sh" | sed 's/-dirty$//')" ]
	tar -tzf "$tarball" >list
	grep -qx "perfcap-$v/VERSION" list
	grep -qx "perfcap-$v/debian/control" list
	refute grep -q '/\.git/' list
	mkdir x
	tar -xzf "$tarball" -C x
	[ "$(cat "x/perfcap-$v/VERSION")" = "$v" ]
	# No git to ask: GIT_DIR points nowhere and the tree has no .git.
	cd "x/perfcap-$v"
	GIT_DIR=/nonexistent clean_env nice make -s -j2 OUT=b BIN=pc pc >make.log 2>&1 ||
		{ cat make.log; false; }
	run -0 ./pc --version
	[ "$output" = "perfcap version $v" ]
}

@test "dpkg-buildpackage builds perfcap_*.deb from a clean clone of HEAD; lintian prints no error" {
	# About a minute and a half on the 2-CPU VM; the acceptance of the package.
	[ -z "${PERFCAP_SKIP_PACKAGE:-}" ] || skip "PERFCAP_SKIP_PACKAGE is set"
	[ -e "$TOP/.git" ] || skip "not a git checkout"
	command -v dpkg-buildpackage >/dev/null && command -v dh >/dev/null ||
		skip "dpkg-dev and debhelper are not installed (scripts/install-deps.sh installs them)"
	command -v lintian >/dev/null || skip "lintian is not installed (scripts/install-deps.sh)"
	dpkg-checkbuilddeps "$TOP/debian/control" ||
		skip "build-depends missing: apt-get build-dep $TOP (or scripts/install-deps.sh)"
	pkg=$BATS_FILE_TMPDIR/pkg
	rm -rf "$pkg"
	mkdir -p "$pkg"
	git clone -q "$TOP" "$pkg/perfcap"
	cd "$pkg/perfcap"
	clean_env nice dpkg-buildpackage -us -uc -b >"$pkg/build.log" 2>&1 ||
		{ tail -40 "$pkg/build.log"; false; }
	# dh_auto_test ran the unit tests and only them.
	grep -q '^== build/tests/test_options' "$pkg/build.log"
	refute grep -q 'end-to-end' "$pkg/build.log"
	deb=$(ls "$pkg"/perfcap_*_*.deb)
	dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./||' | grep -v '/$' | sort >files
	cat files
	grep -qx usr/bin/perfcap files
	grep -qx usr/share/man/man1/perfcap-record.1.gz files
	grep -qx usr/share/man/man1/perfcap-test.1.gz files
	grep -qx usr/share/bash-completion/completions/perfcap files
	grep -qx usr/share/doc/perfcap/copyright files
	# No error; with --fail-on error lintian's status says so too.
	run lintian --fail-on error "$pkg"/perfcap_*.changes
	echo "$output"
	[ "$status" = 0 ]
	refute grep -q '^E: ' <<<"$output"
}

@test "the package installs, perfcap test passes, man perfcap-record opens, dpkg -P leaves nothing behind" {
	need_root
	deb=$(ls "$BATS_FILE_TMPDIR"/pkg/perfcap_*_*.deb 2>/dev/null) ||
		skip "no package was built (the test above)"
	if dpkg -s perfcap >/dev/null 2>&1; then
		skip "a perfcap package is installed already"
	fi
	[ ! -e /usr/bin/perfcap ] || skip "/usr/bin/perfcap exists already"
	dpkg -i "$deb"
	dpkg -L perfcap >owned
	run /usr/bin/perfcap test 1 2 tracepoint uring sigint loss
	echo "$output"
	st=$status
	man -w perfcap-record >manpath || true
	mantext=$(MANWIDTH=80 man perfcap-record 2>/dev/null | head -5 || true)
	dpkg -P perfcap
	[ "$st" = 0 ]
	[ "$(grep -cE ' : (Ok|Skip \(.+\))$' <<<"$output")" = 6 ]
	[ "$(cat manpath)" = /usr/share/man/man1/perfcap-record.1.gz ]
	grep -q perfcap-record <<<"$mantext"
	# Purged: no file the package owned, no dpkg state, no test directory.
	refute dpkg -s perfcap >/dev/null 2>&1
	while read -r f; do
		[ -d "$f" ] && continue
		[ ! -e "$f" ] || { echo "left behind: $f"; false; }
	done <owned
	[ -z "$(ls /var/lib/dpkg/info/perfcap.* 2>/dev/null)" ]
	[ ! -e /usr/share/doc/perfcap ]
	[ ! -e /etc/perfcap ]
	refute compgen -G "${TMPDIR:-/tmp}/perfcap-test.*" >/dev/null
}
