#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Control of the recording, with perf 6.1 as the oracle: -D/--delay,
# --control fifo:/fd: (enable, disable, snapshot, stop, and perf's ack),
# --max-size, --switch-output[=signal|SIZE|TIME], --switch-max-files and
# --timestamp-filename. Each file must read in perf with no warning.
# Times are loose on purpose: the machine is shared and slow. perf runs
# with -B: its build-id pass at the end sometimes aborts (helpers.bash),
# and an aborted --timestamp-filename run leaves a file behind.

load helpers

setup() {
	common_setup
	need_record
}

# Sample times in FILE (seconds, one a line), from perf script.
sample_times() { # FILE
	perf_ok script -i "$1" -F time || return 1
	tr -d ' :' <"$PERF_OUT" | grep -v '^$'
}

# The time of the workload's exec (its COMM exec record) in FILE.
exec_time() { # FILE
	perf_ok script -i "$1" --show-task-events -F comm,time || return 1
	# No exec record fails: an empty time would make every gap the uptime.
	awk '/PERF_RECORD_COMM exec/ { t = $2; sub(/:$/, "", t); print t; exit }
	     END { if (t == "") { print "no COMM exec record" > "/dev/stderr"; exit 1 } }' "$PERF_OUT"
}

# Milliseconds from A to B (seconds with decimals); fails when one is missing.
ms_between() { # A B
	if [ -z "$1" ] || [ -z "$2" ]; then
		echo "ms_between: a time is missing ('$1', '$2')" >&2
		return 1
	fi
	awk -v a="$1" -v b="$2" 'BEGIN { printf "%d\n", (b - a) * 1000 }'
}

# The longest gap between two samples of FILE, in ms.
longest_gap_ms() { # FILE
	sample_times "$1" | sort -n | awk 'NR > 1 && $1 - p > g { g = $1 - p } { p = $1 } END { printf "%d\n", g * 1000 }'
}

# Read perf's 5-byte ack ("ack\n" and a NUL) from fd 8 within 5 s.
read_ack() {
	local got
	got=$(timeout 5 head -c 5 <&8 | od -An -c | tr -s ' ')
	echo "ack: '$got'"
	[ "$got" = " a c k \n \0" ]
}

# ---- -D / --delay -----------------------------------------------------------

@test "-D 300: no sample in the first 300 ms of the workload, as perf" {
	pc_record -D 300 -e cpu-clock -o d.data -- "$W/parallel" -t 1
	grep -q 'Events disabled' record.err
	grep -q 'Events enabled' record.err
	e=$(exec_time d.data)
	first=$(sample_times d.data | sort -n | head -1)
	ours=$(ms_between "$e" "$first")
	[ "$(perf_samples d.data)" -gt 100 ]
	perf_record -B -D 300 -e cpu-clock -o p.data -- "$W/parallel" -t 1
	theirs=$(ms_between "$(exec_time p.data)" "$(sample_times p.data | sort -n | head -1)")
	echo "first sample after the exec: perfcap ${ours} ms, perf ${theirs} ms"
	[ "$ours" -ge 290 ]
	[ "$theirs" -ge 290 ]
	# And not much later than asked (loose: a busy machine).
	[ "$ours" -lt 2000 ]
	perf_reads_clean d.data
}

@test "-D -1 without --control: nothing is recorded, as perf 6.1 (which accepts it)" {
	pc_record -D -1 -e cpu-clock -o d.data -- "$W/parallel" -t 0.3
	grep -q 'Events disabled' record.err
	perf_record -B -D -1 -e cpu-clock -o p.data -- "$W/parallel" -t 0.3
	[ "$(perf_samples p.data)" = 0 ]
	[ "$(perf_samples d.data)" = 0 ]
	perf_ok report --stats -i d.data
}

# ---- --control --------------------------------------------------------------

# Wait (up to 10 s) until the command perfcap PID started has exec'd
# the workload: recording starts late on a loaded machine.
wait_exec() { # PID
	wait_for child_runs "$1" parallel
}

# The samples perfcap's reader finds in FILE so far, as a baseline for a
# wait: 0 while the file cannot be read yet (the wait then asks for more).
samples_in() { # FILE
	local st
	st=$("$P" dump --stats "$1" 2>/dev/null) || { echo 0; return 0; }
	stats_norm <<<"$st" | stat_of Aggregated SAMPLE
}

# The control FIFOs, held open read-write here (fds 7 and 8) so that a
# write never blocks, whether perfcap is still there or not.
open_fifos() {
	mkfifo ctl ack
	exec 7<>ctl 8<>ack
}

