#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tests/lint-bats.py, which make check runs first: it refuses the checks
# that bats never fails on (a '!' that is not a test's last statement, the
# first checks of 'a && b', 'CHECK || true', 'CHECK && echo'), and the
# places where perfcap's own failure is lost (perfcap left of a pipe
# without pipefail, a skip on its answer, a run whose status nothing
# reads, a refute over a process substitution), and accepts them written
# so that they can fail. Its fixtures in tests/lint/ show both under bats.

load helpers

setup() {
	common_setup
	need_python
	LINT=$BATS_TEST_DIRNAME/../lint-bats.py
	FIX=$BATS_TEST_DIRNAME/../lint
}

@test "bats passes every test of the hollow fixture, though each holds a false check" {
	run -0 bats --tap "$FIX/hollow.bats"
	echo "$output"
	[ "$(grep -c '^ok ' <<<"$output")" = 13 ]
	refute grep -q '^not ok' <<<"$output"
}

@test "the lint names every hollow line of the fixture, with its rule, and exits 1" {
	run -1 "$LINT" "$FIX/hollow.bats"
	echo "$output"
	got=$(grep -oE '^[^:]+:[0-9]+: [a-z-]+' <<<"$output" | sed 's|.*/||')
	want='hollow.bats:9: negation
hollow.bats:15: negation
hollow.bats:18: negation
hollow.bats:24: negation
hollow.bats:33: and-list
hollow.bats:34: and-list
hollow.bats:39: and-list
hollow.bats:44: or-true
hollow.bats:45: or-true
hollow.bats:54: and-list
hollow.bats:71: pipe
hollow.bats:75: skip
hollow.bats:79: run
hollow.bats:84: refute
hollow.bats:88: action
hollow.bats:89: action
hollow.bats:90: action
hollow.bats:95: pipe'
	[ "$got" = "$want" ]
	grep -qx 'lint-bats: 18 hollow check(s): bats would pass a test where they fail' <<<"$output"
}

@test "the lint accepts the mended fixture, and bats fails every test in it" {
	run -0 "$LINT" "$FIX/clean.bats"
	[ -z "$output" ]
	run -1 bats --tap "$FIX/clean.bats"
	echo "$output"
	[ "$(grep -c '^not ok ' <<<"$output")" = 13 ]
	refute grep -q '^ok ' <<<"$output"
}

@test "the suite is clean: tests/shell/*.bats and helpers.bash" {
	run -0 "$LINT"
	[ -z "$output" ]
}

@test "the lint takes files, not options: an option is a usage error" {
	run -2 "$LINT" --bogus
	[[ $output == *"Usage: tests/lint-bats.py"* ]]
}
