#!/usr/bin/env bash
# Bytes per DWARF sample before and after trimming the user stack to
# dyn_size (issue 21, item 2): perf records each workload with
# --call-graph dwarf,4096 into a pipe, perfcap trim (the code perfcap
# record trims with) counts the sample bytes in and out.
#
#   sudo bench/trim-bytes.sh [-F FREQ]      # CSV on stdout
#
# Workloads: the bench's parallel (dwarf-small's), phases (deep and
# shallow stacks), sysflood (system calls), and a real program, xz -T2
# over 64 MiB of this machine's binaries.
set -euo pipefail
cd "$(dirname "$0")/.."
FREQ=1000
while getopts F: opt; do
	case $opt in
	F) FREQ=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^#/p}' "$0"; exit 2 ;;
	esac
done
PERFCAP=${PERFCAP:-$PWD/perfcap}
PERF=${PERF:-perf}
W=${W:-$PWD/build/workloads}
[ -x "$PERFCAP" ] && [ -x "$W/phases" ] || make -s
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
{ cat /usr/bin/* 2>/dev/null || true; } | head -c $((64 << 20)) >"$T/xz.in"
echo "workload,samples,bytes_in,bytes_out,bytes_per_sample_in,bytes_per_sample_out,saved_fraction"
run() { # NAME CMD...
	local name=$1 line
	shift
	line=$("$PERF" record -q -N -F "$FREQ" --call-graph dwarf,4096 -o - -- "$@" 2>/dev/null |
		"$PERFCAP" trim -v -o /dev/null 2>&1 >/dev/null | grep 'samples with a user stack')
	# "perfcap trim: N samples with a user stack, A bytes of samples in, B out"
	read -r n a b < <(sed 's/[^0-9 ]//g' <<<"$line" | awk '{ print $1, $2, $3 }')
	awk -v w="$name" -v n="$n" -v a="$a" -v b="$b" \
		'BEGIN { printf "%s,%d,%d,%d,%.0f,%.0f,%.3f\n", w, n, a, b, a / n, b / n, 1 - b / a }'
}
# Their output goes nowhere: perf's stdout is the stream.
run parallel sh -c "$W/parallel -t 2 >/dev/null"
run phases sh -c "$W/phases -t 2 >/dev/null"
run sysflood sh -c "$W/sysflood -t 1 >/dev/null"
run xz-T2 sh -c "xz -T2 -c $T/xz.in >/dev/null"