@test "-D -1 --control fifo: nothing until 'enable', then samples; 'ack' comes back" {
	open_fifos
	"$P" record -D -1 --control fifo:ctl,ack -e cpu-clock -o c.data \
		-- "$W/parallel" -t 20 2>record.err &
	pid=$!
	wait_exec "$pid"
	# The delay under test: the first sample comes this late after the exec.
	sleep 0.7
	echo enable >&7
	read_ack
	wait_for holds_samples c.data 100
	echo stop >&7
	read_ack
	wait "$pid"
	cat record.err
	grep -q 'Events enabled' record.err
	e=$(exec_time c.data)
	first=$(sample_times c.data | sort -n | head -1)
	gap=$(ms_between "$e" "$first")
	echo "first sample ${gap} ms after the exec; enabled 700 ms after it"
	[ "$gap" -ge 500 ]
	[ "$(perf_samples c.data)" -gt 100 ]
	perf_reads_clean c.data
}

@test "--control: 'disable' then 'enable' leave a gap; 'snapshot' and 'ping' are acknowledged" {
	open_fifos
	"$P" record --control fifo:ctl,ack -e cpu-clock -o c.data \
		-- "$W/parallel" -t 20 2>record.err &
	pid=$!
	wait_for holds_samples c.data 50
	echo disable >&7
	read_ack
	# The gap under test.
	sleep 0.7
	echo enable >&7
	read_ack
	# Samples after the gap, in the file.
	n=$(samples_in c.data)
	wait_for holds_samples c.data $((n + 50))
	echo snapshot >&7
	read_ack
	echo ping >&7
	read_ack
	# Not a command: no ack (the next one read is stop's).
	echo bogus >&7
	echo stop >&7
	read_ack
	wait "$pid"
	cat record.err
	grep -q 'Events disabled' record.err
	grep -q 'Events enabled' record.err
	gap=$(longest_gap_ms c.data)
	echo "longest gap between samples: ${gap} ms (disabled for ~700 ms)"
	[ "$gap" -ge 500 ]
	[ "$(perf_samples c.data)" -gt 100 ]
	perf_reads_clean c.data
	# Nothing more came back.
	refute timeout 1 head -c 1 <&8
}

@test "--control fd:CTL,ACK: 'stop' ends the recording cleanly and early" {
	open_fifos
	SECONDS=0
	"$P" record --control fd:7,8 -e cpu-clock -o c.data -- "$W/parallel" -t 20 2>record.err &
	pid=$!
	wait_for holds_samples c.data 100
	echo stop >&7
	read_ack
	wait_gone "$pid" 10
	rc=0
	wait "$pid" || rc=$?
	took=$SECONDS
	cat record.err
	echo "exit $rc after ${took} s"
	[ "$took" -lt 8 ]
	[ "$rc" = 0 ]
	[ "$(perf_samples c.data)" -gt 100 ]
	perf_reads_clean c.data
	perf_ok report --header-only -i c.data
}

@test "--control fifo: a missing FIFO is an error before anything is recorded" {
	run "$P" record --control fifo:nosuch -e cpu-clock -o c.data -- true
	echo "$output"
	[ "$status" != 0 ]
	grep -q nosuch <<<"$output"
	[ ! -e c.data ]
}

# ---- --max-size -------------------------------------------------------------

@test "--max-size 1M stops near 1 MiB with a file perf reads" {
	SECONDS=0
	pc_record --max-size 1M -e cpu-clock --call-graph dwarf -o m.data -- "$W/parallel" -t 20
	took=$SECONDS
	cat record.err
	grep -q 'size limit reached' record.err
	size=$(stat -c %s m.data)
	echo "$size bytes after ${took} s"
	[ "$took" -lt 10 ]
	[ "$size" -ge $((1 << 20)) ]
	# Past it by what was in flight: a few rings of 512 KiB at most.
	[ "$size" -lt $((6 << 20)) ]
	perf_reads_clean m.data
}

# ---- --switch-output ------------------------------------------------------

# dumped N: the recorder has dumped N files (sw.data.*), and the one it
# writes now (sw.data) holds more than 50 samples.
dumped() { # N
	[ "$(compgen -G 'sw.data.*' | wc -l)" = "$1" ] || return 1
	holds_samples sw.data 50
}

