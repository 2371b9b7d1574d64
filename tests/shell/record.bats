#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# perfcap record, end to end: record for real with software events and
# tracepoints (no hardware PMU here), then check with upstream perf that the
# file reads without a warning and holds what was asked for.

load helpers

setup() {
	common_setup
	need_record
}

# ---- the reader agrees with perf -----------------------------------------

@test "perf report --stats and perf report -D count the records perfcap dump --stats counts" {
	pc_record -o r.data -a -e cpu-clock,context-switches --switch-events \
		-- "$W/parallel" -j 2 -s -t 0.5
	ours=$(our_stats r.data)
	theirs=$(perf_stats r.data)
	echo "perfcap dump --stats:"; echo "$ours"
	echo "perf report --stats:"; echo "$theirs"
	[ "$ours" = "$theirs" ]
	# A rich file: several record types, both events sampled.
	[ "$(stat_of Aggregated SWITCH_CPU_WIDE <<<"$theirs")" -gt 0 ]
	[ "$(stat_of Aggregated COMM <<<"$theirs")" -gt 0 ]
	[ "$(stat_of Aggregated MMAP2 <<<"$theirs")" -gt 0 ]
	[ "$(stat_of cpu-clock SAMPLE <<<"$theirs")" -gt 100 ]
	[ "$(stat_of context-switches SAMPLE <<<"$theirs")" -gt 10 ]
	# perf report -D: one "OFFSET [SIZE]: PERF_RECORD_TYPE" line per record.
	dumped=$(perf_dump_counts r.data)
	echo "perf report -D:"; echo "$dumped"
	[ "$dumped" = "$(grep '^Aggregated|' <<<"$ours")" ]
}

# ---- perf reads every kind of recording without a warning ------------------

@test "no warning from perf report/script: workload recording" {
	pc_record -o w.data -- "$W/parallel" -t 0.5
	perf_reads_clean w.data
	[ "$(perf_samples w.data)" -gt 500 ]
}

@test "no warning from perf report/script: -a recording" {
	pc_record -o a.data -a -- "$W/parallel" -j 1 -t 0.5
	perf_reads_clean a.data
	# Both CPUs sampled (the idle one too: cpu-clock counts idle time).
	perf_ok script -i a.data -F cpu
	[ "$(sort -u "$PERF_OUT" | wc -l)" = "$(nproc)" ]
}

@test "no warning from perf report/script: -g recording" {
	pc_record -o g.data -g -- "$W/parallel" -t 0.5
	perf_reads_clean g.data
	# Frame-pointer chains: burn's callers are known.
	perf_ok report -i g.data --stdio --no-children -G
	grep -qE '(thread_main|main)$' "$PERF_OUT"
}

@test "no warning from perf report/script: tracepoint recording" {
	need_tracefs
	pc_record -o tp.data -a -e sched:sched_switch,raw_syscalls:sys_enter \
		-- "$W/parallel" -j 2 -s -t 0.3
	perf_reads_clean tp.data
	perf_ok script -i tp.data -F event
	grep -q 'sched:sched_switch' "$PERF_OUT"
	grep -q 'raw_syscalls:sys_enter' "$PERF_OUT"
}

@test "no warning from perf report/script: --call-graph dwarf recording" {
	pc_record -o d.data --call-graph dwarf -- "$W/parallel" -t 0.3
	perf_reads_clean d.data
	[ "$(perf_samples d.data)" -gt 300 ]
}

# ---- what perf decodes -----------------------------------------------------

@test "the hot function is the top symbol under its own name and DSO" {
	pc_record -o hot.data -- "$W/parallel" -t 0.5
	read -r pct dso sym <<<"$(top_entry hot.data)"
	echo "top entry: $pct% $dso $sym"
	[ "$dso" = parallel ]
	[ "$sym" = burn ]
	awk -v p="$pct" 'BEGIN { exit !(p > 50) }'
}

