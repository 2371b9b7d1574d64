#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The aarch64 build: make check cross-builds it and runs its unit tests
# under qemu-aarch64 (tests/run), and refuses to pass without the tools;
# its perfcap, run under qemu, speaks arm64's registers. Nothing is
# recorded under qemu-user (no perf_event_open there).

load helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

setup() {
	common_setup
}

# make in the checkout without what make check hands down (MAKEFLAGS).
mk() {
	env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL -u MAKEOVERRIDES -u OUT -u BIN -u TESTS \
		make -C "$TOP" --no-print-directory "$@"
}

# The aarch64 perfcap that make check built, run under qemu, or a skip.
need_aarch64_bin() {
	[ -n "${AARCH64_BIN:-}" ] ||
		skip "no aarch64 build: make check builds one (AARCH64=no leaves it out)"
	A64=(${AARCH64_QEMU:-qemu-aarch64} "$AARCH64_BIN")
}

@test "make check: the aarch64 unit tests need the cross compiler and qemu-aarch64, and fail without them" {
	run mk aarch64-tools AARCH64_CC=perfcap-no-such-gcc
	[ "$status" -eq 2 ]
	[[ $output == *"perfcap-no-such-gcc not found"*"AARCH64=no leaves them out"* ]]
	run mk aarch64-tools AARCH64_QEMU=perfcap-no-such-qemu
	[ "$status" -eq 2 ]
	[[ $output == *"perfcap-no-such-qemu not found"* ]]
	# check waits for the cross build, except with AARCH64=no (-p: the rules, nothing run)
	run -0 mk -pn aarch64-tools
	if [[ $(cc -dumpmachine) == aarch64-* ]]; then
		refute grep -q '^check:.*aarch64-unit-build' <<<"$output"
	else
		grep -q '^check:.*aarch64-unit-build' <<<"$output"
	fi
	run -0 mk -pn aarch64-tools AARCH64=no
	refute grep -q '^check:.*aarch64-unit-build' <<<"$output"
}

@test "tests/run counts the aarch64 unit binaries: one not built is a failure" {
	mkdir -p empty/tests
	run env OUT="$BATS_TEST_TMPDIR/empty" UNIT_ONLY=1 UNIT_RUNNER=qemu-aarch64 UNIT_ARCH=aarch64 \
		"$TOP/tests/run"
	[ "$status" -eq 1 ]
	n=$(ls "$TOP"/tests/unit/test_*.c | wc -l)
	[ "$(grep -c '^not ok - aarch64/test_.* is not built' <<<"$output")" -eq "$n" ]
	[[ ${lines[-1]} == "0 passed, $n failed, 0 skipped" ]]
}

@test "the aarch64 perfcap under qemu: arm64's register names, x86's refused, a recording says why it cannot start" {
	need_aarch64_bin
	readelf -h "$AARCH64_BIN" | grep -q 'Machine: *AArch64'
	run -0 "${A64[@]}" record --user-regs=? -o never.data -- true
	[ "$output" = "available registers: x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 x14 x15 x16 x17 x18 x19 x20 x21 x22 x23 x24 x25 x26 x27 x28 x29 lr sp pc" ]
	run -2 "${A64[@]}" record --user-regs=AX -o never.data -- true
	[[ $output == *"unknown register 'AX'"* ]]
	run -2 "${A64[@]}" record --intr-regs=x31 -o never.data -- true
	[[ $output == *"unknown register 'x31'"* ]]
	# the x86_64 build refuses x0: each build its own table
	if [[ $(uname -m) == x86_64 ]]; then
		run -2 "$P" record --user-regs=x0 -o never.data -- true
		[[ $output == *"unknown register 'x0'"* ]]
	fi
	# qemu-user has no perf_event_open: one clear message, a failure status
	run "${A64[@]}" record -e cpu-clock -o never.data -- true
	[ "$status" -eq 1 ]
	[[ $output == *"cannot open event 'cpu-clock'"*"Function not implemented"* ]]
	[ ! -e never.data ]
}
