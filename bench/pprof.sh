#!/usr/bin/env bash
# perfcap pprof against perf script on the same recording (issue 32, item
# 4): does a large recording convert in less time than perf script takes
# just to print it, in memory that follows the distinct stacks, and do go
# tool pprof's stacks and shares agree with perf's?
#
#   sudo bench/pprof.sh [-w WORKLOADS] [-t SECONDS] [-o DIR] [-n NAME]
#
# Workloads (-w, comma separated; default fp,dwarf,xz):
#   fp     perfcap record -g -a of the sysflood tracepoint flood
#          (raw_syscalls:sys_enter, -c 1) for 25 s: about 1 GB of small callchain samples
#   dwarf  perf record --call-graph dwarf,8192 -F 6000 of parallel, 10 s:
#          about 1 GB of stack copies
#   xz     perf record --call-graph dwarf,8192 -F 5000 of xz -T2 over 60 MB
# -t SECONDS: fp and dwarf for that long instead (a short run, as the test's).
# Then, each under GNU time (wall, CPU, max RSS):
#   pprof   perfcap pprof -i REC -o REC.pb.gz
#   script  perf script -i REC >/dev/null (its default fields: what "just
#           printing it" costs; perf unwinds DWARF stacks to print them)
# and the fidelity (tests/shell/pprof-compare.py): samples whose stack is
# perf script's (-F comm,tid,ip,sym --no-inline) for the same thread, and
# the largest difference of a flat share over the symbols above 1%.
# Rows to DIR/raw.csv, a table to DIR/table.md; -n NAME keeps both in
# bench/results/YYYY-MM-DD-NAME/. The recordings stay in DIR (large).
# Environment: PERF, PERFCAP, TIME (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
OUTDIR=bench/out/pprof-$(date +%Y%m%d-%H%M%S) NAME=''
WORKLOADS=fp,dwarf,xz FP_S=25 DWARF_S=10
while getopts w:t:o:n: opt; do
	case $opt in
	w) WORKLOADS=$OPTARG ;; o) OUTDIR=$OPTARG ;; n) NAME=$OPTARG ;;
	t) FP_S=$OPTARG DWARF_S=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^#/p}' "$0"; exit 2 ;;
	esac
done
# shellcheck source=bench/keepdir.sh
. bench/keepdir.sh
KEEPDIR=$(keep_dir "$NAME" "$OUTDIR") || exit 2
[ "$(id -u)" = 0 ] || { echo "bench/pprof.sh: run as root" >&2; exit 1; }
PERFCAP=${PERFCAP:-$PWD/perfcap}
PERF=${PERF:-perf}
TIME=${TIME:-/usr/bin/time}
CMP=$PWD/tests/shell/pprof-compare.py
[ -x "$PERFCAP" ] || make -s
OUTDIR=$(realpath -m "$OUTDIR")
mkdir -p "$OUTDIR" "$KEEPDIR"
W=$PWD/build/workloads
for w in ${WORKLOADS//,/ }; do
	case $w in fp | dwarf | xz) ;; *) echo "bench/pprof.sh: unknown workload $w" >&2; exit 2 ;; esac
done

record() { # NAME REC
	case $1 in
	fp) "$PERFCAP" record -q -g -a -e raw_syscalls:sys_enter -c 1 -o "$2" -- "$W/sysflood" -t "$FP_S" ;;
	dwarf) "$PERF" record -q -N -F 6000 --call-graph dwarf,8192 -o "$2" -- "$W/parallel" -t "$DWARF_S" ;;
	xz)
		[ -s "$OUTDIR/xz.in" ] || tar cf - /usr/lib/x86_64-linux-gnu 2>/dev/null |
			head -c 60000000 >"$OUTDIR/xz.in" || true
		"$PERF" record -q -N -F 5000 --call-graph dwarf,8192 -o "$2" -- xz -T2 -6 -c "$OUTDIR/xz.in"
		;;
	esac >/dev/null 2>"$OUTDIR/$1.record.err"
}

