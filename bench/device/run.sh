#!/usr/bin/env bash
# On the device machine, from the repository root, as root: run
# bench/loss.sh with the binaries bench/device/prepare.sh carried, and
# leave the table, the raw rows and the machine's facts in $OUT.
#
#   bench/device/run.sh [bench/loss.sh options]
#
# Defaults: first the drain benchmark (bench/drain.c: one reader flat
# out, then 1, 2, 4, 8 readers over 16 rings filled at 43 MB/s each, into
# tmpfs and into the working directory's disk, about 25 s), then 3 reps of dwarf-small and tpflood, 2 s each, with perfcap's
# default and --threads against perf's default, --aio and --threads (about
# 4 minutes on 16 CPUs). Keep a device call's timeout under its 10-minute
# limit; the session has 15 minutes of device time in all.
# The raw rows are written as they come, so a run cut short still leaves
# what it measured in $OUT/bench/raw.csv. The device refuses real-time
# priority: perfcap's readers say once that SCHED_FIFO was refused and run
# at their nice value there, so its numbers are --reader-sched=nice's.
#
# Each carried program runs under the carried loader and libraries
# (`ld-linux --library-path .carry/lib PROGRAM`), through wrapper scripts
# so that bench/loss.sh can call them by one name.
set -euo pipefail
cd "$(dirname "$0")/../.."
C=$PWD/.carry
B=${TMPDIR:-/tmp}/perfcap-carry-bin
OUTDIR=${OUT:-bench/out/device}
[ -x "$C/lib/ld-linux-x86-64.so.2" ] || { echo "run.sh: no .carry/ (run bench/device/prepare.sh here, carry .carry)" >&2; exit 1; }
mkdir -p "$B" "$OUTDIR"
for p in perf perfcap time drain capcat; do
	printf '#!/bin/sh\nexec %s --library-path %s %s "$@"\n' \
		"$C/lib/ld-linux-x86-64.so.2" "$C/lib" "$C/bin/$p" >"$B/$p"
	chmod +x "$B/$p"
done
{
	echo "perfcap commit: $(cat "$C/commit" 2>/dev/null || echo ?)"
	uname -a
	echo "CPUs: $(nproc)"
	grep -m1 'model name' /proc/cpuinfo || true
	echo "perf_event_paranoid: $(cat /proc/sys/kernel/perf_event_paranoid)"
	echo "perf_event_max_sample_rate: $(cat /proc/sys/kernel/perf_event_max_sample_rate)"
	"$B/perf" version
	"$B/perfcap" --version 2>&1 || true
	df -h . | tail -1
	findmnt -no FSTYPE -T . || true
} | tee "$OUTDIR/machine.txt"
if [ "${CAPPED:-0}" = 1 ]; then
	[ $# != 0 ] || set -- -r 3 -d 3 -w perf,perfcap,perfcap-ub64M
	PERF=$B/perf PERFCAP=$B/perfcap CAPCAT=$B/capcat W=$C/workloads \
		bench/capped.sh "$@" -o "$OUTDIR/capped"
	exit
fi
if [ $# = 0 ]; then
	set -- -r 3 -d 2 -s dwarf-small,tpflood -w perfcap,perfcap-threads,perf,perf-aio,perf-threads
	# What one reader and N readers drain, next to memcpy, on this machine.
	{
		echo "readers,rings,ring_kib,record,rate_mb_s,writer,bufs,seconds,produced_mb,dropped_fraction,drained_mb_s,memcpy_mb_s,reader_cpu_s,drained_mb_per_cpu_s,target"
		# The copy-out alone, against memcpy (drained_mb_per_cpu_s / memcpy_mb_s).
		echo "$("$B/drain" -t 1 -p 1 -d 2 -o /dev/null),/dev/null"
		for dest in /dev/shm/perfcap-drain "$PWD/perfcap-drain.out"; do
			# Flat out: what one reader moves at most.
			echo "$("$B/drain" -t 1 -p 1 -d 2 -o "$dest"),$dest"
			# 16 rings at 43 MB/s each (4 KiB dwarf stacks at 10 kHz), 1..8 readers.
			for t in 1 2 4 8; do
				echo "$("$B/drain" -t "$t" -p 16 -r 43 -d 2 -o "$dest"),$dest"
			done
		done
	} | tee "$OUTDIR/drain.csv"
fi
PERF=$B/perf PERFCAP=$B/perfcap TIME=$B/time W=$C/workloads \
	bench/loss.sh "$@" -o "$OUTDIR/bench"
