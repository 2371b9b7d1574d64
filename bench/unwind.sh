#!/usr/bin/env bash
# perfcap inject --convert-callchain against what perf does with the same
# raw DWARF recording (issue 31, items 4 and 5). For each workload, perf
# records it once with DWARF stacks; then, on that one raw file:
#
#   perf report default    perf report --stdio, nothing else: what a user meets
#                          (inline frames on, looked up by addr2line)
#   perf report (raw)      perf report --stdio --children --sort sym --no-inline
#   perf script (raw)      perf script -F comm,tid,ip,sym --no-inline
#   inject                 perfcap inject --convert-callchain (raw -> conv)
#   perf report (conv)     the same perf report on the converted file
#   perf script (conv)     the same perf script on the converted file
#
# each under GNU time (wall, user+sys CPU, max RSS), and the sizes. The
# fidelity, from those outputs (bench/unwind.py): samples whose frames
# are the same (perf's trailing ffffffffffffffff frame left out, see
# perfcap-inject(1)), and the largest difference of a --children share
# over the symbols above 1%.
#
#   sudo bench/unwind.sh [-w WORKLOADS] [-o DIR] [-n NAME]
#
# Workloads (-w, comma separated; default parallel,phases,xz,perl,python3,cc1,gcc):
#   parallel  build/workloads/parallel -j 2 -t 4, -F 2000, dwarf 8192
#   phases    build/workloads/phases -j 2 -t 4 (deep and shallow stacks)
#   xz        xz -T2 over 60 MB of /usr/lib, -F 5000 (5 kHz a CPU)
#   perl      a perl script that sorts and hashes, -F 2000
#   python3   a python3 loop over dicts and strings, -F 2000
#   cc1       gcc's cc1 -O2, started by perf itself, over bench/gen-c.py's
#             file of 300 functions (4-5 s here), -F 2000
#   gcc       gcc -O2 -c over 24 of perfcap's own src/*.c files (make -j2:
#             make, sh, gcc, cc1 and as processes), -F 1000, dwarf 8192.
#             perf 6.1's own unwinding loses outer frames in processes
#             that another process forked and exec'd, so here the table's
#             'whole' columns (chains that reach _start or clone3) say
#             more than the agreement with perf
# Every other workload is started by perf record itself.
# Raw rows go to DIR/raw.csv, the table (python3 bench/unwind.py DIR) to
# DIR/table.md; -n NAME keeps both in bench/results/YYYY-MM-DD-NAME/.
# The recordings stay in DIR (large: delete it after).
# Environment: PERF, PERFCAP, TIME (GNU time).
set -euo pipefail
cd "$(dirname "$0")/.."
OUTDIR=bench/out/unwind-$(date +%Y%m%d-%H%M%S) NAME=
WORKLOADS=parallel,phases,xz,perl,python3,cc1,gcc
while getopts w:o:n: opt; do
	case $opt in
	w) WORKLOADS=$OPTARG ;; o) OUTDIR=$OPTARG ;; n) NAME=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^#/p}' "$0"; exit 2 ;;
	esac
done
# shellcheck source=bench/keepdir.sh
. bench/keepdir.sh
KEEPDIR=$(keep_dir "$NAME" "$OUTDIR") || exit 2
[ "$(id -u)" = 0 ] || { echo "bench/unwind.sh: run as root" >&2; exit 1; }
PERFCAP=${PERFCAP:-$PWD/perfcap}
PERF=${PERF:-perf}
TIME=${TIME:-/usr/bin/time}
[ -x "$PERFCAP" ] || make -s
OUTDIR=$(realpath -m "$OUTDIR")
mkdir -p "$OUTDIR" "$KEEPDIR"
W=$PWD/build/workloads
SRC=$PWD/src

