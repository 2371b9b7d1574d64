#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The output slower than the data (issue 21): `-o -` into a consumer
# capped at a set rate (pv -q -L RATE), as bench/capped.sh does at scale.

load helpers

setup() {
	common_setup
	need_record
	command -v pv >/dev/null || skip "pv is not installed (scripts/install-deps.sh)"
}

# capped_record CAP FILE RECORD_ARGS... -- COMMAND: perfcap record -o -
# into pv -q -L CAP, saved in FILE; its wall time in seconds in $WALL.
# Fails unless both exit 0.
capped_record() {
	local cap=$1 f=$2 t0 t1
	shift 2
	t0=$(date +%s.%N)
	set -o pipefail
	"$P" record -q -o - "$@" 2>"$BATS_TEST_TMPDIR/record.err" | pv -q -L "$cap" >"$f" || {
		echo "capped pipeline failed: ${PIPESTATUS[*]}" >&2
		sed 's/^/  record: /' "$BATS_TEST_TMPDIR/record.err" >&2
		return 1
	}
	set +o pipefail
	t1=$(date +%s.%N)
	WALL=$(awk "BEGIN { print $t1 - $t0 }")
}

@test "capped: pv -L holds the stream to its rate, and perf reads what came through" {
	capped_record 1m capped.data -F 10000 --call-graph dwarf,4096 -- "$W/phases" -t 2
	bytes=$(stat -c %s capped.data)
	# 1 MiB/s: no more than the cap (pv's first burst aside), and not idle either.
	awk -v b="$bytes" -v w="$WALL" 'BEGIN { exit !(b <= 1048576 * (w + 0.5) && b >= 1048576 * w * 0.5) }' || {
		echo "$bytes bytes in $WALL s through a 1 MiB/s cap" >&2
		return 1
	}
	# Loss is expected here (perf warns of it); the file must still read.
	run --separate-stderr perf report -i - --stdio --sort sym -g none <capped.data
	[ "$status" = 0 ]
	[[ $output =~ deep_burn ]]
}
