#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --threads: reader threads that write one perf.data (DESIGN.md, "Reader
# threads into one file"). Upstream perf is the oracle: it reads the file
# with no warning (no out-of-order events, no "timestamp below last
# timeslice flush"), agrees with perfcap's reader on what is in it, and
# perf script prints the events in time order. Failure with threads ends
# the recording once, with a file perf reads.

load helpers

setup() {
	common_setup
	need_record
	MNT=
}

teardown() {
	unmount_mnt
}

# perf script's events, in the order it prints them, are in time order:
# its ordered-events queue sorted them, and nothing came in too late.
# A flood on 2 CPUs may lose events in the kernel ("lost N chunks"); any
# other message from perf fails.
script_in_time_order() { # FILE
	local out=$BATS_TEST_TMPDIR/script.out err=$BATS_TEST_TMPDIR/script.err
	perf script -i "$1" -F cpu,time >"$out" 2>"$err" || return 1
	if grep -vE '^$|^Warning:$|Processed [0-9]+ events and lost [0-9]+ chunks!|Check IO/CPU overload!' "$err"; then
		echo "perf script printed the lines above" >&2
		return 1
	fi
	awk '{ t = $2; sub(/:$/, "", t); t += 0; if (t < last) bad++; last = t; n++ }
	     END { print n " events, " bad + 0 " out of time order"; exit !(n > 0 && bad == 0) }' "$out"
}

# Out of order in two recordings in a row is a bug of ours; once is the
# window every recorder that closes rounds per pass has (record.bats,
# flood_rounds_ok, says why).
threaded_flood() { # writer options...
	local try
	need_tracefs
	for try in 1 2; do
		pc_record -v --threads "$@" -a -e sched:sched_switch,raw_syscalls:sys_enter \
			-o t.data -- "$W/sysflood" -t 1
		grep -E 'reader threads|rounds,' "$BATS_TEST_TMPDIR/record.err"
		# One reader thread per CPU, and rounds closed across them.
		grep -qF "[ perfcap record: $(nproc) reader threads (--threads=cpu) ]" \
			"$BATS_TEST_TMPDIR/record.err"
		perf report --stats -i t.data >stats 2>/dev/null
		rounds=$(stats_norm <stats | stat_of Aggregated FINISHED_ROUND)
		echo "rounds: $rounds"
		[ "${rounds:-0}" -ge 5 ]
		# perf and perfcap's reader count the same records.
		[ "$(our_stats t.data)" = "$(stats_norm <stats)" ]
		[ "$(stats_norm <stats | stat_of Aggregated SAMPLE)" -gt 10000 ]
		script_in_time_order t.data && return 0
		echo "recording $try: out of order"
	done
	return 1
}

@test "--threads, sync writer: tracepoint flood into one file, rounds across threads, perf reads it in order" {
	threaded_flood
}

@test "--threads --aio=4: one file, in order" {
	threaded_flood --aio=4
}

@test "--threads --aio: one file, in order" {
	threaded_flood --aio
}

@test "--threads --writer=uring: one file, in order" {
	threaded_flood --writer=uring
}

@test "--threads with a workload: call graphs, the command's exit status, perf reads it" {
	rc=0
	"$P" record -q --threads -g -o w.data -- "$W/parallel" -j 2 -t 0.5 || rc=$?
	[ "$rc" = 0 ]
	perf_reads_clean w.data
	script_in_time_order w.data
	top=$(top_entry w.data --no-children)
	echo "top: $top"
	[ "$(awk '{ print $3 }' <<<"$top")" = burn ]
	rc=0
	"$P" record -q --threads -o x.data -- sh -c 'exit 3' || rc=$?
	[ "$rc" = 3 ]
}

