#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --aio's helper threads (glibc's, started inside aio_write() by the
# submitting reader): never real-time, on the recorder's CPUs, named as
# what they are (src/record/helper-threads.c). Issue 22, item 2.

load helpers

LOOKS=16

setup() {
	common_setup
	need_record
}

# One line per thread of PID: "TID COMM POLICY RTPRIO CPUS", POLICY the
# kernel's number (0 SCHED_OTHER, 1 SCHED_FIFO, 2 SCHED_RR), read from
# /proc/PID/task/TID/stat (policy and rt_priority, fields 41 and 40, counted
# after the comm's closing parenthesis) and status. A thread that exits
# meanwhile is left out.
recorder_threads() { # PID
	local task tid comm st cpus
	for task in /proc/$1/task/*; do
		tid=${task##*/}
		comm=$(cat "$task/comm" 2>/dev/null) || continue
		st=$(sed 's/.*) //' "$task/stat" 2>/dev/null) || continue
		cpus=$(sed -n 's/^Cpus_allowed_list:\t//p' "$task/status" 2>/dev/null) || continue
		[ -n "$st" ] && [ -n "$cpus" ] || continue
		echo "$tid $comm $(awk '{ print $39, $38 }' <<<"$st") $cpus"
	done
}

# Record OPTS with --call-graph dwarf over every CPU for 5 s and look at the
# recorder's threads LOOKS times meanwhile, into threads.txt (a "--" line
# after each look). What the file holds is other tests' matter: here the
# recorder's threads are, and a --aio recording of DWARF stacks over every
# CPU loses some on this 2-CPU machine, which perf report warns of.
record_and_look() { # perfcap record options
	local quiet=-q
	# The demotion's message is one -q would silence.
	[ -z "${XCPU:-}" ] || quiet=
	"$P" record $quiet "$@" -a --call-graph dwarf,4096 -o h.data -- "$W/parallel" -t 5 2>rec.err &
	rec=$!
	wait_for child_runs "$rec" parallel
	main_cpus=$(sed -n 's/^Cpus_allowed_list:\t//p' "/proc/$rec/status")
	if [ -n "${XCPU:-}" ]; then
		# What the kernel sends a reader over RLIMIT_RTTIME: the demotion.
		kill -XCPU "$rec"
		wait_for grep -q 'the readers run at normal priority from now on' rec.err
	fi
	: >threads.txt
	for _ in $(seq "$LOOKS"); do
		sleep 0.2
		recorder_threads "$rec" >>threads.txt
		echo -- >>threads.txt
	done
	wait "$rec"
	cat rec.err threads.txt
}

# threads.txt holds what record_and_look saw of recorder $rec: every reader
# (perfcap-rdN) once in each look, at POLICY and RTPRIO; each other
# thread but the record loop SCHED_OTHER, on the loop's CPUs once the
# recorder has seen it and named it perfcap-helper; and helpers there were.
check_threads() { # POLICY RTPRIO
	local look=0 helpers=0 tid comm pol prio cpus
	declare -A names=()
	while read -r tid comm pol prio cpus; do
		if [ "$tid" = -- ]; then
			look=$((look + 1))
			names=()
			continue
		fi
		[ "$tid" = "$rec" ] && continue
		case $comm in
		perfcap-rd[0-9]*)
			# A second thread of that name is a helper the reader cloned.
			[ -z "${names[$comm]:-}" ] || { echo "look $look: two $comm"; return 1; }
			names[$comm]=1
			[ "$pol $prio" = "$1 $2" ] || { echo "look $look: $comm policy $pol $prio"; return 1; } ;;
		*)
			[ "$pol" = 0 ] || { echo "look $look: $tid $comm policy $pol $prio"; return 1; }
			if [ "$comm" = perfcap-helper ]; then
				[ "$cpus" = "$main_cpus" ] ||
					{ echo "look $look: $tid on CPUs $cpus, not $main_cpus"; return 1; }
			fi
			helpers=$((helpers + 1)) ;;
		esac
	done <threads.txt
	echo "$helpers helper thread sightings in $look looks," \
		"$(grep -c ' perfcap-helper ' threads.txt) of them named"
	[ "$look" = "$LOOKS" ]
	# Without helpers the test says nothing: --aio had to start some. (One
	# just cloned may not be named yet: helpers come and go.)
	[ "$helpers" -gt 0 ]
}

@test "--aio -r 1: the readers run SCHED_FIFO 1, glibc's AIO helpers SCHED_OTHER on the recorder's CPUs" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	record_and_look --aio -r 1
	check_threads 1 1
}

@test "--aio=4: the readers run perfcap's SCHED_FIFO 1, glibc's AIO helpers SCHED_OTHER on the recorder's CPUs" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	record_and_look --aio=4
	check_threads 1 1
}

@test "--aio, the readers demoted (SIGXCPU): they and glibc's AIO helpers run SCHED_OTHER, the helpers on the recorder's CPUs" {
	[ "$(nproc)" -ge 2 ] || skip "needs 2 CPUs"
	XCPU=1 record_and_look --aio
	check_threads 0 0
}
