#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# perfcap record --call-graph dwarf --unwind (issue 31, item 3): DWARF
# stacks unwound while recording, into the file perfcap inject
# --convert-callchain writes. perf and hotspot read it with no unwinding;
# its chains are the ones perf gets from a raw recording of the same
# workload (a recording is not repeatable sample by sample: the shares of
# the frames are compared).

load helpers

setup() {
	common_setup
	need_record
}

# The file says callchains, not stacks: CALLCHAIN in the sample type, no
# REGS_USER or STACK_USER, and the user part of the chain not excluded.
attrs_converted() { # FILE
	perf_ok evlist -v -i "$1"
	grep -q 'sample_type: [A-Z_|]*CALLCHAIN' "$PERF_OUT"
	refute grep -E 'REGS_USER|STACK_USER|exclude_callchain_user|sample_regs_user' "$PERF_OUT"
}

# children FILE: "sym share" of perf report --children, for burn, work and
# main/thread_main folded into one ("root": every burn sample has one).
children() {
	perf_ok report -i "$1" --children --sort sym --stdio --no-inline -g none --percent-limit 1
	awk '$1 ~ /%$/ && $2 ~ /%$/ && $NF == "burn" || $NF == "work" { print $NF, $1 + 0 }
	     $1 ~ /%$/ && $2 ~ /%$/ && ($NF == "main" || $NF == "thread_main") { root += $1 }
	     END { print "root", root + 0 }' "$PERF_OUT" | sort
}

@test "record --unwind: perf and hotspot read callchains, unwound whole, at a tenth of the bytes" {
	need_hotspot_perfparser
	pc_record -F 2000 --call-graph dwarf --unwind -o u.data -- "$W/parallel" -j 2 -t 1
	cat "$BATS_TEST_TMPDIR/record.err" >&2
	attrs_converted u.data
	perf_ok report --stats -i u.data
	perf_ok script -i u.data -F ip,sym --no-inline
	dwarf_chains_reach_main
	"$HOTSPOT_PP" --print-stats --input u.data 2>hs.err | strings >stats
	[ "$(awk '/^samples:/ { print $2 }' stats)" -gt 1000 ]
	refute grep -qi 'warning\|error' hs.err
	# The summary: the samples unwound, nearly all whole, the bytes kept.
	grep -E -- '--unwind: [0-9]+ DWARF samples unwound' "$BATS_TEST_TMPDIR/record.err"
	awk '/--unwind: [0-9]+ DWARF samples unwound/ {
		n = $5; whole = $9; sub(/,/, "", whole); inb = $(NF - 6); outb = $(NF - 2)
		printf "unwound %d, whole %d; %s MB -> %s MB\n", n, whole, inb, outb
		ok = n > 1000 && whole * 100 >= n * 97 && outb * 10 <= inb
	} END { exit !ok }' "$BATS_TEST_TMPDIR/record.err"
}

@test "record --unwind: the shares of burn, work and main are those of perf's unwinding of a raw recording" {
	perf_record -q -F 2000 --call-graph dwarf -o raw.data -- "$W/parallel" -j 2 -t 1
	children raw.data >raw.shares
	pc_record -F 2000 --call-graph dwarf --unwind -o u.data -- "$W/parallel" -j 2 -t 1
	children u.data >u.shares
	paste raw.shares u.shares >&2
	[ "$(wc -l <u.shares)" = 3 ]
	# Each share within 3 points (two runs of a workload that only burns).
	join raw.shares u.shares | awk '{ d = $2 - $3; if (d < 0) d = -d; if (d > 3 || $3 < 90) bad++ }
		END { exit bad > 0 || NR != 3 }'
}

@test "record --unwind: processes that exec and map again unwind against their own maps" {
	# Ten processes one after another, each with its own (randomized) maps:
	# a sample unwound against another process's maps, or before its own
	# MMAP came in from the other reader's rings, would not reach main.
	pc_record -F 4000 --call-graph dwarf --unwind -o u.data -- \
		sh -c "for i in 1 2 3 4 5 6 7 8 9 10; do $W/parallel -j 2 -t 0.15; done"
	cat "$BATS_TEST_TMPDIR/record.err" >&2
	perf_ok script -i u.data -F ip,sym --no-inline
	dwarf_chains_reach_main
	awk 'BEGIN { RS = ""; FS = "\n" } $1 ~ / burn$/ { b++; if ($0 ~ / (main|thread_main)(\n|$)/) m++ }
		END { printf "burn %d, to main %d\n", b, m; exit !(b > 500 && m * 100 >= b * 97) }' "$PERF_OUT"
}

