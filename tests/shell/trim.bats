#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Trimmed stacks (issue 21, item 2): a DWARF sample's user stack cut to
# what the kernel filled unwinds the same in perf. perfcap trim runs the
# code perfcap record trims with (format/stack-trim.c) over a pipe stream.

load helpers

setup() {
	common_setup
	need_record
}

# An untrimmed recording: perf's own, in pipe format, of phases' main
# thread with 16 KiB stack copies: the kernel copies up to the end of the
# stack's mapping, which is nearer than 16 KiB above main (the
# environment, the auxiliary vector and up to 8 KiB of random offset), so
# every sample's dyn_size is short of what was asked. (With 4 KiB most
# samples fill it: bench/results/2026-12-01-trim-bytes/.)
#
# 16 MB/s of stacks: perf's default rings lost some on a loaded CI machine,
# and then perf script warns of lost chunks. 8 MiB rings, and a recording
# that lost anything is made again (three tries, then skip).
untrimmed() {
	local try
	for try in 1 2 3; do
		perf_record -q -N -m 8M -F 1000 --call-graph dwarf,16384 -o - -- "$W/phases" -j 1 -t 1
		mv "$BATS_TEST_TMPDIR/perf-record.out" untrimmed.data
		[ "$(perf report --stats -i untrimmed.data 2>/dev/null | stats_norm | stat_of Aggregated LOST)" = 0 ] && return 0
		echo "perf's recording lost data (try $try)" >&2
	done
	skip "perf record lost data in $try tries"
}

@test "trim: perf's DWARF recording, trimmed, unwinds the same chains sample by sample" {
	untrimmed
	"$P" trim -v -i untrimmed.data -o trimmed.data 2>trim.err
	before=$(stat -c %s untrimmed.data)
	after=$(stat -c %s trimmed.data)
	# Something was cut: at least a tenth of the bytes.
	[ $((after * 10)) -lt $((before * 9)) ]
	perf_ok script -i untrimmed.data -F ip,sym --no-inline
	mv "$PERF_OUT" untrimmed.txt
	perf_ok script -i trimmed.data -F ip,sym --no-inline
	# Unwound through main in the shallow phase, and every line the same.
	grep -q shallow_burn untrimmed.txt
	grep -q '__libc_start_call_main' untrimmed.txt
	[ "$(wc -l <untrimmed.txt)" -gt 500 ]
	cmp untrimmed.txt "$PERF_OUT"
}

@test "trim: a limit cuts the outer frames off, and perf still reads the file" {
	untrimmed
	perf_ok script -i untrimmed.data -F ip,sym --no-inline
	full=$(grep -c '__libc_start_call_main' "$PERF_OUT")
	"$P" trim --stack-max=64 -i untrimmed.data -o cut.data
	perf_ok script -i cut.data -F ip,sym --no-inline
	grep -q shallow_burn "$PERF_OUT"
	cut=$(grep -c '__libc_start_call_main' "$PERF_OUT" || true)
	[ "$cut" -lt "$full" ]
}

@test "trim: a file that is not a pipe stream, and bad options, are refused" {
	printf 'PERFILE2\150\0\0\0\0\0\0\0' >notpipe.data
	run "$P" trim -i notpipe.data -o out.data
	[ "$status" = 1 ]
	[[ $output =~ "not a pipe-format recording" ]]
	run "$P" trim --stack-max=12
	[ "$status" = 2 ]
	run "$P" trim -i /nonexistent/x
	[ "$status" = 1 ]
	[[ $output =~ "/nonexistent/x" ]]
}
