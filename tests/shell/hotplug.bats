#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# A CPU that goes offline and comes back while perfcap records (issue 33):
# its events are opened again, its samples after the return are in the
# file, perf and hotspot read the file with no warning, and the summary
# says when the CPU went and came back. cpu1 is taken offline for a
# second; the teardown brings it back whatever happened.

load helpers

CPU1=/sys/devices/system/cpu/cpu1/online

setup() {
	common_setup
	need_root
	[ "$(nproc --all)" -ge 2 ] || skip "needs 2 CPUs"
	[ -w "$CPU1" ] || skip "cpu1 cannot be taken offline here ($CPU1 is not writable)"
	[ "$(cat "$CPU1")" = 1 ] || echo 1 >"$CPU1"
}

teardown() {
	[ ! -w "$CPU1" ] || [ "$(cat "$CPU1")" = 1 ] || echo 1 >"$CPU1"
	[ -z "${CG_DIR:-}" ] || rmdir "$CG_DIR" 2>/dev/null
	return 0
}

# hotplug_record OUT [perfcap options]: 4 s of a 2-thread burn (the
# command CMD, if set) recorded on every CPU, with cpu1 offline from about
# 1.2 s to 2.2 s. OUT - : the stream goes to p.data. The summary in
# record.err.
hotplug_record() {
	local out=$1 pid
	shift
	[ -n "${CMD+set}" ] || CMD=("$W/parallel" -j 2 -t 4)
	if [ "$out" = - ]; then
		"$P" record -o - -a -e cpu-clock -F 1000 "$@" -- "${CMD[@]}" >p.data 2>record.err &
	else
		"$P" record -o "$out" -a -e cpu-clock -F 1000 "$@" -- "${CMD[@]}" 2>record.err &
	fi
	pid=$!
	sleep 1.2
	echo 0 >"$CPU1"
	sleep 1
	echo 1 >"$CPU1"
	wait "$pid"
	cat record.err
}