@test "kernel samples resolve to real kernel symbols with -a" {
	pc_record -o k.data -a -- dd if=/dev/zero of=/dev/null bs=1M count=2000
	perf_ok report -i k.data --stdio --sort dso,sym
	kernel=$(awk '!/^#/ && $2 == "[kernel.kallsyms]" && $3 == "[k]" { print $1, $4 }' "$PERF_OUT")
	echo "$kernel" | head -20
	named=$(awk '$2 !~ /^0x/' <<<"$kernel" | wc -l)
	hex=$(awk '$2 ~ /^0x/' <<<"$kernel" | wc -l)
	echo "kernel symbols: $named named, $hex hex"
	[ "$named" -ge 5 ]
	[ "$hex" = 0 ]
	# dd's work is in the kernel: kernel samples dominate.
	awk '{ s += $1 } END { exit !(s > 30) }' <<<"$kernel"
	# The names are the running kernel's.
	for s in $(awk '$2 !~ /^0x/ { print $2 }' <<<"$kernel" | head -10); do
		grep -qE " $s([[:space:]]|\$)" /proc/kallsyms || {
			echo "$s is not in /proc/kallsyms"
			false
		}
	done
}

@test "perf script decodes sched:sched_switch fields (TRACING_DATA)" {
	need_tracefs
	pc_record -o s.data -e sched:sched_switch -a -- sleep 0.5
	perf_ok script -i s.data
	n=$(grep -c 'sched:sched_switch:' "$PERF_OUT")
	echo "$n switches"; head -3 "$PERF_OUT"
	[ "$n" -gt 5 ]
	# Every sample decoded, with every field named.
	decoded=$(grep -cE 'sched:sched_switch: prev_comm=.+ prev_pid=[0-9]+ prev_prio=[0-9]+ prev_state=[A-Z+]+ ==> next_comm=.+ next_pid=[0-9]+ next_prio=[0-9]+' "$PERF_OUT")
	[ "$decoded" = "$n" ]
	grep -q 'prev_comm=sleep ' "$PERF_OUT"
	has_features s.data TRACING_DATA
}

@test "--call-graph dwarf: perf unwinds burn's samples up to work and main" {
	pc_record -o dw.data --call-graph dwarf -- "$W/parallel" -t 0.3
	perf_ok script -i dw.data -F ip,sym
	dwarf_chains_reach_main
}

# ---- targets ---------------------------------------------------------------

@test "-p PID records only that process, until it exits" {
	"$W/parallel" -j 2 -t 1.2 >/dev/null &
	pid=$!
	wait_for tasks_at_least "$pid" 2
	tids=$(ls /proc/$pid/task | sort -n | tr '\n' ' ')
	echo "pid $pid, tids $tids"
	run -0 timeout 10 "$P" record -q -p "$pid" -o p.data
	wait_gone "$pid" 1
	perf_ok script -i p.data -F pid,tid
	sort "$PERF_OUT" | uniq -c
	[ "$(wc -l <"$PERF_OUT")" -gt 200 ]
	# All samples are this process's; both threads were sampled.
	[ "$(awk -F/ '{ print $1 + 0 }' "$PERF_OUT" | sort -u)" = "$pid" ]
	seen=$(awk -F/ '{ print $2 + 0 }' "$PERF_OUT" | sort -n -u | tr '\n' ' ')
	[ "$seen" = "$tids" ]
}

@test "-p PID -- sleep: dwarf chains of a running process reach main (read-only maps synthesized)" {
	"$W/parallel" -j 2 -t 2 >/dev/null &
	pid=$!
	# Its threads started: their stacks are mapped.
	wait_for tasks_at_least "$pid" 2
	# With -p, the command is only a timer: it ends the recording.
	run -0 timeout 10 "$P" record -q --call-graph dwarf -p "$pid" -o pd.data -- sleep 0.6
	kill "$pid" 2>/dev/null || true
	wait "$pid" 2>/dev/null || true
	perf_ok script -i pd.data -F pid,ip,sym
	dwarf_chains_reach_main "$pid"
}

@test "-t TID records only that thread" {
	"$W/parallel" -j 2 -t 3 >/dev/null &
	pid=$!
	wait_for tasks_at_least "$pid" 2
	tid=$(ls /proc/$pid/task | sort -n | tail -1)
	[ "$tid" != "$pid" ]
	# Stop it with SIGINT once the file holds some of its samples. The
	# thread lives ~2 s more: on a loaded machine (load 6-12) with 1.2 s it
	# sometimes ended first, and the recorder with it, before the SIGINT.
	"$P" record -q -t "$tid" -o t.data &
	rec=$!
	wait_for holds_samples t.data 100
	kill -INT "$rec"
	rc=0; wait "$rec" || rc=$?
	[ "$rc" = 0 ]
	wait "$pid"
	perf_ok script -i t.data -F pid,tid
	sort "$PERF_OUT" | uniq -c
	[ "$(wc -l <"$PERF_OUT")" -gt 100 ]
	[ "$(awk '{ print $1 }' "$PERF_OUT" | sort -u)" = "$pid/$tid" ]
}

