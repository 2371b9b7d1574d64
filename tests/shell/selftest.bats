#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# `perfcap test` (src/builtin-test.c, perfcap-test(1)) run from the build
# tree: every test passes or skips with a reason, the selection and -v
# work, and a failure says FAILED! and fails the run.

load helpers

setup() {
	common_setup
}

teardown() {
	[ -z "${MNT:-}" ] || umount "$MNT" 2>/dev/null || true
}

# A result line: " N: name   : Ok" or ": Skip (reason)"; FAILED! otherwise.
RESULT_RE='^ ?[0-9]+: .+ : (Ok|Skip \(.+\)|FAILED!.*)$'

@test "perfcap test: every test says Ok or Skip (reason), exit 0" {
	run "$P" test
	echo "$output"
	[ "$status" = 0 ]
	list=$("$P" test -l)
	nr=$(wc -l <<<"$list")
	[ "$nr" -ge 14 ]
	# One result line per listed test, each Ok or Skip with a reason.
	[ "$(grep -cE "$RESULT_RE" <<<"$output")" = "$nr" ]
	[ "$(grep -cE ' : (Ok|Skip \(.+\))$' <<<"$output")" = "$nr" ]
	refute grep -q 'FAILED' <<<"$output"
	# Nothing is left in TMPDIR.
	refute compgen -G "${TMPDIR:-/tmp}/perfcap-test.*/1" >/dev/null
	selftest_skips_are_the_machines
	grep -qE '^ ?[0-9]+: Output to stdout \(-o -\) +: Ok$' <<<"$output"
	# As root, what needs root ran.
	if [ "$(id -u)" = 0 ]; then
		grep -qE 'System-wide recording \(-a\) +: Ok$' <<<"$output"
		grep -qE 'Disk full .*: Ok$' <<<"$output"
		grep -qE 'SIGKILL .*: Ok$' <<<"$output"
	fi
}

@test "perfcap test -l: numbered 1..N; a selection by number and by substring" {
	run -0 "$P" test -l
	echo "$output"
	n=$(wc -l <<<"$output")
	[ "$(sed -nE 's/^ ?([0-9]+): .+/\1/p' <<<"$output" | tr '\n' ' ')" = "$(seq -s ' ' 1 "$n") " ]
	# Substrings, case-insensitive: the three writers.
	run -0 "$P" test -l WRITER
	[ "$(wc -l <<<"$output")" = 3 ]
	[ "$(grep -c 'Writer: ' <<<"$output")" = 3 ]
	# A number runs that test only.
	run -0 "$P" test 1
	echo "$output"
	[ "$(wc -l <<<"$output")" = 1 ]
	[[ $output =~ ^\ 1:\ perfcap\ runs.*:\ Ok$ ]]
	# A selection that matches nothing, and an unknown option, are usage errors.
	run -2 "$P" test no-such-test
	[[ $output == *"no test matches 'no-such-test'"* ]]
	run -2 "$P" test --bogus
	run -0 "$P" test --help
	[[ $output == *"perfcap test"* ]]
}

@test "perfcap test -v shows the commands a test ran and what they said" {
	run -0 "$P" test -v 1
	echo "$output"
	grep -qF "$(realpath "$P") --version" <<<"$output"
	grep -qF 'exit status 0' <<<"$output"
	grep -qF 'perfcap version' <<<"$output" || grep -qE '^ +\| +perfcap [0-9]' <<<"$output"
	[[ $(tail -n1 <<<"$output") =~ ^\ 1:\ .*:\ Ok$ ]]
}

@test "perfcap test -w spin: the built-in workload runs its threads for the time asked" {
	start=$(date +%s%N)
	"$P" test -w spin 2 3 &
	pid=$!
	# Three threads named perfcap-spin (the machine may be busy: wait for them).
	for _ in $(seq 50); do
		n=$(ps -L -o comm= -p "$pid" | grep -c '^perfcap-spin$' || true)
		[ "$n" = 3 ] && break
		sleep 0.1
	done
	echo "$n perfcap-spin threads"
	[ "$n" = 3 ]
	wait "$pid"
	ms=$((($(date +%s%N) - start) / 1000000))
	echo "ran ${ms} ms"
	[ "$ms" -ge 2000 ]
	[ "$ms" -lt 10000 ]
	run -2 "$P" test -w spin 0
	run -2 "$P" test -w nothing
}

@test "a test that fails says FAILED!, -v says why, and perfcap test exits 1" {
	need_root
	# A 16 KiB tmpfs as TMPDIR: test 2's recording (some 50 KB) fills it.
	mkdir small
	mount -t tmpfs -o size=16k tmpfs small || skip "cannot mount a tmpfs"
	MNT=$PWD/small
	run env TMPDIR="$MNT" "$P" test 2
	echo "$output"
	[ "$status" = 1 ]
	grep -qE '^ 2: Record a workload perfcap starts +: FAILED!$' <<<"$output"
	grep -qF 'perfcap test -v' <<<"$output"
	run env TMPDIR="$MNT" "$P" test -v 2
	echo "$output"
	[ "$status" = 1 ]
	# (The recorder's own message went to the full disk too.)
	grep -qF 'FAILED: perfcap record exited 1' <<<"$output"
}
