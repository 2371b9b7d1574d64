#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# -z/--compression-level: zstd COMPRESSED records (compress.c), made by a
# compression stage per reader (compress-stage.c). Upstream perf 6.1 is
# the oracle: perf report, perf script and perf report -D read the file
# with no warning, count what perfcap's reader counts, show the
# compressed header line; hotspot's parser finds no event out of time
# order, with every writer and with reader threads.

load helpers

setup() {
	common_setup
	need_record
}

teardown() {
	unmount_slowfs
}

# perf script's events come in time order (threads.bats says why this
# checks the rounds); a flood on 2 CPUs may lose events in the kernel.
script_in_time_order() { # FILE
	local out=$BATS_TEST_TMPDIR/script.out err=$BATS_TEST_TMPDIR/script.err
	perf script -i "$1" -F cpu,time >"$out" 2>"$err" || return 1
	if grep -vE '^$|^Warning:$|Processed [0-9]+ events and lost [0-9]+ chunks!|Check IO/CPU overload!|Processed [0-9]+ samples and lost [0-9.]+%!' "$err"; then
		echo "perf script printed the lines above" >&2
		return 1
	fi
	awk '{ t = $2; sub(/:$/, "", t); t += 0; if (t < last) bad++; last = t; n++ }
	     END { print n " events, " bad + 0 " out of time order"; exit !(n > 0 && bad == 0) }' "$out"
}

# The file is compressed and perf and perfcap's reader agree on it all.
compressed_reads() { # FILE [LEVEL]
	local f=$1 ours theirs
	perf_reads_clean "$f"
	ours=$(our_stats "$f")
	theirs=$(perf_stats "$f")
	[ "$ours" = "$theirs" ] || { diff <(echo "$ours") <(echo "$theirs") >&2; return 1; }
	echo "COMPRESSED records: $(stat_of Aggregated COMPRESSED <<<"$theirs"), samples: $(stat_of Aggregated SAMPLE <<<"$theirs")"
	[ "$(stat_of Aggregated COMPRESSED <<<"$theirs")" -gt 0 ]
	# perf report -D decodes the records inside, and the same number of samples.
	[ "$(perf_dump_counts "$f" | stat_of Aggregated SAMPLE)" = "$(stat_of Aggregated SAMPLE <<<"$theirs")" ]
	perf_ok report --header-only -i "$f"
	grep -E "^# compressed : Zstd, level = ${2:-1}, ratio = [0-9]+$" "$PERF_OUT"
}

@test "-z: perf report, script and -D read it with no warning; counts, header line" {
	pc_record -z -a -g -o z.data -- "$W/parallel" -j 2 -t 0.5
	grep -E '^\[ perfcap record: compressed: [0-9.]+ MB of records in [0-9.]+ MB, ratio [0-9.]+ \(zstd level 1\) \]$' \
		"$BATS_TEST_TMPDIR/record.err"
	compressed_reads z.data
	# Call chains compress: perf's ratio is at least 2.
	ratio=$(sed -n 's/^# compressed : Zstd, level = 1, ratio = //p' "$PERF_OUT")
	[ "$ratio" -ge 2 ]
	# perfcap loss decompresses too: the samples perf counts.
	report=$("$P" loss z.data)
	[ "$(awk '$1 == "samples" { print $2; exit }' <<<"$report")" = "$(perf_samples z.data)" ]
	# --compression-level=N and -zN: the level in the header.
	pc_record --compression-level=7 -a -e cpu-clock -o z7.data -- "$W/parallel" -j 2 -t 0.3
	compressed_reads z7.data 7
	pc_record -z3 -a -e cpu-clock -o z3.data -- "$W/parallel" -j 2 -t 0.2
	compressed_reads z3.data 3
}

# -zauto (stage-triage.c): compressed from when the output falls behind.
@test "-zauto: a file that keeps up gets no compression, and no compressed header" {
	pc_record -zauto -a -g -o za.data -- "$W/parallel" -j 2 -t 0.5
	grep -F '[ perfcap record: -zauto: the output kept up; nothing was compressed ]' \
		"$BATS_TEST_TMPDIR/record.err"
	run ! grep -q 'compressed: ' "$BATS_TEST_TMPDIR/record.err"
	perf_reads_clean za.data
	[ "$(perf_stats za.data | stat_of Aggregated COMPRESSED)" = 0 ]
	perf_ok report --header-only -i za.data
	run ! grep -q '^# compressed' "$PERF_OUT"
}

# DWARF stacks at 5 kHz make about 40 MB/s of records here, the file
# takes 3 MiB/s (bench/fixtures/slowfs.c): uncompressed, the 128 MiB
# budget would hold them, and their end would take ten seconds to write.
# Sync, and --aio (at most 1 MiB in flight uncompressed when it switches).
@test "-zauto: a slow file: compressed once behind, nothing lost, perf reads it all" {
	mount_slowfs 3m
	for writer in "" --aio; do
		# shellcheck disable=SC2086
		pc_record -zauto $writer --user-buffer-size=128M -F 5000 --call-graph dwarf,4096 \
			-o "$SLOW/f.data" -- "$W/phases" -t 1
		cat "$BATS_TEST_TMPDIR/record.err"
		grep -E '^\[ perfcap record: -zauto: the output fell behind; [12] of 2 readers compressed from then on' \
			"$BATS_TEST_TMPDIR/record.err"
		f=$SLOW_BACKING/f.data
		compressed_reads "$f"
		# Most of the records went over the link compressed.
		echo "${writer:-sync}: file $(stat -c %s "$f") bytes"
		[ "$(stat -c %s "$f")" -lt $((8 << 20)) ]
		[ "$(perf_samples "$f")" -gt 5000 ]
		"$P" loss --json "$f" >loss.json
		python3 -c 'import json, sys; j = json.load(open("loss.json")); sys.exit(not (j["lost"] == 0 and j["triage_dropped"] == 0))'
	done
}

