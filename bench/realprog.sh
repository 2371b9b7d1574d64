#!/usr/bin/env bash
# A real program under each recorder (issue 22, item 2): `xz -T2 -6
# --block-size=4MiB` over 24 MB of text, recorded system-wide with DWARF
# stacks, REPS reps (default 20), the recorders interleaved (order
# rotated each rep). The question is the workload's wall time, rep by
# rep, against perf's with the same writer: once, under perfcap --aio,
# xz took 8.2 s instead of 3.7 s.
#
#   sudo bench/realprog.sh [-r REPS] [-i MB] [-w RECORDERS] [-x OPTS] [-o DIR] [-n NAME]
#
# Recorders (-w, comma separated): perfcap, perf, and either with -aio,
# -aioN (--aio[=N]), e.g. perfcap-aio; alt, alt-aio: the ALT binary;
# perf2, perf2-aio: perf again under another name, measured against
# perf's (an A/A check of the table); a perfcap recorder with -unwind
# last (perfcap-unwind, perfcap-aio-unwind) records with --unwind; none:
# xz alone, the base of each recorder's slowdown. Default perfcap-aio,
# perf-aio,perfcap,perf. OPTS (-x) replaces the events: default -e cpu-clock
# -F 5000 --call-graph dwarf,8192. Every recorder runs with -a -N -B (no
# build-id pass: perf's would come after the workload and is not what
# is measured).
#
# The input: the first MB megabytes (-i, default 24) of /usr/share's
# .html, .txt, .py and .h files, in name order (made once in DIR). xz's
# own block for -6 is 24 MiB, as large as the input, so without
# --block-size it ran one thread.
# Each run: the recorder's command is xz under GNU time (its wall, user
# and system time, voluntary switches); the recorder's own CPU time and
# switches are GNU time's around it less xz's. Samples and loss:
# `perfcap loss --json`. Raw rows go to DIR/raw.csv; the table
# (python3 bench/realprog.py DIR/raw.csv) gives medians and, rep by rep,
# each perfcap recorder's xz wall time over perf's with the same writer.
# -n NAME keeps raw.csv and table.md in bench/results/YYYY-MM-DD-NAME/.
# Environment: PERF, PERFCAP, ALT, TIME (GNU time), XZ.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=20 MB=24 OUTDIR=bench/out/realprog-$(date +%Y%m%d-%H%M%S) NAME=
RECS=perfcap-aio,perf-aio,perfcap,perf
EVOPTS="-e cpu-clock -F 5000 --call-graph dwarf,8192"
while getopts r:i:w:x:o:n: opt; do
	case $opt in
	r) REPS=$OPTARG ;; i) MB=$OPTARG ;; w) RECS=$OPTARG ;; x) EVOPTS=$OPTARG ;;
	o) OUTDIR=$OPTARG ;; n) NAME=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^#/p}' "$0"; exit 2 ;;
	esac
done
# shellcheck source=bench/keepdir.sh
. bench/keepdir.sh
KEEPDIR=$(keep_dir "$NAME" "$OUTDIR") || exit 2
[ "$(id -u)" = 0 ] || { echo "bench/realprog.sh: run as root (system-wide recording)" >&2; exit 1; }
PERFCAP=${PERFCAP:-$PWD/perfcap}
PERF=${PERF:-perf}
TIME=${TIME:-/usr/bin/time}
XZ=${XZ:-xz}
[ -x "$PERFCAP" ] || make -s
command -v "$XZ" >/dev/null || { echo "bench/realprog.sh: no xz" >&2; exit 1; }
mkdir -p "$OUTDIR" "$KEEPDIR"