@test "-C 0 records CPU 0 only" {
	pc_record -o c.data -C 0 -- "$W/parallel" -j 2 -t 0.5
	perf_ok script -i c.data -F cpu
	sort "$PERF_OUT" | uniq -c
	[ "$(wc -l <"$PERF_OUT")" -gt 200 ]
	[ "$(sort -u "$PERF_OUT" | tr -d ' ')" = "[000]" ]
}

@test "-e cpu-clock,context-switches: two events, named, both sampled" {
	pc_record -o e.data -e cpu-clock,context-switches -- "$W/parallel" -s -t 0.5
	perf_ok evlist -i e.data
	[ "$(cat "$PERF_OUT")" = "$(printf 'cpu-clock\ncontext-switches')" ]
	perf_ok report --header-only -i e.data
	grep -q '^# event : name = cpu-clock,' "$PERF_OUT"
	grep -q '^# event : name = context-switches,' "$PERF_OUT"
	stats=$(perf_stats e.data)
	echo "$stats"
	clock=$(stat_of cpu-clock SAMPLE <<<"$stats")
	cs=$(stat_of context-switches SAMPLE <<<"$stats")
	[ "$clock" -gt 200 ]
	[ "$cs" -gt 10 ]
	# perf script attributes each sample to the same event.
	perf_ok script -i e.data -F event
	[ "$(grep -c '^ *cpu-clock:' "$PERF_OUT")" = "$clock" ]
	[ "$(grep -c '^ *context-switches:' "$PERF_OUT")" = "$cs" ]
}

@test "--switch-events writes SWITCH (task) and SWITCH_CPU_WIDE (-a) records" {
	pc_record -o sw.data --switch-events -- "$W/parallel" -s -t 0.3
	stats=$(perf_stats sw.data)
	n=$(stat_of Aggregated SWITCH <<<"$stats")
	echo "SWITCH: $n"
	[ "$n" -gt 10 ]
	perf_ok script -i sw.data --show-switch-events
	[ "$(grep -c 'PERF_RECORD_SWITCH ' "$PERF_OUT")" = "$n" ]
	grep -q 'PERF_RECORD_SWITCH OUT' "$PERF_OUT"
	grep -q 'PERF_RECORD_SWITCH IN' "$PERF_OUT"

	pc_record -o swa.data --switch-events -a -- sleep 0.3
	n=$(perf_stats swa.data | stat_of Aggregated SWITCH_CPU_WIDE)
	echo "SWITCH_CPU_WIDE: $n"
	[ "$n" -gt 2 ]
	perf_ok script -i swa.data --show-switch-events
	grep -q 'PERF_RECORD_SWITCH_CPU_WIDE OUT' "$PERF_OUT"
}

# ---- the header --------------------------------------------------------------

@test "header: machine description, command line, events; every feature perf record writes" {
	pc_record -o ours.data -a -e cpu-clock -F 1000 -- sleep 0.3
	perf_record -q -o theirs.data -a -e cpu-clock -F 1000 -- sleep 0.3
	perf_ok report --header-only -i ours.data
	cp "$PERF_OUT" ours.hdr
	cat ours.hdr
	field() { sed -n "s/^# $1 *: //p" ours.hdr | sed 's/ *$//'; }
	[ "$(field hostname)" = "$(uname -n)" ]
	[ "$(field 'os release')" = "$(uname -r)" ]
	[ "$(field arch)" = "$(uname -m)" ]
	[ "$(field 'nrcpus online')" = "$(nproc)" ]
	[ -n "$(field 'nrcpus avail')" ]
	[ -n "$(field cpudesc)" ]
	[ -n "$(field cpuid)" ]
	[ "$(field 'total memory')" = "$(awk '/^MemTotal:/ { print $2, $3 }' /proc/meminfo)" ]
	[ "$(field cmdline)" = "$P record -o ours.data -a -e cpu-clock -F 1000 -- sleep 0.3" ]
	grep -q '^# event : name = cpu-clock,' ours.hdr
	grep -q '^# CPU_TOPOLOGY info available' ours.hdr
	grep -q '^# NUMA_TOPOLOGY info available' ours.hdr
	grep -q '^# sample duration : ' ours.hdr

	# Feature set: everything perf record writes, perfcap writes too.
	# Allowed differences: none at present. (BUILD_ID differs in content,
	# not presence: perf lists the DSOs hit by samples, user ones included.)
	allowed=''
	# Read apart first: a perf that fails then fails the test, not the comm.
	theirs_missing=$(missing_features theirs.data)
	ours_missing=$(missing_features ours.data)
	lacking=$(comm -13 <(echo "$theirs_missing") <(echo "$ours_missing"))
	for a in $allowed; do lacking=$(grep -vx "$a" <<<"$lacking" || true); done
	echo "perf writes, perfcap does not: ${lacking:-nothing}"
	[ -z "$lacking" ]

	# With -I, what describes the machine prints the same as perf's.
	perf_ok report --header-only -I -i ours.data
	grep -vE '^# (captured on|data offset|data size|feat offset|perf version|cmdline|event|time of|sample duration|node[0-9]+ meminfo|missing features)' "$PERF_OUT" >ours.I
	perf_ok report --header-only -I -i theirs.data
	grep -vE '^# (captured on|data offset|data size|feat offset|perf version|cmdline|event|time of|sample duration|node[0-9]+ meminfo|missing features)' "$PERF_OUT" >theirs.I
	diff theirs.I ours.I
}