@test "record --unwind: a pipe (-o -), -z and the aio writer give files perf reads" {
	"$P" record -q -F 2000 --call-graph dwarf --unwind -o - -- "$W/parallel" -j 2 -t 0.5 >p.data
	attrs_converted p.data
	perf_ok script -i p.data -F ip,sym --no-inline
	dwarf_chains_reach_main
	pc_record -z -F 2000 --call-graph dwarf --unwind -o z.data -- "$W/parallel" -j 2 -t 0.5
	attrs_converted z.data
	perf_ok script -i z.data -F ip,sym --no-inline
	dwarf_chains_reach_main
	pc_record --aio -F 2000 --call-graph dwarf --unwind -o a.data -- "$W/parallel" -j 2 -t 0.5
	perf_ok script -i a.data -F ip,sym --no-inline
	dwarf_chains_reach_main
}

@test "record --unwind: refused without DWARF stacks, and where it cannot work, with a reason" {
	run "$P" record --unwind -o x.data -- true
	[ "$status" = 2 ]
	[[ "$output" == *"needs --call-graph dwarf"* ]]
	for opt in --user-buffer-size=0 -zauto --overwrite --tail-synthesize; do
		run "$P" record --call-graph dwarf --unwind "$opt" -o x.data -- true
		echo "$opt: $status $output" >&2
		[ "$status" = 2 ]
		[[ "$output" == *"--unwind works behind the triage stage"* ]]
	done
	[ ! -e x.data ]
}

# meta FILE: the COMM, MMAP2, FORK and EXIT counts of perf report --stats.
meta() {
	perf_stats "$1" | grep -E '^Aggregated\|(COMM|MMAP2|FORK|EXIT)\|' || true
}

@test "record --unwind: unwinding slower than the data is thinned by triage, counted, and every other record kept" {
	pc_record -F 4000 --call-graph dwarf --unwind -o fast.data -- "$W/parallel" -j 2 -t 1.5
	PERFCAP_UNWIND_DELAY_MS=40 pc_record -F 4000 --call-graph dwarf --unwind --user-buffer-size=4M \
		-o slow.data -- "$W/parallel" -j 2 -t 1.5
	cat "$BATS_TEST_TMPDIR/record.err" >&2
	grep -E 'the output fell behind: [1-9][0-9]* of [0-9]+ samples dropped' "$BATS_TEST_TMPDIR/record.err"
	run -0 "$P" loss --json slow.data
	echo "$output" >&2
	python3 -c 'import json, sys
j = json.loads(sys.argv[1])
assert j["lost"] == 0, j
assert j["triage_dropped"] > 0, j' "$output"
	perf_ok report --stats -i slow.data
	grep -E '^ *LOST_SAMPLES events: *[1-9]' "$PERF_OUT"
	# perf reads it all; its one warning is the dropped samples' (LOST_SAMPLES).
	PERF_OUT=$BATS_TEST_TMPDIR/script.out
	perf script -i slow.data -F ip,sym --no-inline >"$PERF_OUT" 2>script.err
	cat script.err >&2
	[ -z "$(grep -vE '^ *(Warning:|Processed [0-9]+ samples and lost [0-9.]+%!)? *$' script.err)" ]
	dwarf_chains_reach_main
	# The task and map records are all there: as many as without the delay.
	meta fast.data >fast.meta
	meta slow.data >slow.meta
	cat fast.meta slow.meta >&2
	[ "$(wc -l <slow.meta)" -ge 3 ]
	diff fast.meta slow.meta
}

@test "record: a raw DWARF recording whose output fell behind says that --unwind writes callchains instead" {
	command -v pv >/dev/null || skip "pv not installed"
	set -o pipefail
	"$P" record -F 4000 --call-graph dwarf --user-buffer-size=4M -o - -- "$W/parallel" -j 2 -t 1.5 \
		2>record.err | pv -q -L 1m >raw.data
	set +o pipefail
	cat record.err >&2
	grep -E 'the output fell behind: [0-9]+ of [0-9]+ samples dropped' record.err
	grep -F -- '--unwind would have written callchains instead of stack copies' record.err
}
