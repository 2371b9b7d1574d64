#!/usr/bin/env bash
# Does hotspot's parser get perfcap's reader-thread streams in time order?
# Its reorder rule is not perf's: at each FINISHED_ROUND it flushes the
# older half of the bytes it holds, so a round that lacks what one ring had
# long before comes in behind that flush ("samples time violations" in
# --print-stats). This records `-a -o -` of the parallel workload, piped
# into hotspot-perfparser, with CPU hogs on every CPU (a loaded machine
# wakes the readers late), alternating the binaries rep by rep.
#
#   sudo bench/hotspot-order.sh [-r REPS] [-o DIR] [-n NAME] [BIN...]
#
# BIN: perfcap binaries (default ./perfcap, and $ALT when set); "perf"
# is upstream perf record. One row a recording in DIR/raw.csv: bin, rep,
# samples, rounds, violations (samples), max time between rounds (ms).
# DIR is bench/out/hotspot-order-DATE-TIME unless -o says otherwise; -n
# NAME writes into bench/results/YYYY-MM-DD-NAME/ instead (a new folder).
# Environment: W (the workloads' folder), HOTSPOT_PP (the parser).
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=20 NAME='' DIR=''
while getopts r:o:n: o; do
	case $o in
	r) REPS=$OPTARG ;;
	o) DIR=$OPTARG ;;
	n) NAME=$OPTARG ;;
	*) exit 2 ;;
	esac
done
shift $((OPTIND - 1))
BINS=("$@")
if [ ${#BINS[@]} = 0 ]; then
	BINS=(./perfcap)
	if [ -n "${ALT:-}" ]; then BINS+=("$ALT"); fi
fi
W=${W:-build/workloads}
HS=${HOTSPOT_PP:-/usr/lib/x86_64-linux-gnu/libexec/hotspot-perfparser}
[ -x "$HS" ] || { echo "hotspot-order: no hotspot-perfparser (apt-get install hotspot)" >&2; exit 1; }
if [ -n "$NAME" ]; then
	DIR=bench/results/$(date +%Y-%m-%d)-$NAME
	[ ! -e "$DIR" ] || { echo "hotspot-order: $DIR exists" >&2; exit 1; }
elif [ -z "$DIR" ]; then
	DIR=bench/out/hotspot-order-$(date +%Y%m%d-%H%M%S)
fi
mkdir -p "$DIR"
tmp=$(mktemp -d)
hogs=()
cleanup() {
	if [ ${#hogs[@]} -gt 0 ]; then kill "${hogs[@]}" 2>/dev/null || true; fi
	rm -rf "$tmp"
}
trap cleanup EXIT
for _ in $(seq "$(nproc)"); do
	sh -c 'while :; do :; done' &
	hogs+=($!)
done
echo "bin,rep,samples,rounds,violations,max_ms_between_rounds" >"$DIR/raw.csv"
for rep in $(seq "$REPS"); do
	for bin in "${BINS[@]}"; do
		if [ "$bin" = perf ]; then rec=(perf record); else rec=("$bin" record); fi
		"${rec[@]}" -o - -e cpu-clock -a -- "$W/parallel" -t 0.3 2>/dev/null >"$tmp/s.pipe"
		"$HS" --print-stats <"$tmp/s.pipe" 2>/dev/null | strings >"$tmp/stats"
		awk -v b="$bin" -v r="$rep" -F': ' '
			$1 == "samples" { s = $2 } $1 == "rounds" { n = $2 }
			$1 == "samples time violations" { v = $2 }
			$1 == "max time between rounds" { m = $2 / 1e6 }
			END { printf "%s,%s,%s,%s,%s,%.1f\n", b, r, s, n, v, m }' "$tmp/stats" >>"$DIR/raw.csv"
	done
done
# Per binary: recordings with any violation, violations in all, rounds and
# the longest time between rounds (least..most).
awk -F, 'function lo(a, k, x) { return a[k] + 0 <= x + 0 ? a[k] : x }
	function hi(a, k, x) { return a[k] + 0 >= x + 0 ? a[k] : x }
	NR > 1 { b = $1; if (b in n) { x1 = lo(rl, b, $4); x2 = hi(rh, b, $4); x3 = lo(ml, b, $6); x4 = hi(mh, b, $6) }
		 else { x1 = x2 = $4; x3 = x4 = $6 }
		 n[b]++; if ($5 > 0) bad[b]++; v[b] += $5
		 rl[b] = x1; rh[b] = x2; ml[b] = x3; mh[b] = x4 }
	END { print "| binary | recordings | with violations | violations in all | rounds | max ms between rounds |"
	      print "|---|---|---|---|---|---|"
	      for (b in n) printf "| %s | %d | %d | %d | %d..%d | %.1f..%.1f |\n", b, n[b], bad[b] + 0, v[b], rl[b], rh[b], ml[b], mh[b] }' \
	"$DIR/raw.csv" | tee "$DIR/table.md"
