#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A fixture of tests/lint-bats.py (tests/shell/lint.bats): the checks of
# hollow.bats written so that bats honours them. The lint accepts this
# file, and bats fails every test in it: each check is false. Conditions,
# a check guarding an action, and a '!' as a test's last line are fine.

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
	[ -z "" ] && echo "a check that guards an action"
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