@test "--threads layouts: -v names each reader's rings and CPUs; each runs where it was told" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	pc_record -v --threads=0/1:1/0 -a -e cpu-clock -o m.data -- sleep 0.2
	grep -F '2 reader threads (--threads=0/1:1/0): rings of CPUs 0 on CPUs 1; rings of CPUs 1 on CPUs 0' \
		"$BATS_TEST_TMPDIR/record.err"
	pc_record -v --threads=package -a -e cpu-clock -o p.data -- sleep 0.2
	grep -E 'reader threads \(--threads=package\)' "$BATS_TEST_TMPDIR/record.err"
	perf_reads_clean p.data
	# The reader threads' affinity, read while they run: settled once the
	# command runs.
	"$P" record -q --threads=0/1:1/0 -a -e cpu-clock -o a.data -- sleep 2 &
	rec=$!
	wait_for child_runs "$rec" sleep
	for task in /proc/$rec/task/*; do
		echo "$(cat "$task/comm") $(awk '/^Cpus_allowed_list/ { print $2 }' "$task/status")"
	done >tasks
	cat tasks
	wait "$rec"
	grep -qx 'perfcap-rd0 1' tasks
	grep -qx 'perfcap-rd1 0' tasks
	# Bad layouts are usage errors, and nothing is created.
	run "$P" record --threads=0/0 -a -o bad.data -- true
	[ "$status" = 2 ]
	grep -q 'CPU 1 is recorded but in no mask' <<<"$output"
	[ ! -e bad.data ]
	run "$P" record --threads=socket -a -o bad.data -- true
	[ "$status" = 2 ]
	grep -q "invalid --threads value 'socket'" <<<"$output"
}

@test "--threads, SIGKILL mid-recording: the header follows the durable prefix, perf reads the file" {
	"$P" record -q --threads --aio=4 -a --call-graph dwarf,4096 -o k.data -- "$W/parallel" -t 5 &
	rec=$!
	wait_for perf_sees k.data 100
	kill -KILL "$rec"
	# Killed, not ended before the signal.
	rc=0
	wait "$rec" || rc=$?
	[ "$rc" = 137 ]
	perf_ok report --header-only -i k.data
	off=$(sed -n 's/^# data offset *: //p' "$PERF_OUT")
	size=$(sed -n 's/^# data size *: //p' "$PERF_OUT")
	echo "data offset $off, size $size, file $(stat -c %s k.data)"
	[ "$size" -gt 0 ]
	[ $((off + size)) -le "$(stat -c %s k.data)" ]
	perf_ok report --stats -i k.data
	[ "$(perf_samples k.data)" -gt 100 ]
}

@test "--threads, SIGINT: exit 0, a complete file" {
	"$P" record -q --threads --aio=4 -a --call-graph dwarf,4096 -o i.data -- "$W/parallel" -t 5 &
	rec=$!
	wait_for holds_samples i.data 1000
	kill -INT "$rec"
	rc=0
	wait "$rec" || rc=$?
	[ "$rc" = 0 ]
	has_features i.data HOSTNAME CMDLINE EVENT_DESC SAMPLE_TIME BUILD_ID
	ours=$(our_stats i.data)
	[ "$ours" = "$(perf_stats i.data)" ]
	[ "$(stat_of Aggregated SAMPLE <<<"$ours")" -gt 1000 ]
}

@test "--threads, disk full in a reader thread: every thread stops, one message, exit 1, perf reads the file" {
	disk_full --threads --aio=4
}

@test "--threads, EIO on a data write: exit 1, one message, file readable" {
	eio --threads
}

@test "hotspot's parser reads threaded and --aio=4 floods with no time-order violation" {
	need_tracefs
	need_hotspot_perfparser
	for mode in "--threads" "--threads --aio=4" "--aio=4" ""; do
		# shellcheck disable=SC2086
		pc_record $mode -m 64 -a -e sched:sched_switch,raw_syscalls:sys_enter \
			-o h.data -- "$W/sysflood" -t 1
		"$HOTSPOT_PP" --print-stats --input h.data 2>/dev/null | strings >stats
		echo "perfcap $mode: $(grep -E '^(rounds|samples time violations|max time between rounds):' stats | tr '\n' ' ')"
		[ "$(awk '/^samples:/ { print $2 }' stats)" -gt 10000 ]
		[ "$(awk '/^rounds:/ { print $2 }' stats)" -ge 5 ]
		[ "$(awk '/^samples time violations:/ { print $4 }' stats)" = 0 ]
	done
}

@test "without --threads perfcap chooses, and -v says what and why" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	# The default: a reader thread per core, each on its core.
	pc_record -v -a -g -o d.data -- "$W/parallel" -j 2 -t 0.5
	grep -F "reader threads for $(nproc) CPUs, each on its own (up to 1 CPUs per reader" \
		"$BATS_TEST_TMPDIR/record.err"
	grep -E "^\[ perfcap record: [0-9]+ reader threads \(--threads=auto\) \]" "$BATS_TEST_TMPDIR/record.err"
	perf_reads_clean d.data
	script_in_time_order d.data
	# One reader for every ring, asked for with perf's masks: -v says so.
	spec=$(one_reader)
	all=$(cat /sys/devices/system/cpu/online)
	pc_record -v "$spec" -a -e cpu-clock -o d.data -- sleep 0.2
	grep -F "[ perfcap record: 1 reader threads ($spec): rings of CPUs $all on CPUs $all ]" \
		"$BATS_TEST_TMPDIR/record.err"
	perf_reads_clean d.data
}

# "NAME POLICY PRIO" for each reader thread of perfcap PID, read with chrt.
# A real-time reader carries SCHED_RESET_ON_FORK (chrt prints it after a
# |), so that glibc's AIO helpers it clones start at SCHED_OTHER, and keeps
# it when demoted (record/helper-threads.c).
reader_policies() { # PID
	local task
	for task in /proc/$1/task/*; do
		case $(cat "$task/comm") in perfcap-rd*) ;; *) continue ;; esac
		echo "$(cat "$task/comm") $(chrt -p "${task##*/}" |
			sed -n 's/.*policy: //p; s/.*priority: //p' | tr '\n' ' ')"
	done
}