# switch_signal_three [perfcap options]: two SIGUSR2 give three files.
switch_signal_three() {
	local start took
	start=${EPOCHREALTIME//[.,]/}
	"$P" record "$@" -e cpu-clock --switch-output=signal -o sw.data \
		-- "$W/parallel" -t 20 2>record.err &
	pid=$!
	wait_for dumped 0
	kill -USR2 "$pid"
	wait_for dumped 1
	kill -USR2 "$pid"
	wait_for dumped 2
	kill -INT "$pid"
	took=$(awk -v us="$(( ${EPOCHREALTIME//[.,]/} - start ))" 'BEGIN { printf "%.3f", us / 1e6 }')
	rc=0
	wait "$pid" || rc=$?
	cat record.err
	[ "$rc" = 0 ]
	[ ! -e sw.data ]
	files=(sw.data.*)
	echo "files: ${files[*]}"
	[ "${#files[@]}" = 3 ]
	[ "$(grep -c '^\[ perfcap record: dump data: Woken up [0-9]* times \]$' record.err)" = 2 ]
	[ "$(grep -c '^\[ perfcap record: Dump sw.data.[0-9]\{16\} \]$' record.err)" = 3 ]
	total=0 prev=
	for f in "${files[@]}"; do
		[[ $f =~ ^sw\.data\.[0-9]{16}$ ]]
		perf_reads_clean "$f"
		n=$(perf_samples "$f")
		echo "$f: $n samples"
		[ "$n" -gt 50 ]
		total=$((total + n))
		# Each file knows the workload: its COMM and the MMAP2 of its binary.
		perf_ok script -i "$f" --show-task-events --show-mmap-events
		grep -q 'PERF_RECORD_COMM.*parallel' "$PERF_OUT"
		grep -q 'PERF_RECORD_MMAP2.*workloads/parallel' "$PERF_OUT"
		# perf resolves its samples to the workload's own function.
		[ "$(top_entry "$f" | awk '{ print $3 }')" = burn ]
		# Files follow each other in time, ring by ring: nothing written
		# twice. Only within a CPU's ring: the last pass drains the rings
		# one after another, so a sample CPU 0 took while CPU 1's ring was
		# drained is in the next file, older than CPU 1's last in this
		# one, as in perf's record__switch_output (2 of some 20 CI runs).
		perf_ok script -i "$f" -F cpu,time
		tr -d '[]:' <"$PERF_OUT" | awk 'NF == 2 {
			if (!($1 in first) || $2 < first[$1]) first[$1] = $2
			if (!($1 in last) || $2 > last[$1]) last[$1] = $2
		} END { for (c in first) print c, first[c], last[c] }' >"$f.cpus"
		cat "$f.cpus"
		[ -s "$f.cpus" ]
		if [ -n "$prev" ]; then
			awk 'NR == FNR { last[$1] = $3; next }
			     ($1 in last) && $2 <= last[$1] { print "cpu " $1 ": " $2 " <= " last[$1]; bad = 1 }
			     END { exit bad }' "$prev.cpus" "$f.cpus"
		fi
		prev=$f
	done
	# Nothing lost between files: they add up to what the recorder counted.
	said=$(sed -n 's/.*Captured and wrote .* MB sw.data.<timestamp> (\([0-9]*\) samples).*/\1/p' record.err)
	echo "sum over the files: $total; perfcap's summary: $said"
	[ "$total" = "$said" ]
	# And, very loosely (the machine is shared), to what one file of the
	# same workload for as long holds: the same time from start to SIGINT.
	"$P" record "$@" -e cpu-clock -o one.data -- "$W/parallel" -t 20 2>one.err &
	pid=$!
	sleep "$took"
	kill -INT "$pid"
	wait "$pid"
	within_factor "$total" "$(perf_samples one.data)" 3
}

@test "--switch-output=signal: two SIGUSR2, three files, each complete (reader threads)" {
	switch_signal_three
}

@test "--switch-output=signal: two SIGUSR2, three files, each complete (--threads=cpu --aio)" {
	switch_signal_three --threads=cpu --aio
}

@test "--switch-output=signal: two SIGUSR2, three files, each complete (one reader for every ring)" {
	spec=$(one_reader)
	switch_signal_three -v "$spec"
	grep -qF "[ perfcap record: 1 reader threads ($spec) ]" record.err
}

@test "--switch-output=signal: perf 6.1 names and counts its files the same way" {
	perf record -B -e cpu-clock --switch-output=signal -o sw.data \
		-- "$W/parallel" -t 20 2>perf.err &
	pid=$!
	# perf drops a SIGUSR2 that comes before its loop runs.
	wait_exec "$pid"
	sleep 0.8
	kill -USR2 "$pid"
	sleep 0.8
	kill -INT "$pid"
	wait "$pid" || true
	cat perf.err
	files=(sw.data.*)
	[ "${#files[@]}" = 2 ]
	for f in "${files[@]}"; do [[ $f =~ ^sw\.data\.[0-9]{16}$ ]]; done
	grep -q '^\[ perf record: dump data: Woken up [0-9]* times \]$' perf.err
	grep -q '^\[ perf record: Dump sw.data.[0-9]\{16\} \]$' perf.err
	grep -q 'Captured and wrote .* MB sw.data.<timestamp>' perf.err
}