@test "-z with every writer, with and without --threads: perf reads it" {
	need_io_uring
	for mode in "" "--threads" "--aio" "--aio=4" "--threads --aio=4" "--writer=uring" \
		"--threads --writer=uring"; do
		rm -f m.data
		# shellcheck disable=SC2086
		run "$P" record -z $mode -a -g -o m.data -- "$W/parallel" -j 2 -t 0.3
		echo "perfcap -z $mode: exit $status"
		[ "$status" = 0 ]
		compressed_reads m.data
	done
}

@test "-z with one reader for every ring" {
	spec=$(one_reader)
	pc_record -z -v "$spec" -a -g -o l.data -- "$W/parallel" -j 2 -t 0.3
	grep -F "[ perfcap record: 1 reader threads ($spec) ]" "$BATS_TEST_TMPDIR/record.err"
	compressed_reads l.data
	script_in_time_order l.data
}

@test "-z flood: rounds in perf order, small rings inflate within mmap_len" {
	need_tracefs
	for mode in "" "--threads" "--aio=4"; do
		# 32 KiB rings: every COMPRESSED record must inflate to at most
		# HEADER_COMPRESSED's mmap_len, perf's buffer for it.
		# shellcheck disable=SC2086
		pc_record -z $mode -m 8 -a -e sched:sched_switch,raw_syscalls:sys_enter \
			-o f.data -- "$W/sysflood" -t 1
		perf report --stats -i f.data >stats 2>/dev/null
		rounds=$(stats_norm <stats | stat_of Aggregated FINISHED_ROUND)
		echo "perfcap -z $mode: $rounds rounds"
		[ "${rounds:-0}" -ge 5 ]
		[ "$(our_stats f.data)" = "$(stats_norm <stats)" ]
		script_in_time_order f.data
	done
}

# Debian's hotspot-perfparser is built without zstd ("zstd decompression
# support not available": it skips COMPRESSED records and sees no sample).
# So it reads the file inflated in place by inflate.py: the same records
# in the same order, FINISHED_ROUND where it was, what perf report sorts.
@test "-z: hotspot's parser finds no time-order violation" {
	need_tracefs
	need_hotspot_perfparser
	/usr/bin/python3 -c 'import zstandard' 2>/dev/null ||
		skip "python3-zstandard not installed (scripts/install-deps.sh)"
	for mode in "" "--threads" "--aio=4" "--threads --aio=4"; do
		# shellcheck disable=SC2086
		pc_record -z $mode -m 64 -a -e sched:sched_switch,raw_syscalls:sys_enter \
			-o h.data -- "$W/sysflood" -t 1
		/usr/bin/python3 "$BATS_TEST_DIRNAME/inflate.py" h.data plain.data
		# The inflated file holds what perf report finds in the compressed one.
		[ "$(perf_samples plain.data)" = "$(perf_samples h.data)" ]
		"$HOTSPOT_PP" --print-stats --input plain.data 2>/dev/null | strings >stats
		echo "perfcap -z $mode: $(grep -E '^(samples|rounds|samples time violations):' stats | tr '\n' ' ')"
		[ "$(awk '/^samples:/ { print $2 }' stats)" -gt 10000 ]
		[ "$(awk '/^rounds:/ { print $2 }' stats)" -ge 5 ]
		[ "$(awk '/^samples time violations:/ { print $4 }' stats)" = 0 ]
	done
}

@test "-z: SIGINT mid-record leaves a complete file" {
	for mode in "" "--threads"; do
		rm -f s.data
		# shellcheck disable=SC2086
		"$P" record -q -z $mode -a -g -o s.data -- "$W/parallel" -j 2 -t 5 &
		rec=$!
		wait_for holds_samples s.data 100
		kill -INT "$rec"
		rc=0; wait "$rec" || rc=$?
		echo "SIGINT, -z $mode: exit $rc"
		[ "$rc" = 0 ]
		compressed_reads s.data
		[ "$(perf_samples s.data)" -gt 100 ]
	done
}

# perf 6.1 cannot read a -z file that has no HEADER_COMPRESSED: it sizes
# its decompression buffer by the section's mmap_len ("dst_size 0"). The
# features follow the data, so they are written at the end, by perfcap as
# by perf record; a killed recorder leaves none. perfcap's reader (and
# perfcap loss) still read every complete write.
@test "-z: SIGKILL keeps what was written; perfcap's reader reads it" {
	"$P" record -q -z -a -g -o k.data -- "$W/parallel" -j 2 -t 3 &
	rec=$!
	wait_for holds_samples k.data 100
	kill -KILL "$rec"
	# Killed, not ended before the signal.
	rc=0
	wait "$rec" || rc=$?
	[ "$rc" = 137 ]
	"$P" dump --stats k.data >stats
	n=$(stats_norm <stats | stat_of Aggregated SAMPLE)
	echo "$n samples, $(stats_norm <stats | stat_of Aggregated COMPRESSED) COMPRESSED records"
	[ "$n" -gt 100 ]
	"$P" loss k.data
}

@test "-z: a bad level is a usage error" {
	run "$P" record -z23 -e cpu-clock -o b.data -- true
	[ "$status" = 2 ]
	run "$P" record --compression-level=x -e cpu-clock -o b.data -- true
	[ "$status" = 2 ]
	[ ! -e b.data ]
}