timed() { # NAME WHAT CMD...: a row of wall, cpu, rss
	local name=$1 what=$2
	shift 2
	"$TIME" -f '%e %U %S %M' -o "$OUTDIR/time.txt" "$@"
	awk -v n="$name" -v w="$what" '{ printf "%s,%s,%s,%.2f,%s\n", n, w, $1, $2 + $3, $4 }' \
		"$OUTDIR/time.txt" >>"$KEEPDIR/raw.csv"
}

echo "workload,step,wall_s,cpu_s,maxrss_kib" >"$KEEPDIR/raw.csv"
echo "workload,bytes,samples,profile_samples,same_stacks,max_share_diff" >"$KEEPDIR/sizes.csv"
for w in ${WORKLOADS//,/ }; do
	rec=$OUTDIR/$w.data
	echo "== $w" >&2
	record "$w" "$rec"
	timed "$w" pprof "$PERFCAP" pprof -q -i "$rec" -o "$rec.pb.gz"
	timed "$w" script sh -c "'$PERF' script -i '$rec' >/dev/null 2>&1"
	"$PERFCAP" pprof -i "$rec" -o "$rec.pb.gz" 2>"$OUTDIR/$w.pprof.err"
	"$PERF" script -i "$rec" -F comm,tid,ip,sym --no-inline >"$OUTDIR/$w.script" 2>/dev/null
	go tool pprof -traces -sample_index=samples "$rec.pb.gz" >"$OUTDIR/$w.traces" 2>/dev/null
	python3 "$CMP" traces "$OUTDIR/$w.script" "$OUTDIR/$w.traces" >"$OUTDIR/$w.traces.cmp" || true
	"$PERF" report -i "$rec" --no-children --sort sym --stdio -g none >"$OUTDIR/$w.report" 2>/dev/null
	idx=cpu
	[ "$w" = fp ] && idx=events
	go tool pprof -top -nodecount=100000 -sample_index=$idx "$rec.pb.gz" >"$OUTDIR/$w.top" 2>/dev/null
	python3 "$CMP" top "$OUTDIR/$w.report" "$OUTDIR/$w.top" >"$OUTDIR/$w.top.cmp" || true
	awk -v w="$w" -v b="$(du -b "$rec" | cut -f1)" '
		FILENAME ~ /pprof.err$/ && /samples of/ { n = $3; s = $0; sub(/.* as /, "", s); sub(/ profile samples.*/, "", s) }
		FILENAME ~ /traces.cmp$/ && /^samples:/ { same = $NF }
		FILENAME ~ /top.cmp$/ && /% perf/ { d = $2 - $4; if (d < 0) d = -d; if (d > m) m = d }
		END { printf "%s,%s,%s,%s,%s,%.2f\n", w, b, n, s, same, m }' \
		"$OUTDIR/$w.pprof.err" "$OUTDIR/$w.traces.cmp" "$OUTDIR/$w.top.cmp" >>"$KEEPDIR/sizes.csv"
done

# The table: one row a workload.
awk -F, '
	NR == FNR { if (FNR > 1) { t[$1 "," $2] = $3; r[$1 "," $2] = $5 } ; next }
	FNR == 1 { print "| workload | MB | samples | profile samples | same stacks as perf script | max share diff | perf script s | perfcap pprof s | ratio | pprof max RSS MB | perf script max RSS MB |"
		   print "|---|---|---|---|---|---|---|---|---|---|---|"; next }
	{ w = $1; printf "| %s | %.0f | %s | %s | %s | %s | %s | %s | %.3f | %.0f | %.0f |\n", w, $2 / 1e6, $3, $4, $5, $6,
		t[w ",script"], t[w ",pprof"], t[w ",pprof"] / t[w ",script"], r[w ",pprof"] / 1024, r[w ",script"] / 1024 }' \
	"$KEEPDIR/raw.csv" "$KEEPDIR/sizes.csv" | tee "$KEEPDIR/table.md"
