#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# bench/loss.sh, the benchmark against upstream perf: one short rep of each
# kind of recorder gives a row with samples, CPU time and switches, and a
# name it does not know stops it before anything runs.

load helpers

setup() {
	common_setup
	need_record
	need_tracefs
	need_python
	command -v /usr/bin/time >/dev/null || skip "GNU time is not installed"
	ROOT=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)
}

@test "bench/loss.sh: perfcap, perf and perf -B each give a table row" {
	run -0 env W="$W" PERFCAP="$P" "$ROOT/bench/loss.sh" -r 1 -d 1 -s tpflood \
		-w perfcap-aio,perf,perfB-aio -o "$BATS_TEST_TMPDIR/b"
	echo "$output"
	raw=$BATS_TEST_TMPDIR/b/raw.csv
	# scenario,recorder,rep,samples,lost,loss_fraction,lost_time_fraction,cpu_s,vcs,ivcs,...,failed
	for r in perfcap-aio perf perfB-aio; do
		row=$(grep "^tpflood,$r,1," "$raw")
		IFS=, read -r _ _ _ samples _ _ _ cpu vcs _ _ _ bytes failed <<< "$row"
		echo "$r: samples=$samples cpu=$cpu vcs=$vcs bytes=$bytes failed=$failed"
		[ -z "$failed" ]
		[ "$samples" -gt 1000 ]
		[ "$bytes" -gt 0 ]
		python3 -c "import sys; assert float(sys.argv[1]) > 0" "$cpu"
	done
	[ "$(grep -c '^| tpflood |' "$BATS_TEST_TMPDIR/b/table.md")" -eq 3 ]
}

@test "bench/loss.sh: an unknown recorder or scenario exits 2 before recording" {
	run -2 env W="$W" PERFCAP="$P" "$ROOT/bench/loss.sh" -r 1 -d 1 -s tpflood \
		-w perf,perfB-bogus -o "$BATS_TEST_TMPDIR/b"
	[[ $output == *"unknown recorder 'perfB-bogus'"* ]]
	run -2 env W="$W" PERFCAP="$P" "$ROOT/bench/loss.sh" -r 1 -d 1 -s tpflood,flood \
		-w perf -o "$BATS_TEST_TMPDIR/b"
	[[ $output == *"unknown scenario 'flood'"* ]]
	[ ! -e "$BATS_TEST_TMPDIR/b/raw.csv" ]
}
