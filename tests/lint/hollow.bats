#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A fixture of tests/lint-bats.py (tests/shell/lint.bats): every test here
# holds a check that is false, and bats passes every one: no check is a
# test's last statement (that one's status is the test's). The lint must
# name each hollow line; tests/shell/lint.bats lists them by line.

@test "a negation that is not the test's last line" {
	! true
	echo "bats carries on"
}

@test "a negation in a loop, and in a case" {
	for x in 1 2; do
		! true
	done
	case $x in
	2) ! true ;;
	esac
	echo "bats carries on"
}

negates() {
	! true
	return 0
}

@test "a negation in a helper" {
	negates
}

@test "a chain of checks: only the last one can fail" {
	[ 1 = 2 ] && [ 1 = 1 ]
	[[ a == b ]] && grep -q . <<<"x"
	echo "bats carries on"
}

@test "a command, then a command: the first one's failure is lost" {
	mkdir /nonexistent/perfcap-lint 2>/dev/null && touch made
	echo "bats carries on"
}

@test "a check that cannot fail" {
	[ 1 = 2 ] || true
	grep -q never /dev/null || :
}

@test "one on a continued line, after a heredoc and a quoted string" {
	cat <<'TEXT' >/dev/null
! a heredoc's line is no command
TEXT
	s='
! a string on many lines is no command either'
	[ -n "$s" ] \
		&& [ 1 = 2 ] && [ -n "$s" ]
	echo "bats carries on"
}

# ---- perfcap's own status (issue 34): a stand-in that writes its output,
# then fails as a crash would; refute as helpers.bash has it.
P=crashing_perfcap
crashing_perfcap() {
	echo "PERFILE2 and then a crash"
	return 139
}
refute() {
	if "$@"; then return 1; fi
}

@test "perfcap on the left of a pipe without pipefail: its crash is lost" {
	"$P" record -o - | cat >/dev/null
}

@test "a skip on perfcap's own answer" {
	"$P" record --help >/dev/null || skip "perfcap said no"
}

@test "run, and nothing reads its status" {
	run "$P" dump f.data
	echo "$output"
}

@test "refute over a process substitution whose producer fails" {
	refute grep -q error <("$P" dump f.data)
}

@test "a check followed by what only says or sets something" {
	[ 1 = 2 ] && echo "equal"
	[ 1 = 2 ] && true
	[ 1 = 2 ] && x=1
	echo "bats carries on"
}

@test "perfcap left of a pipe inside \$(...): its crash is lost" {
	n=$("$P" test -l | wc -l)
	echo "$n tests"
}
