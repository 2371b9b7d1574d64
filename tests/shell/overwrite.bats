#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --overwrite, the flight recorder (issue 23, item 1), with perf 6.1 as
# the oracle: the events write backward into rings mapped read-only that
# the kernel overwrites; the rings are read at each --switch-output
# signal and at the end, and each read is a file perf reads, holding the
# newest samples of its time. Times are loose: the machine is shared.

load helpers

setup() {
	common_setup
	need_record
}

# workload_ran PID COMM MS: the command recorder PID started runs COMM
# and has had MS milliseconds of CPU, all its threads (/proc/PID/stat).
workload_ran() {
	local c f
	for c in $(pgrep -P "$1"); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = "$2" ] || continue
		read -ra f <"/proc/$c/stat" || return 1
		# utime and stime (fields 14 and 15) in clock ticks.
		[ $(((f[13] + f[14]) * 1000 / $(getconf CLK_TCK))) -ge "$3" ] && return 0
	done
	return 1
}

# Sample times in FILE (seconds, one a line, sorted), from perf script;
# with CPU, only that CPU's.
sample_times() { # FILE [CPU]
	perf_ok script -i "$1" -F cpu,time || return 1
	awk -v cpu="${2:-}" '{ c = $1; gsub(/[][]/, "", c); t = $2; sub(/:$/, "", t) }
		cpu == "" || c + 0 == cpu + 0 { print t }' "$PERF_OUT" | sort -n
}

# The time of the command's last PERF_RECORD_EXIT in FILE.
exit_time() { # FILE
	perf_ok script -i "$1" --show-task-events -F comm,time || return 1
	# No EXIT record fails: an empty time would read as 0 and pass any "before".
	awk '/PERF_RECORD_EXIT/ { t = $2; sub(/:$/, "", t) }
	     END { if (t == "") { print "no EXIT record" > "/dev/stderr"; exit 1 } print t }' "$PERF_OUT"
}

# ms A B: milliseconds from A to B (seconds with decimals); fails when one is missing.
ms() {
	if [ -z "$1" ] || [ -z "$2" ]; then
		echo "ms: a time is missing ('$1', '$2')" >&2
		return 1
	fi
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%d\n", (b - a) * 1000 }'
}

# A snapshot perf reads with no warning, of write_backward events, with
# samples, and no LOST record among them.
snapshot_clean() { # FILE
	perf_reads_clean "$1"
	perf_ok evlist -v -i "$1"
	grep -q 'write_backward: 1' "$PERF_OUT"
	perf_ok report --stats -i "$1"
	grep -q 'SAMPLE events:' "$PERF_OUT"
	refute grep -q 'LOST events:' "$PERF_OUT"
}

@test "--overwrite --switch-output: a SIGUSR2 mid-run and the end give two snapshots, each of its own time, that perf reads" {
	"$P" record --overwrite --switch-output -e cpu-clock -o fr.data \
		-- "$W/parallel" -t 3 2>record.err &
	pid=$!
	wait_for workload_ran "$pid" parallel 500
	kill -USR2 "$pid"
	wait_for compgen -G 'fr.data.*'
	rc=0
	wait "$pid" || rc=$?
	cat record.err
	[ "$rc" = 0 ]
	[ ! -e fr.data ]
	files=(fr.data.*)
	echo "files: ${files[*]}"
	[ "${#files[@]}" = 2 ]
	grep -q '^\[ perfcap record: dump data: Woken up [0-9]* times \]$' record.err
	for f in "${files[@]}"; do
		[[ $f =~ ^fr\.data\.[0-9]{16}$ ]]
		snapshot_clean "$f"
	done
	one=$(sample_times "${files[0]}")
	two=$(sample_times "${files[1]}")
	echo "first: $(head -1 <<<"$one") .. $(tail -1 <<<"$one") ($(wc -l <<<"$one") samples)"
	echo "second: $(head -1 <<<"$two") .. $(tail -1 <<<"$two") ($(wc -l <<<"$two") samples)"
	# The first holds what came before the signal (500 ms of CPU or more:
	# its rings were big enough to keep it all), the second what came after:
	# nothing in both, and the one starts where the other ends.
	[ "$(ms "$(head -1 <<<"$one")" "$(tail -1 <<<"$one")")" -ge 200 ]
	awk -v a="$(tail -1 <<<"$one")" -v b="$(head -1 <<<"$two")" 'BEGIN { exit !(b > a) }'
	gap=$(ms "$(tail -1 <<<"$one")" "$(head -1 <<<"$two")")
	echo "from the first snapshot's newest sample to the second's oldest: $gap ms"
	[ "$gap" -lt 200 ]
	# The last snapshot holds the end: its newest sample is the command's last moments.
	end=$(exit_time "${files[1]}")
	echo "the command exited at $end"
	[ -n "$end" ]
	[ "$(ms "$(tail -1 <<<"$two")" "$end")" -lt 200 ]
	# perfcap's summary counts what the two files hold.
	said=$(sed -n 's/.*Captured and wrote .* MB fr.data.<timestamp> (\([0-9]*\) samples).*/\1/p' record.err)
	[ "$said" = $(($(wc -l <<<"$one") + $(wc -l <<<"$two"))) ]
}

