#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# tests/run itself (issue 34, item 2): a skip for what
# scripts/install-deps.sh installs fails the suite (any tool's skip, with
# CI set), a skip for what the machine lacks stays a skip, and a plan of
# 1..0 fails. The fixtures are in tests/runner/; OUT is an empty build, so
# the unit binaries count as "not built" and the lines below are what is
# checked.

load helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
	common_setup
	mkdir -p empty/tests
}

suite() { # FIXTURE [env...]
	local f=$1
	shift
	# Not make check's cross build (AARCH64_*): its unit tests would run too.
	run env -u CI -u AARCH64_OUT -u AARCH64_BIN -u UNIT_ONLY "$@" OUT="$BATS_TEST_TMPDIR/empty" \
		TESTS="$TOP/tests/runner/$f" FUZZ_SECONDS=0 "$TOP/tests/run"
	echo "$output" | grep -v 'is not built\|: not built$'
	[ "$status" = 1 ]
}

@test "tests/run: a skip for a tool install-deps.sh installs fails; the machine's and an unknown tool's stay skips" {
	suite skips.bats
	grep -qx 'FAILED: bats: a skip for what scripts/install-deps.sh installs: ok 1 .* # skip pv is not installed (scripts/install-deps.sh)' <<<"$output"
	[ "$(grep -c '^FAILED: bats:' <<<"$output")" = 1 ]
	grep -qx 'ok 2 .* # skip needs a hardware PMU (this machine has none)' <<<"$output"
	# 4 fuzzers left out (FUZZ_SECONDS=0), the PMU's and frobnicate's.
	[[ ${lines[-1]} == *" failed, 6 skipped" ]]
}

@test "tests/run with CI set: every skip for a missing tool fails, the machine's does not" {
	suite skips.bats CI=true
	grep -q '^FAILED: bats: .*ok 1 .*pv is not installed' <<<"$output"
	grep -q '^FAILED: bats: .*ok 3 .*frobnicate is not installed' <<<"$output"
	[ "$(grep -c '^FAILED: bats:' <<<"$output")" = 2 ]
	[[ ${lines[-1]} == *" failed, 5 skipped" ]]
}

@test "tests/run: a plan of 1..0 fails" {
	suite none.bats
	grep -qx 'FAILED: bats: planned no test (1..0): nothing was checked, exit status 0' <<<"$output"
}

@test "install-deps.sh --tools lists packages and commands, installs nothing" {
	run -0 sh "$TOP/scripts/install-deps.sh" --tools
	grep -qx linux-perf <<<"$output"
	grep -qx perf <<<"$output"
	grep -qx pv <<<"$output"
	grep -qx setpriv <<<"$output"
	[ "$(wc -l <<<"$output")" -ge 40 ]
}