# The workload's command line and perf record's options.
workload() { # NAME -> sets CMD and OPTS
	OPTS="-F 2000 --call-graph dwarf,8192"
	case $1 in
	parallel) CMD=("$W/parallel" -j 2 -t 4) ;;
	phases) CMD=("$W/phases" -j 2 -t 4 -d 60) ;;
	xz)
		[ -s "$OUTDIR/xz.in" ] || tar cf - /usr/lib/x86_64-linux-gnu 2>/dev/null |
			head -c 60000000 >"$OUTDIR/xz.in" || true
		OPTS="-F 5000 --call-graph dwarf,8192"
		CMD=(xz -T2 -6 -c "$OUTDIR/xz.in")	# into perf record's stdout: /dev/null
		;;
	perl)
		CMD=(perl -e 'my %h; for my $i (1..1500000) { my $k = join(",", reverse split //, "k$i"); $h{$k} = length($k) } my @s = sort { $h{$a} <=> $h{$b} or $a cmp $b } keys %h; print scalar(@s), "\n"')
		;;
	python3)
		CMD=(/usr/bin/python3 -c 'd = {}
for i in range(1500000):
    k = "k" + str(i)[::-1]
    d[k] = d.get(k[:4], 0) + len(k)
print(len(sorted(d.items(), key=lambda kv: (kv[1], kv[0]))))')
		;;
	cc1)
		python3 bench/gen-c.py "$OUTDIR/cc1.c" 300
		gcc -E "$OUTDIR/cc1.c" -o "$OUTDIR/cc1.i"
		CMD=("$(gcc -print-prog-name=cc1)" -quiet -O2 "$OUTDIR/cc1.i" -o "$OUTDIR/cc1.s")
		;;
	gcc)
		rm -rf "$OUTDIR/gcc" && mkdir -p "$OUTDIR/gcc"
		local files
		files=$(cd "$SRC" && ls ./*/*.c | head -24 | tr '\n' ' ')
		printf 'all:' >"$OUTDIR/gcc/Makefile"
		for f in $files; do printf ' %s.o' "$(basename "$f" .c)" >>"$OUTDIR/gcc/Makefile"; done
		printf '\n' >>"$OUTDIR/gcc/Makefile"
		local cflags
		cflags=$(pkg-config --cflags libelf libdw libzstd liburing libtracefs libbpf 2>/dev/null)
		for f in $files; do
			printf '%s.o: %s\n\tgcc -O2 -std=gnu11 -D_GNU_SOURCE %s -iquote %s -c -o $@ $<\n' \
				"$(basename "$f" .c)" "$SRC/$f" "$cflags" "$SRC" >>"$OUTDIR/gcc/Makefile"
		done
		OPTS="-F 1000 --call-graph dwarf,8192"
		CMD=(make -s -j2 -C "$OUTDIR/gcc")
		;;
	*) echo "bench/unwind.sh: unknown workload $1" >&2; exit 2 ;;
	esac
}

# timed LABEL WORKLOAD CMD...: one row of raw.csv, the command's output kept.
timed() {
	local label=$1 wl=$2 t
	shift 2
	t=$("$TIME" -f '%e %U %S %M' -o "$OUTDIR/time.txt" "$@" >"$OUTDIR/$wl.$label.out" \
		2>"$OUTDIR/$wl.$label.err" && cat "$OUTDIR/time.txt") || {
		echo "bench/unwind.sh: $wl: $label failed:" >&2
		tail -5 "$OUTDIR/$wl.$label.err" >&2
		return 1
	}
	read -r wall user sys rss <<<"$t"
	echo "$wl,$label,$wall,$(awk -v u="$user" -v s="$sys" 'BEGIN { print u + s }'),$rss" >>"$OUTDIR/raw.csv"
	echo "  $label: $wall s wall, $rss KiB"
}

echo "workload,what,wall_s,cpu_s,maxrss_kib" >"$OUTDIR/raw.csv"
echo "workload,file,bytes" >"$OUTDIR/sizes.csv"
IFS=, read -ra WLS <<<"$WORKLOADS"
REPORT=(report --stdio --children --sort sym --no-inline -g none --percent-limit 0)
SCRIPT=(script -F comm,tid,ip,sym --no-inline)
for wl in "${WLS[@]}"; do
	workload "$wl"
	echo "== $wl: perf record $OPTS -- ${CMD[*]}"
	# shellcheck disable=SC2086
	"$PERF" record -q $OPTS -o "$OUTDIR/$wl.raw" -- "${CMD[@]}" >/dev/null 2>"$OUTDIR/$wl.record.err"
	timed perf-report-default-raw "$wl" "$PERF" report --stdio -i "$OUTDIR/$wl.raw"
	timed perf-report-raw "$wl" "$PERF" "${REPORT[@]}" -i "$OUTDIR/$wl.raw"
	timed perf-script-raw "$wl" "$PERF" "${SCRIPT[@]}" -i "$OUTDIR/$wl.raw"
	timed inject "$wl" "$PERFCAP" inject --convert-callchain -v -i "$OUTDIR/$wl.raw" -o "$OUTDIR/$wl.conv"
	timed perf-report-default-conv "$wl" "$PERF" report --stdio -i "$OUTDIR/$wl.conv"
	timed perf-report-conv "$wl" "$PERF" "${REPORT[@]}" -i "$OUTDIR/$wl.conv"
	timed perf-script-conv "$wl" "$PERF" "${SCRIPT[@]}" -i "$OUTDIR/$wl.conv"
	echo "$wl,raw,$(stat -c %s "$OUTDIR/$wl.raw")" >>"$OUTDIR/sizes.csv"
	echo "$wl,conv,$(stat -c %s "$OUTDIR/$wl.conv")" >>"$OUTDIR/sizes.csv"
	cat "$OUTDIR/$wl.inject.err"
done
python3 bench/unwind.py "$OUTDIR" | tee "$OUTDIR/table.md"
if [ "$KEEPDIR" != "$OUTDIR" ]; then
	cp "$OUTDIR/raw.csv" "$OUTDIR/sizes.csv" "$OUTDIR/table.md" "$KEEPDIR/"
	cp "$OUTDIR"/*.inject.err "$KEEPDIR/" 2>/dev/null || true
	cp "$OUTDIR"/fidelity.txt "$OUTDIR"/fidelity.csv "$KEEPDIR/" 2>/dev/null || true
	echo "kept in $KEEPDIR"
fi