@test "--overwrite -m 1: the snapshot holds only the newest records (the ring overwrote the rest), with no LOST" {
	pc_record --overwrite -m 1 -e cpu-clock -o tiny.data -- "$W/parallel" -t 1
	snapshot_clean tiny.data
	n=$(perf_samples tiny.data)
	# Two one-page rings hold at most 2 * 4096 / 48 samples of this
	# sample_type: far fewer than the ~8000 of two threads for 1 s at 4000 Hz.
	echo "samples: $n"
	[ "$n" -gt 0 ]
	[ "$n" -le 170 ]
	# A ring that was full holds its last moments only, not the second before.
	full=0
	for cpu in $(seq 0 $(($(nproc) - 1))); do
		t=$(sample_times tiny.data "$cpu")
		[ -n "$t" ] || continue
		c=$(wc -l <<<"$t")
		span=$(ms "$(head -1 <<<"$t")" "$(tail -1 <<<"$t")")
		echo "CPU $cpu: $c samples over $span ms"
		if [ "$c" -ge 60 ]; then
			full=$((full + 1))
			[ "$span" -lt 300 ]
		fi
	done
	[ "$full" -ge 1 ]
	all=$(sample_times tiny.data)
	end=$(exit_time tiny.data)
	gap=$(ms "$(tail -1 <<<"$all")" "$end")
	[ "$gap" -lt 200 ]
}

@test "--overwrite -m 1: perf record --overwrite of the same command keeps as much" {
	pc_record --overwrite -m 1 -e cpu-clock -o pc.data -- "$W/parallel" -t 1
	perf_record --overwrite -m 1 -e cpu-clock -o perf.data -- "$W/parallel" -t 1
	ours=$(perf_samples pc.data)
	theirs=$(perf_samples perf.data)
	echo "perfcap: $ours samples, perf: $theirs"
	perf_ok report --stats -i perf.data
	refute grep -q 'LOST events:' "$PERF_OUT"
	# perf's samples are 40 bytes (no CPU), perfcap's 48, and the threads
	# share the CPUs as the scheduler likes: the same order, not the same number.
	within_factor "$ours" "$theirs" 3
}

@test "--overwrite: the rings are mapped read-only (the kernel's overwrite mode), as perf maps them" {
	"$P" record --overwrite -e cpu-clock -o ro.data -- "$W/parallel" -t 2 2>record.err &
	pid=$!
	wait_for child_runs "$pid" parallel
	maps=$(grep -F perf_event "/proc/$pid/maps")
	kill -INT "$pid"
	wait "$pid" || true
	echo "$maps"
	[ "$(grep -c . <<<"$maps")" -ge 1 ]
	refute grep -qv ' r--s ' <<<"$maps"
	# Without --overwrite they are writable: perfcap moves data_tail.
	"$P" record -e cpu-clock -o rw.data -- "$W/parallel" -t 2 2>record.err &
	pid=$!
	wait_for child_runs "$pid" parallel
	maps=$(grep -F perf_event "/proc/$pid/maps")
	kill -INT "$pid"
	wait "$pid" || true
	grep -q ' rw-s ' <<<"$maps"
}

@test "--overwrite -m 1 --switch-output: a snapshot whose ring overwrote the command's maps still resolves its samples (the maps of now follow it)" {
	"$P" record --overwrite -m 1 --switch-output -e cpu-clock -o tail.data \
		-- "$W/parallel" -t 3 2>record.err &
	pid=$!
	wait_for workload_ran "$pid" parallel 300
	kill -USR2 "$pid"
	wait_for compgen -G 'tail.data.*'
	kill -INT "$pid"
	rc=0
	wait "$pid" || rc=$?
	cat record.err
	[ "$rc" = 0 ]
	files=(tail.data.*)
	snapshot_clean "${files[0]}"
	# One page a ring: the exec's MMAP2 went long before the signal; the
	# map that names burn was synthesized behind the snapshot, as perf's
	# --overwrite synthesizes at the end of each file.
	perf_ok script -i "${files[0]}" --show-mmap-events
	grep -q 'PERF_RECORD_MMAP2.*workloads/parallel' "$PERF_OUT"
	[ "$(top_entry "${files[0]}" | awk '{ print $3 }')" = burn ]
}

@test "--overwrite -a: hotspot's parser reads the snapshot, every sample perf sees, in time order" {
	need_hotspot_perfparser
	pc_record --overwrite -a -e cpu-clock -o hs.data -- "$W/parallel" -t 1
	snapshot_clean hs.data
	# The ring's records come newest first, as perf writes them; the parser sorts them.
	"$HOTSPOT_PP" --print-stats --input hs.data >hs.out 2>hs.err
	strings hs.out >stats
	grep -E '^(samples|rounds|samples time violations):' stats
	[ "$(awk '/^samples:/ { print $2 }' stats)" = "$(perf_samples hs.data)" ]
	[ "$(awk '/^samples time violations:/ { print $4 }' stats)" = 0 ]
}
