#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0
# What the end of a recording costs with build ids: the time from the end of
# the workload to the recorder's exit, for perf record (its pass over the
# file for build ids, then the build-id cache) and perfcap record (the hits
# its readers noted, then the same cache), each also with -B (no build ids)
# and -N (no cache). Every run gets an empty HOME, so the cache starts cold
# (the kallsyms copy included), as on a user's first recording.
#
#   bench/buildid-finish.sh [-r REPS] [-s small,dwarf] [-w RECORDERS] [-o DIR]
#
# Recorders: perf, perfB (-B), perfN (-N), perfcap, perfcapB, perfcapN;
# each rep runs all of them, in an order that rotates from rep to rep.
# Scenarios (build/workloads/parallel -t 2 on every CPU, -e cpu-clock):
# small (default frequency), dwarf (--call-graph dwarf -F 1000: a file of
# tens of MB for perf's pass to read).
#
# Prints rows: scenario,recorder,rep,finish_ms,bytes,buildid_entries,
# cache_files,rc (rc 134: perf 6.1 aborted in its build-id pass, which it
# does here now and then: "assertion failed at util/build-id.c:1010",
# "stack smashing detected"; finish_ms: workload end to recorder exit; bytes: the
# file; buildid_entries: `perf buildid-list -i` lines; cache_files: files
# under the run's ~/.debug). Not a test: rows go to bench/results/.
set -u
cd "$(dirname "$0")/.."
REPS=3
SCEN=small,dwarf
RECS=perf,perfB,perfN,perfcap,perfcapB,perfcapN
OUTDIR=$(mktemp -d /tmp/buildid-finish.XXXXXX)
PERFCAP=${PERFCAP:-$PWD/perfcap}
W=${W:-$PWD/build/workloads}
while getopts "r:s:w:o:" o; do
	case $o in
	r) REPS=$OPTARG ;;
	s) SCEN=$OPTARG ;;
	w) RECS=$OPTARG ;;
	o) OUTDIR=$OPTARG ;;
	*) echo "usage: $0 [-r REPS] [-s small,dwarf] [-w RECORDERS] [-o DIR]" >&2; exit 2 ;;
	esac
done
IFS=, read -ra scens <<<"$SCEN"
IFS=, read -ra recs <<<"$RECS"
for r in "${recs[@]}"; do
	case $r in perf | perfB | perfN | perfcap | perfcapB | perfcapN) ;;
	*) echo "unknown recorder '$r'" >&2; exit 2 ;; esac
done
for s in "${scens[@]}"; do
	case $s in small | dwarf) ;; *) echo "unknown scenario '$s'" >&2; exit 2 ;; esac
done
mkdir -p "$OUTDIR"

run_one() { # SCENARIO RECORDER REP
	local s=$1 r=$2 rep=$3 home=$OUTDIR/home data=$OUTDIR/x.data end t1 rc=0
	local -a cmd ev=(-e cpu-clock)
	rm -rf "$home" "$data" "$OUTDIR/end"
	mkdir -p "$home"
	[ "$s" = dwarf ] && ev+=(--call-graph dwarf -F 1000)
	case $r in
	perfcap*) cmd=("$PERFCAP" record -q) ;;
	perf*) cmd=(perf record -q) ;;
	esac
	case $r in
	*B) cmd+=(-B) ;;
	*N) cmd+=(-N) ;;
	esac
	# The workload's end, from bash's clock (no exec after the workload).
	HOME=$home "${cmd[@]}" "${ev[@]}" -o "$data" -- \
		bash -c "$W/parallel -t 2 >/dev/null; echo \$EPOCHREALTIME >$OUTDIR/end" \
		>/dev/null 2>"$OUTDIR/err" || rc=$?
	t1=$EPOCHREALTIME
	end=$(cat "$OUTDIR/end" 2>/dev/null || echo "$t1")
	printf '%s,%s,%s,%s,%s,%s,%s,%s\n' "$s" "$r" "$rep" \
		"$(awk -v a="$end" -v b="$t1" 'BEGIN { printf "%.1f", (b - a) * 1000 }')" \
		"$(stat -c %s "$data" 2>/dev/null || echo 0)" \
		"$(HOME=$home perf buildid-list -i "$data" 2>/dev/null | wc -l)" \
		"$(find "$home/.debug" -type f 2>/dev/null | wc -l)" "$rc"
}

echo "scenario,recorder,rep,finish_ms,bytes,buildid_entries,cache_files,rc"
for ((rep = 1; rep <= REPS; rep++)); do
	for s in "${scens[@]}"; do
		n=${#recs[@]}
		for ((i = 0; i < n; i++)); do
			run_one "$s" "${recs[$(((i + rep - 1) % n))]}" "$rep"
		done
	done
done
rm -rf "$OUTDIR/home" "$OUTDIR/x.data"