# ---- how recording ends ---------------------------------------------------

@test "the workload's exit status is passed on; the file is complete" {
	run "$P" record -q -o x.data -- sh -c 'exit 3'
	echo "exit $status: $output"
	[ -s x.data ]
	stats=$(perf_stats x.data)
	[ "$(stat_of Aggregated COMM <<<"$stats")" -gt 0 ]
	[ "$(stat_of Aggregated EXIT <<<"$stats")" -gt 0 ]
	has_features x.data HOSTNAME CMDLINE EVENT_DESC SAMPLE_TIME
	[ "$status" = 3 ]
	run -0 "$P" record -q -o y.data -- true
}

@test "-o defaults to perf.data in the current directory; the old one becomes perf.data.old" {
	pc_record -e cpu-clock -- "$W/parallel" -t 0.1
	[ -s perf.data ]
	[ ! -e perf.data.old ]
	pc_record -e task-clock -- "$W/parallel" -t 0.1
	perf_ok evlist -i perf.data
	[ "$(cat "$PERF_OUT")" = task-clock ]
	perf_ok evlist -i perf.data.old
	[ "$(cat "$PERF_OUT")" = cpu-clock ]
	# The same for a file named with -o.
	pc_record -o x.data -e cpu-clock -- true
	pc_record -o x.data -e task-clock -- true
	perf_ok evlist -i x.data.old
	[ "$(cat "$PERF_OUT")" = cpu-clock ]
}

@test "SIGKILL mid-recording leaves a file perf report reads" {
	"$P" record -q -a -o k.data -- sleep 5 &
	rec=$!
	# perf reads the samples the header already counts.
	wait_for perf_sees k.data 100
	kids=$(pgrep -P "$rec" || true)
	kill -KILL "$rec"
	# Killed, not ended before the signal.
	rc=0
	wait "$rec" || rc=$?
	[ "$rc" = 137 ]
	[ -z "$kids" ] || kill $kids 2>/dev/null || true
	# No "data size field is 0" warning, and the samples of the first second.
	perf_ok report -i k.data --stdio
	n=$(perf_samples k.data)
	echo "$n samples"
	[ "$n" -gt 100 ]
}

@test "SIGINT and SIGTERM end the recording: exit 0, complete file" {
	for sig in INT TERM; do
		rm -f s.data
		"$P" record -q -a -o s.data -- sleep 5 &
		rec=$!
		wait_for holds_samples s.data 100
		kill -$sig "$rec"
		rc=0; wait "$rec" || rc=$?
		echo "SIG$sig with a command: exit $rc"
		[ "$rc" = 0 ]
		perf_reads_clean s.data
		has_features s.data HOSTNAME CMDLINE EVENT_DESC SAMPLE_TIME
		[ "$(our_stats s.data)" = "$(perf_stats s.data)" ]
		# Without a command, too.
		rm -f s2.data
		# timeout forwards the signal, and ends it should the test fail first.
		timeout 60 "$P" record -q -a -o s2.data &
		rec=$!
		wait_for holds_samples s2.data 100
		kill -$sig "$rec"
		rc=0; wait "$rec" || rc=$?
		echo "SIG$sig without a command: exit $rc"
		[ "$rc" = 0 ]
		perf_reads_clean s2.data
		[ "$(perf_samples s2.data)" -gt 100 ]
	done
}