rec_cmd() { # RECORDER
	local bin o= u=
	case $1 in
	none) return 0 ;;
	perfcap-unwind | perfcap-*-unwind | alt-unwind | alt-*-unwind)
		u=--unwind
		set -- "${1%-unwind}" ;;
	esac
	case $1 in
	perfcap | perfcap-*) bin=$PERFCAP ;;
	perf | perf-* | perf2 | perf2-*) bin=$PERF ;;
	alt | alt-*) bin=${ALT:?ALT=perfcap binary} ;;
	*) echo "bench/realprog.sh: unknown recorder '$1'" >&2; return 1 ;;
	esac
	case $1 in
	*-aio) o=--aio ;;
	*-aio[0-9]*) o=--aio=${1##*-aio} ;;
	perfcap | perf | perf2 | alt) ;;
	*) echo "bench/realprog.sh: unknown recorder '$1'" >&2; return 1 ;;
	esac
	echo "$bin record $o $u"
}

IFS=, read -r -a recorders <<<"$RECS"
for r in "${recorders[@]}"; do rec_cmd "$r" >/dev/null || exit 2; done
IN=$OUTDIR/input
if [ ! -s "$IN" ]; then
	find /usr/share -type f \( -name '*.html' -o -name '*.txt' -o -name '*.py' -o -name '*.h' \) |
		sort | xargs cat 2>/dev/null | head -c "$((MB * 1000000))" >"$IN" || true
fi
RAW=$KEEPDIR/raw.csv
echo "recorder,rep,wall_s,xz_user_s,xz_sys_s,xz_vcs,rec_cpu_s,rec_vcs,samples,lost,bytes,failed" >"$RAW"
for rep in $(seq 1 "$REPS"); do
	n=${#recorders[@]}
	for i in $(seq 0 $((n - 1))); do
		r=${recorders[$(((i + rep) % n))]}
		out=$OUTDIR/$r-$rep.data
		rm -rf "$out"
		sync
		rc=0
		if [ "$r" = none ]; then
			"$TIME" -o "$OUTDIR/xz-time.txt" -f "%e %U %S %w" "$XZ" -T2 -6 --block-size=4MiB \
				-c "$IN" >/dev/null
			read -r wall xu xs xv <"$OUTDIR/xz-time.txt"
			echo "$r,$rep,$wall,$xu,$xs,$xv,,,,,," >>"$RAW"
			tail -n 1 "$RAW"
			continue
		fi
		# shellcheck disable=SC2046
		"$TIME" -o "$OUTDIR/rec-time.txt" -f "%U %S %w" \
			$(rec_cmd "$r") -q -a -N -B $EVOPTS -o "$out" -- \
			"$TIME" -o "$OUTDIR/xz-time.txt" -f "%e %U %S %w" "$XZ" -T2 -6 --block-size=4MiB -c "$IN" \
			>/dev/null 2>"$OUTDIR/rec.err" || rc=$?
		read -r wall xu xs xv <"$OUTDIR/xz-time.txt"
		if [ "$rc" != 0 ] || ! json=$("$PERFCAP" loss --json "$out" 2>>"$OUTDIR/rec.err"); then
			echo "warning: $r exited $rc in rep $rep" >&2
			tail -n 3 "$OUTDIR/rec.err" >&2
			echo "$r,$rep,$wall,$xu,$xs,$xv,,,,,,failed" >>"$RAW"
			rm -rf "$out"
			continue
		fi
		# The outer time counts xz too (a waited-for descendant): taken off.
		read -r u s v < <(tail -n 1 "$OUTDIR/rec-time.txt")
		u=$(awk -v a="$u" -v b="$xu" 'BEGIN { print a - b }')
		s=$(awk -v a="$s" -v b="$xs" 'BEGIN { print a - b }')
		v=$((v - xv))
		bytes=$(du -sb "$out" | cut -f1)
		python3 -c '
import json, sys
j = json.loads(sys.argv[1])
r, rep, wall, xu, xs, xv, u, s, v, b = sys.argv[2:]
print(",".join(str(x) for x in [r, rep, wall, xu, xs, xv, round(float(u) + float(s), 2), v,
                                j["samples"], j["lost"], b, ""]))' \
			"$json" "$r" "$rep" "$wall" "$xu" "$xs" "$xv" "$u" "$s" "$v" "$bytes" >>"$RAW"
		tail -n 1 "$RAW"
		rm -rf "$out"
	done
done
python3 bench/realprog.py "$RAW" | tee "$KEEPDIR/table.md"