# cpu1_back FILE|-: of perf script's samples (stdin for -), those on cpu1
# in the last second, when it was back: more than 300 at 1 kHz.
cpu1_back() {
	if [ "$1" = - ]; then
		perf_ok script -F cpu,time -i - <p.data
	else
		perf_ok script -F cpu,time -i "$1"
	fi
	local n
	n=$(awk '{ c = $1; gsub(/[\[\]]/, "", c); t = $2 + 0; cpu[NR] = c; ts[NR] = t; if (t > end) end = t }
		END { for (i = 1; i <= NR; i++) if (cpu[i] + 0 == 1 && ts[i] > end - 1) k++; print k + 0 }' "$PERF_OUT")
	echo "samples on cpu1 in the last second: $n"
	[ "$n" -gt 300 ]
}

# loss_shows_gap FILE: perfcap loss puts cpu1 offline for about the second
# it was (from its last sample before to its first after), as time not
# recorded, not as loss; the table says it too.
loss_shows_gap() {
	run -0 "$P" loss --json "$1"
	python3 -c '
import json, sys
d = json.load(sys.stdin)
gaps = d["offline"]
print("offline:", gaps)
assert len(gaps) == 1 and gaps[0]["cpu"] == 1, gaps
g = gaps[0]
length = g["end_ns"] - g["start_ns"]
assert not g["from_first"] and not g["to_last"], g
assert 0.6e9 < length < 1.6e9, length
cpu1 = [c for c in d["cpus"] if c["cpu"] == 1][0]
assert cpu1["offline_time_ns"] == length == d["offline_time_ns"], cpu1
' <<<"$output"
	run -0 "$P" loss "$1"
	grep -qE '^  CPUs offline \(not recorded, nothing lost\): [0-9.]+ s in all$' <<<"$output"
}

summary_says_back() {
	grep -qE '^\[ perfcap record: CPU 1 was offline from [0-9.]+ s to [0-9.]+ s, then recorded again \]$' record.err
}

@test "hotplug: cpu1 offline and back, default writer: recorded again, perf and hotspot read it" {
	need_hotspot_perfparser
	hotplug_record f.data
	summary_says_back
	cpu1_back f.data
	perf_ok report --stats -i f.data
	# Every sample's id is an event's: perf maps none to an unknown event.
	perf_ok report --stdio -i f.data
	[ "$(grep -c "^# Samples: .* of event 'cpu-clock'" "$PERF_OUT")" = 1 ]
	"$HOTSPOT_PP" --print-stats --input f.data 2>hs.err | strings >stats
	cat stats
	[ "$(awk '/^samples:/ { print $2 }' stats)" -gt 3000 ]
	refute grep -qi 'warning\|error' hs.err
	# The header lists the new ids: perfcap's own reader knows every sample's event.
	run -0 "$P" loss --json f.data
	[ "$(python3 -c 'import json, sys; print(json.load(sys.stdin)["samples_unknown_event"])' <<<"$output")" = 0 ]
	loss_shows_gap f.data
}

@test "hotplug: sync writer" {
	hotplug_record f.data --writer=sync
	summary_says_back
	cpu1_back f.data
	loss_shows_gap f.data
}

@test "hotplug: --aio" {
	hotplug_record f.data --aio
	summary_says_back
	cpu1_back f.data
}

@test "hotplug: -z" {
	hotplug_record f.data -z
	summary_says_back
	cpu1_back f.data
}

@test "hotplug: -o -: a HEADER_ATTR with the new ids for each event, perf reads the stream" {
	hotplug_record -
	summary_says_back
	cpu1_back -
	perf_ok report -D -i - <p.data
	# As many ATTR records later in the stream as at its start: one per event.
	read -r first later <<<"$(awk '/: PERF_RECORD_[A-Z_]+$/ {
			if ($NF == "PERF_RECORD_ATTR") { if (other) l++; else f++ } else other = 1 }
		END { print f + 0, l + 0 }' "$PERF_OUT")"
	echo "ATTR records: $first at the start, $later after the return"
	[ "$first" -ge 1 ]
	[ "$later" = "$first" ]
	# perf 6.1 makes an event of each ATTR record: the CPU's samples after
	# its return are a second cpu-clock (perfcap-record(1) says so).
	perf_ok report --stdio -i - <p.data
	[ "$(grep -c "^# Samples: .* of event 'cpu-clock'" "$PERF_OUT")" = 2 ]
	loss_shows_gap p.data
}

# late_record OUT [perfcap options]: as hotplug_record (but -a is the
# caller's), with cpu1 offline when the recording starts and online from
# about 1.2 s.
late_record() {
	local out=$1 pid
	shift
	echo 0 >"$CPU1"
	if [ "$out" = - ]; then
		"$P" record -o - "$@" -e cpu-clock -F 1000 -- "$W/parallel" -j 2 -t 4 \
			>p.data 2>record.err &
	else
		"$P" record -o "$out" "$@" -e cpu-clock -F 1000 -- "$W/parallel" -j 2 -t 4 \
			2>record.err &
	fi
	pid=$!
	sleep 1.2
	echo 1 >"$CPU1"
	wait "$pid"
	cat record.err
}

@test "hotplug: -a, cpu1 offline at the start: recorded once it comes online, perf, hotspot and perfcap loss read it" {
	need_hotspot_perfparser
	late_record f.data -a -v
	grep -qE '^\[ perfcap record: CPU 1 was offline at the start, online from [0-9.]+ s, recorded from there \]$' record.err
	grep -qE 'CPU 1 came online [0-9.]+ s into the recording: its events are open, its ring read by reader thread 0' record.err
	cpu1_back f.data
	perf_ok report --stats -i f.data
	"$HOTSPOT_PP" --print-stats --input f.data 2>hs.err | strings >stats
	refute grep -qi 'warning\|error' hs.err
	run -0 "$P" loss --json f.data
	python3 -c '
import json, sys
d = json.load(sys.stdin)
assert d["samples_unknown_event"] == 0, d
g = d["offline"]
print("offline:", g)
assert len(g) == 1 and g[0]["cpu"] == 1 and g[0]["from_first"] and not g[0]["to_last"], g
assert 0.6e9 < g[0]["end_ns"] - g[0]["start_ns"] < 1.8e9, g
# Each ring read once: cpu0 at most its 4 s at 1 kHz (a ring read over again is more), nothing thinned.
cpu0 = [c for c in d["cpus"] if c["cpu"] == 0][0]
assert 3000 < cpu0["samples"] < 4500 and d["triage_dropped"] == 0, (cpu0, d["triage_dropped"])
' <<<"$output"
}

@test "hotplug: -a -o - and -z, cpu1 offline at the start: recorded once it comes online" {
	late_record - -a
	grep -q 'CPU 1 was offline at the start, online from [0-9.]* s, recorded from there' record.err
	cpu1_back -
	late_record f.data -a -z
	grep -q 'CPU 1 was offline at the start, online from [0-9.]* s, recorded from there' record.err
	cpu1_back f.data
}

@test "hotplug: -C 0 with cpu1 offline at the start: cpu1 is left alone when it comes online" {
	late_record f.data -C 0
	refute grep -q 'CPU 1' record.err
	perf_ok script -F cpu -i f.data
	refute grep -q '\[001\]' "$PERF_OUT"
}

@test "hotplug: -C 0 leaves cpu1 alone; -v says when the CPU went" {
	hotplug_record f.data -C 0
	refute grep -q 'CPU 1 was offline' record.err
	hotplug_record g.data -v
	grep -qE 'CPU 1 went offline [0-9.]+ s into the recording' record.err
	grep -qE 'CPU 1 came back [0-9.]+ s into the recording: its events are open again' record.err
	grep -qE 'hotplug: [0-9]+ reads of the online CPUs' record.err
}

@test "hotplug: a group and a --filter are opened again as they were" {
	need_tracefs
	hotplug_record f.data -e '{task-clock,page-faults}' -e sched:sched_switch --filter 'prev_pid != 0'
	summary_says_back
	perf_ok evlist -g -i f.data
	grep -q '{task-clock,page-faults}' "$PERF_OUT"
	perf_ok script -F sw:cpu,time,event -F trace:cpu,time,event,trace -i f.data
	# cpu1 back: in the last second the group leader's samples; in the last
	# 1.6 s (it came back 1.8 s before the end) switches, none of them from
	# idle, as the filter says (unfiltered, a CPU just back switches from
	# idle: 2 of 16 in a run here).
	read -r tc sw bad <<<"$(awk '{ c = $1; gsub(/[\[\]]/, "", c); t = $2 + 0; cpu[NR] = c; ts[NR] = t; line[NR] = $0; if (t > end) end = t }
		END { for (i = 1; i <= NR; i++) if (cpu[i] + 0 == 1) {
			if (ts[i] > end - 1 && line[i] ~ /task-clock/) tc++
			if (ts[i] > end - 1.6 && line[i] ~ /sched:sched_switch/) { sw++; if (line[i] ~ /prev_pid=0 /) bad++ } }
		      print tc + 0, sw + 0, bad + 0 }' "$PERF_OUT")"
	echo "cpu1 back: $tc task-clock samples in the last second, $sw switches, $bad from idle"
	[ "$tc" -gt 300 ]
	[ "$sw" -gt 0 ]
	[ "$bad" = 0 ]
}

@test "hotplug: -G: the cgroup's events are opened again for it" {
	make_cgroup
	# The burn runs in the test's cgroup; only it is sampled.
	CMD=(sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2/parallel" -j 2 -t 4' sh "$CG_DIR" "$W")
	hotplug_record f.data -G "$CG_NAME"
	summary_says_back
	cpu1_back f.data
	# Nothing from outside the cgroup (the sh that moved itself there execs the burn).
	perf_ok script -F comm -i f.data
	refute grep -qvE '^ *(parallel|sh) *$' "$PERF_OUT"
}

@test "hotplug: -D: a recording still off when the CPU comes back stays off" {
	# On from 3 s: cpu1 comes back at 2.2 s into an off recording.
	hotplug_record f.data -D 3000
	summary_says_back
	perf_ok script -F cpu,time -i f.data
	first=$(awk 'NR == 1 { print $2 + 0 }' "$PERF_OUT")
	last=$(awk '{ t = $2 + 0 } END { print t }' "$PERF_OUT")
	echo "samples from $first to $last"
	# About 1 s of samples (3 s to 4 s), not 1.8 s (from the return).
	awk -v a="$first" -v b="$last" 'BEGIN { exit !(b - a < 1.4) }'
}

@test "hotplug: --overwrite: the ring of cpu1 holds its samples after the return, read at the end" {
	hotplug_record f.data --overwrite
	summary_says_back
	cpu1_back f.data
	perf_ok report --stats -i f.data
}

@test "hotplug: --call-graph dwarf --unwind: cpu1's samples after its return are unwound too" {
	hotplug_record f.data --call-graph dwarf --unwind
	summary_says_back
	cpu1_back f.data
	perf_ok evlist -v -i f.data
	refute grep -E 'REGS_USER|STACK_USER' "$PERF_OUT"
	# The burn's samples on cpu1 after its return have their user frames.
	perf_ok script -i f.data -F cpu,time,ip,sym --no-inline
	awk 'BEGIN { RS = ""; FS = "\n" }
		{ split($1, a, " "); c = a[1]; gsub(/[\[\]]/, "", c); t = a[2] + 0; cpu[NR] = c; ts[NR] = t; rec[NR] = $0; if (t > end) end = t }
		END { for (i = 1; i <= NR; i++) if (cpu[i] + 0 == 1 && ts[i] > end - 1 && rec[i] ~ / burn\n/) { b++; if (rec[i] ~ / (main|thread_main)(\n|$)/) m++ }
		      printf "cpu1, last second: %d burn samples, %d reach main\n", b, m; exit !(b > 300 && m * 100 >= b * 95) }' "$PERF_OUT"
}