@test "-v says where the context switches are: the loop and the other threads, none negative" {
	run "$P" record -v --aio -e cpu-clock -o cs.data -- "$W/parallel" -j 2 -t 0.3
	[ "$status" = 0 ]
	line=$(grep 'context switches' <<<"$output")
	echo "$line"
	[[ $line =~ ^\[\ perfcap\ record:\ context\ switches\ \(voluntary/involuntary\):\ [0-9]+/[0-9]+\ in\ the\ loop,\ [0-9]+/[0-9]+\ in\ other\ threads\ \]$ ]]
}

# A task's nice value, from a /proc/.../stat file (field 19; the command
# name in field 2 has no spaces here).
nice_of() { awk '{ print $19 }' "$1"; }

@test "the recorder's threads run 5 nice levels above where they started; the workload keeps its own" {
	# Lowering a nice value needs CAP_SYS_NICE (root) or RLIMIT_NICE.
	[ "$(id -u)" = 0 ] || skip "not root: perfcap may not lower its nice value"
	start=$(nice_of /proc/self/stat)
	"$P" record -q --aio -a -e cpu-clock -o ni.data -- \
		sh -c 'sleep 0.5; awk '"'"'{ print $19 }'"'"' /proc/$$/stat > work.nice' &
	rec=$!
	# Its command runs: the recorder's threads have started.
	wait_for child_runs "$rec" sh
	# glibc's AIO helpers come and go: a task listed may be gone when read.
	nices=$(for t in /proc/$rec/task/*; do nice_of "$t/stat" 2>/dev/null || true; done)
	wait "$rec"
	echo "recorder threads: $(echo $nices); workload: $(cat work.nice); started at: $start"
	# The loop and glibc's AIO helper thread, both 5 above the start.
	[ "$(wc -l <<<"$nices")" -ge 2 ]
	[ -z "$(grep -vx -- "$((start - 5))" <<<"$nices")" ]
	[ "$(cat work.nice)" = "$start" ]
}

@test "started at nice 3, the recorder runs at -2 and the workload stays at 3" {
	[ "$(id -u)" = 0 ] || skip "not root: perfcap may not lower its nice value"
	nice -n 3 "$P" record -q -a -e cpu-clock -o ni.data -- \
		sh -c 'sleep 0.5; awk '"'"'{ print $19 }'"'"' /proc/$$/stat > work.nice' &
	rec=$!
	wait_for child_runs "$rec" sh
	rnice=$(nice_of /proc/$rec/stat)
	wait "$rec"
	echo "recorder: $rnice; workload: $(cat work.nice)"
	[ "$rnice" = -2 ]
	[ "$(cat work.nice)" = 3 ]
}

# ---- writers -------------------------------------------------------------------

@test "--aio, --aio=4 and --writer=uring write files perf reads the same way" {
	need_io_uring
	for w in --aio --aio=4 --writer=uring; do
		rm -f w.data
		run "$P" record $w -a -g -o w.data -- "$W/parallel" -t 0.5
		echo "$w: $output"
		[ "$status" = 0 ]
		case $w in
		--aio*) [[ $output == *"aio writer"* ]] ;;
		*) [[ $output == *"uring writer"* ]] ;;
		esac
		perf_reads_clean w.data
		ours=$(our_stats w.data)
		theirs=$(perf_stats w.data)
		[ "$ours" = "$theirs" ]
		[ "$(stat_of Aggregated SAMPLE <<<"$theirs")" -gt 1000 ]
		[ "$(perf_dump_counts w.data)" = "$(grep '^Aggregated|' <<<"$ours")" ]
	done
}

# flood_rounds_ok OPTS...: record a tracepoint flood with OPTS and -v; the
# loop counters are left in $counters; perf must count the recorder's
# rounds and see no event out of order (lost chunks are expected here,
# so no perf_ok).
#
# perf script found events out of order in 2 of about 50 runs on a noisy
# day (2026-11-30), and in none of 44 direct recordings after, with this
# binary or the one before it. The likely cause is a window every recorder
# that closes rounds per pass has (perf record too): an event's time is
# taken before the kernel commits it to its ring, and a vCPU preempted in
# between brings it into the ring after a later round closed. Out of order
# in two recordings in a row is a bug of ours.
flood_rounds_ok() {
	local rounds try
	for try in 1 2; do
		run "$P" record -v "$@" -m 16 -a -e raw_syscalls:sys_enter,sched:sched_switch \
			-o flood.data -- "$W/sysflood" -t 1
		counters=$(grep 'rounds,' <<<"$output")
		echo "perfcap record $*: $counters"
		[ "$status" = 0 ]
		rounds=$(sed -n 's/.* \([0-9][0-9]*\) rounds,.*/\1/p' <<<"$counters")
		[ "${rounds:-0}" -gt 0 ]
		perf report -i flood.data --stats >stats.out 2>/dev/null
		[ "$(stats_norm <stats.out | stat_of Aggregated FINISHED_ROUND)" = "$rounds" ]
		perf script -i flood.data >/dev/null 2>script.err || { cat script.err; return 1; }
		echo "perf script: $(head -3 script.err)"
		grep -qi 'out of order' script.err || return 0
		echo "recording $try: $(grep -i 'out of order' script.err)"
	done
	return 1
}

counter() { # NAME: the number before NAME in $counters
	sed -n "s/.* \([0-9][0-9]*\) $1.*/\1/p" <<<"$counters"
}

@test "--aio in a tracepoint flood: rings put off, every round in the file, no event out of order" {
	need_tracefs
	# Without the triage stage, which gives every buffer back at once, so
	# that a ring can find its one buffer still being written.
	flood_rounds_ok --aio --user-buffer-size=0
	# Every time the loop found data it copied the ring or put it off,
	# and -v counted it once by how full the ring was.
	fill=$(grep 'by eighths full' <<<"$output" | sed 's/.*7\/8+)://; s/ \]$//')
	echo "fill: $fill"
	[ "$(wc -w <<<"$fill")" = 8 ]
	[ "$(( $(tr ' ' '+' <<<"${fill# }") ))" = "$(( $(counter 'chunks copied') + $(counter 'rings put off') ))" ]
	# With one buffer a ring, a flood finds a ring whose buffer is still
	# being written, and puts it off (61-190 times a recording here): a
	# count of 0 is a broken count, not a machine that kept up.
	[ "$(counter 'rings put off')" -gt 0 ]
}

@test "--aio=4 in a tracepoint flood: small chunks kept, every round in the file, no event out of order" {
	need_tracefs
	flood_rounds_ok --aio=4
	# With 4 buffers a ring, a chunk that does not fill its buffer waits
	# for more (some 2800 of 5500 chunks a recording here).
	[ "$(counter 'kept for more')" -gt 0 ]
}

# ---- against perf record ---------------------------------------------------------

# Sample counts depend on the CPU time the workload got, which other load on
# this machine changes: compare samples per CPU-second of the workload (bash's
# `times` prints its children's user and system time).
cpu_seconds() { # FILE holding the output of `times` (among other lines)
	awk '/^[0-9]+m[0-9.]+s [0-9]+m[0-9.]+s$/ && ++n == 2 {
		t = 0; for (i = 1; i <= 2; i++) { split($i, a, /[ms]/); t += a[1] * 60 + a[2] } print t }' "$1"
}

@test "upstream perf record of the same workload: same top symbol, samples per CPU-second within 30%" {
	job="\"$W/parallel\" -t 0.5 >/dev/null; times >&2"
	perf_record -q -F 1000 -e cpu-clock -o up.data -- bash -c "$job"
	cp "$BATS_TEST_TMPDIR/perf-record.err" up.times
	# The harness itself: perf reads its own file without a word on stderr.
	perf_reads_clean up.data
	pc_record -q -F 1000 -e cpu-clock -o pc.data -- bash -c "$job"
	cp "$BATS_TEST_TMPDIR/record.err" pc.times
	perf_reads_clean pc.data
	up_top=$(top_entry up.data | cut -d' ' -f2-)
	pc_top=$(top_entry pc.data | cut -d' ' -f2-)
	up_rate=$(awk -v n="$(perf_samples up.data)" -v t="$(cpu_seconds up.times)" 'BEGIN { printf "%d", n / t }')
	pc_rate=$(awk -v n="$(perf_samples pc.data)" -v t="$(cpu_seconds pc.times)" 'BEGIN { printf "%d", n / t }')
	echo "perf: $up_rate samples per CPU-second, top $up_top"
	echo "perfcap: $pc_rate samples per CPU-second, top $pc_top"
	[ "$up_top" = "parallel burn" ]
	[ "$pc_top" = "$up_top" ]
	within_factor "$pc_rate" "$up_rate" 1.3
	# And both near what -F 1000 asks for.
	within_factor "$pc_rate" 1000 1.3
}
