#!/usr/bin/env bash
# On the device machine, from the repository root, as root: run
# bench/loss.sh with the binaries bench/device/prepare.sh carried, and
# leave the table, the raw rows and the machine's facts in $OUT.
#
#   bench/device/run.sh [bench/loss.sh options]     (defaults: -r 3 -d 2)
#
# 3 reps of the three scenarios and eight recorders take about 7 minutes
# on 2 CPUs here; keep a device call's timeout under its 10-minute limit.
# The raw rows are written as they come, so a run cut short still leaves
# what it measured in $OUT/bench/raw.csv.
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
for p in perf perfcap time; do
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
[ $# -gt 0 ] || set -- -r 3 -d 2
PERF=$B/perf PERFCAP=$B/perfcap TIME=$B/time W=$C/workloads \
	bench/loss.sh "$@" -o "$OUTDIR/bench"