# each_file_clean: every sw.data.* reads in perf and has samples.
each_file_clean() {
	for f in sw.data.*; do
		[[ $f =~ ^sw\.data\.[0-9]{16}$ ]]
		perf_ok report --stats -i "$f"
		perf_ok script -i "$f"
	done
}

@test "--switch-output=100ms: a file every 100 ms (and with --threads=cpu --aio)" {
	for opts in "" "--threads=cpu --aio"; do
		rm -f sw.data.*
		# shellcheck disable=SC2086
		pc_record $opts -v -e cpu-clock --switch-output=100ms -o sw.data -- "$W/parallel" -t 1
		files=(sw.data.*)
		echo "${opts:-default}: ${#files[@]} files"
		grep 'switch:' record.err
		# 100 ms after the last switch ended: fewer on a loaded machine.
		[ "${#files[@]}" -ge 3 ]
		[ "${#files[@]}" -le 12 ]
		each_file_clean
	done
}

@test "--switch-output=SIZE: a new file each time one reaches it" {
	for opts in "" "--threads=cpu --aio"; do
		rm -f sw.data.*
		# shellcheck disable=SC2086
		pc_record $opts -e cpu-clock -F 10000 --switch-output=16K -o sw.data \
			-- "$W/parallel" -t 1
		files=(sw.data.*)
		echo "${opts:-default}: ${#files[@]} files:"
		ls -l sw.data.*
		[ "${#files[@]}" -ge 3 ]
		# Every file but the last reached the size.
		for f in "${files[@]:0:${#files[@]}-1}"; do
			[ "$(stat -c %s "$f")" -ge $((16 << 10)) ]
		done
		each_file_clean
	done
}

@test "--switch-max-files 2 keeps the newest two" {
	pc_record -e cpu-clock --switch-output=100ms --switch-max-files 2 -o sw.data \
		-- "$W/parallel" -t 1
	dumps=$(grep -c 'Dump sw.data' record.err)
	files=(sw.data.*)
	echo "$dumps dumps, kept: ${files[*]}"
	[ "$dumps" -ge 3 ]
	[ "${#files[@]}" = 2 ]
	# The newest: the last two that were dumped.
	[ "$(grep -o 'sw\.data\.[0-9]\{16\}' record.err | tail -2 | tr '\n' ' ')" = "${files[0]} ${files[1]} " ]
	each_file_clean
}

@test "--timestamp-filename: one file, named as perf names it" {
	pc_record --timestamp-filename -e cpu-clock -o t.data -- "$W/parallel" -t 0.3
	files=(t.data.*)
	[ ! -e t.data ]
	[ "${#files[@]}" = 1 ]
	[[ ${files[0]} =~ ^t\.data\.[0-9]{16}$ ]]
	grep -q "Dump ${files[0]}" record.err
	perf_reads_clean "${files[0]}"
	perf_record -B --timestamp-filename -e cpu-clock -o p.data -- "$W/parallel" -t 0.3
	theirs=(p.data.*)
	[ "${#theirs[@]}" = 1 ]
	[[ ${theirs[0]} =~ ^p\.data\.[0-9]{16}$ ]]
}

@test "-D 200-400,700-900: two windows of samples, then the recording ends (later perfs' ranges)" {
	SECONDS=0
	pc_record -D 200-400,700-900 -e cpu-clock -o r.data -- "$W/parallel" -t 20
	took=$SECONDS
	cat record.err
	[ "$took" -lt 10 ]
	[ "$(grep -c 'Events enabled' record.err)" = 2 ]
	e=$(exec_time r.data)
	first=$(sample_times r.data | sort -n | head -1)
	last=$(sample_times r.data | sort -n | tail -1)
	gap=$(longest_gap_ms r.data)
	echo "first sample $(ms_between "$e" "$first") ms after the exec, last $(ms_between "$e" "$last") ms; longest gap ${gap} ms"
	[ "$(ms_between "$e" "$first")" -ge 190 ]
	[ "$gap" -ge 200 ]
	# The tracking stays on between the windows: the workload's threads are known.
	perf_reads_clean r.data
}
