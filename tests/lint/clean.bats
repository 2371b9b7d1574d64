#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A fixture of tests/lint-bats.py (tests/shell/lint.bats): the checks of
# hollow.bats written so that bats honours them. The lint accepts this
# file, and bats fails every test in it: each check is false. Conditions,
# a check guarding a command, and a '!' as a test's last line are fine.

load ../shell/helpers

@test "refute instead of a negation" {
	if ! true; then echo never; fi
	while ! true; do break; done
	refute true
	echo "not reached"
}

@test "run ! in a loop" {
	for x in 1 2; do
		[ "$x" = 0 ] && continue
		run ! true
	done
}

@test "a negation as the test's last line, with run !" {
	cat <<'TEXT' >/dev/null
! a heredoc's line is no command
TEXT
	[ -z "" ] && touch "$BATS_TEST_TMPDIR/guarded"
	run ! true
}

@test "one check a line" {
	[ 1 = 1 ]
	[ 1 = 2 ]
	[ 1 = 1 ]
}

@test "a chain that ends in || false" {
	[[ a == b ]] && grep -q . <<<"x" || false
}

@test "commands one a line" {
	mkdir /nonexistent/perfcap-lint 2>/dev/null
	touch made
}

@test "wait_for fails once its time is up" {
	wait_for -t 1 test -e /nonexistent/perfcap-lint
}

# ---- perfcap's own status (issue 34): the stand-in of hollow.bats.
P=crashing_perfcap
crashing_perfcap() {
	echo "PERFILE2 and then a crash"
	return 139
}

@test "pipefail: perfcap's crash fails the pipeline" {
	set -o pipefail
	"$P" record -o - | cat >/dev/null
}

@test "perfcap's answer is checked, not a reason to skip" {
	run "$P" record --help
	[ "$status" = 0 ]
}

@test "run -0 reads the status" {
	run -0 "$P" dump f.data
}

@test "the producer's output captured first, then refuted" {
	out=$("$P" dump f.data)
	refute grep -q error <<<"$out"
}

@test "a check on a line of its own, then what it says" {
	[ 1 = 2 ]
	echo "equal"
}

@test "perfcap's output captured first, then counted" {
	list=$("$P" test -l)
	wc -l <<<"$list"
}