@test "reader threads run SCHED_FIFO 1 by default, under an RLIMIT_RTTIME bound; --reader-sched=nice and -r as asked" {
	need_root
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	command -v chrt >/dev/null || skip "chrt is not installed"
	for how in default nice rt3; do
		case $how in
		default) opts=() ;;
		nice) opts=(--reader-sched=nice) ;;
		rt3) opts=(-r 3) ;;
		esac
		"$P" record -v "${opts[@]}" -a -e cpu-clock -o s.data -- sleep 1.2 2>rec.err &
		rec=$!
		# The command runs once every reader is settled (record__start).
		wait_for child_runs "$rec" sleep
		reader_policies "$rec" >pol
		limits=$(grep 'Max realtime timeout' "/proc/$rec/limits")
		wait "$rec"
		echo "$how: $(cat pol | tr '\n' ';') $limits"
		[ "$(wc -l <pol)" = "$(nproc)" ]
		case $how in
		default)
			refute grep -v 'SCHED_FIFO|SCHED_RESET_ON_FORK 1 $' pol
			grep -F "readers' scheduling: SCHED_FIFO priority 1, RLIMIT_RTTIME 200 ms" rec.err
			# The soft limit is the bound, in microseconds.
			[ "$(awk '{ print $4 }' <<<"$limits")" = 200000 ] ;;
		nice)
			refute grep -v 'SCHED_OTHER 0 $' pol
			grep -F "readers' scheduling: their nice value (--reader-sched=nice)" rec.err ;;
		rt3)
			refute grep -v 'SCHED_FIFO|SCHED_RESET_ON_FORK 3 $' pol
			grep -F "readers' scheduling: SCHED_FIFO as -r asks" rec.err ;;
		esac
		perf_reads_clean s.data
	done
	run -2 "$P" record --reader-sched=deadline -a -o bad.data -- true
	grep -qF "invalid --reader-sched value 'deadline'" <<<"$output"
	[ ! -e bad.data ]
}

@test "a reader over RLIMIT_RTTIME (SIGXCPU): every reader back at normal priority, one message, the recording goes on" {
	need_root
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	command -v chrt >/dev/null || skip "chrt is not installed"
	"$P" record -a -e cpu-clock -o x.data -- sleep 1.5 2>rec.err &
	rec=$!
	wait_for child_runs "$rec" sleep
	reader_policies "$rec" >before
	# What the kernel sends when a SCHED_FIFO thread overruns the soft limit;
	# twice, as it sends it again each second while the overrun goes on.
	# The message comes after the readers were demoted.
	kill -XCPU "$rec"
	wait_for grep -q 'the readers run at normal priority from now on' rec.err
	kill -XCPU "$rec"
	reader_policies "$rec" >after
	wait "$rec"
	cat before after rec.err
	refute grep -v 'SCHED_FIFO|SCHED_RESET_ON_FORK 1 $' before
	[ "$(wc -l <after)" = "$(nproc)" ]
	refute grep -v 'SCHED_OTHER|SCHED_RESET_ON_FORK 0 $' after
	[ "$(grep -c 'RLIMIT_RTTIME' rec.err)" = 1 ]
	grep -F 'the readers run at normal priority from now on' rec.err
	perf_reads_clean x.data
}

@test "one recorded CPU has a reader thread of its own; one reader for every ring runs SCHED_FIFO 1, the record loop never" {
	need_root
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	command -v chrt >/dev/null || skip "chrt is not installed"
	pc_record -v -C 1 -e cpu-clock -o c.data -- sleep 0.2
	grep -F "[ perfcap record: readers: 1 reader threads for 1 CPUs" "$BATS_TEST_TMPDIR/record.err"
	grep -F "rings of CPUs 1 on CPUs 1 ]" "$BATS_TEST_TMPDIR/record.err"
	perf_reads_clean c.data
	# Every CPU to one reader: a thread of its own at the readers' priority;
	# the loop reads no ring and keeps the nice value it was given.
	"$P" record -v -a "$(one_reader)" -e cpu-clock -o l.data -- sleep 1 2>rec.err &
	rec=$!
	wait_for child_runs "$rec" sleep
	pol=$(chrt -p "$rec" | sed -n 's/.*policy: //p; s/.*priority: //p' | tr '\n' ' ')
	readers=$(reader_policies "$rec")
	wait "$rec"
	echo "loop: $pol"
	echo "readers: $readers"
	cat rec.err
	[ "$pol" = "SCHED_OTHER 0 " ]
	[ "$readers" = "perfcap-rd0 SCHED_FIFO|SCHED_RESET_ON_FORK 1 " ]
	grep -F "[ perfcap record: 1 reader threads (--threads=" rec.err
	grep -F "readers' scheduling: SCHED_FIFO priority 1" rec.err
	perf_reads_clean l.data
}
