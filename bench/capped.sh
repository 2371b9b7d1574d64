#!/usr/bin/env bash
# The output as the bottleneck (issue 21): perf and perfcap record the
# same command into `-o -`, read by capcat (bench/fixtures/capcat.c, a
# consumer capped at CAP bytes a second) or, uncapped, by cat;
# interleaved, REPS reps. With -f, into a regular file instead: on a
# slowfs mount capped at CAP (bench/fixtures/slowfs.c, FUSE; make slowfs)
# or, uncapped, in DIR.
#
#   sudo bench/capped.sh [-f] [-r REPS] [-d SECONDS] [-c CAP] [-w RECORDERS] [-x OPTS] [-o DIR] [-n NAME]
#
# The command: tests/workloads/phases -c (one thread per CPU, a deep-stack
# phase and a shallow one, 50 ms of the thread's CPU each, so equal CPU
# time however the recorder shares the CPUs) for SECONDS of each thread's
# CPU (default 5), while 150 short programs (/bin/true) start and exit. The
# events: cpu-clock -F 10000 --call-graph dwarf,4096 (-x OPTS replaces
# them, e.g. -x '-F 20000 -g' for fp call graphs). The recording covers
# the command only (no -a), so the metadata counts are the command's.
# CAP (bytes/s, pv's suffixes k, m) defaults to a quarter of perf's
# uncapped data rate, measured first in one calibration run.
# Recorders (-w, comma separated): perf, perfcap, or alt (ALT=binary: an
# A/B of perfcap inside one run), each with tokens that add options: -ubSIZE
# (--user-buffer-size=SIZE, not perf), -aio (--aio), -z (-z), -zauto
# (-zauto), -unwind (--unwind, not perf), e.g. perfcap-ub16M-z, perf-aio-z,
# perfcap-aio-zauto, perfcap-unwind; default perf,perfcap.
#
# Each rep runs every recorder uncapped and capped (order rotated); each
# file is read by perf (`perf report -i - < FILE`): --stats gives the
# records by type, `--sort sym` the shares and the event count, `--sort
# dso` the share left in [unknown]; `perf script` the share of the
# samples in deep_burn and shallow_burn whose chain reaches thread_main
# (root_pct: as perf unwinds a raw file or reads an unwound one); `perfcap loss --json` the kernel's
# loss and perfcap's own drops (triage). Raw rows go to DIR/raw.csv and
# each file's symbol shares to DIR/shares-REC-MODE-REP.txt;
# bench/capped.py DIR/raw.csv makes the table (medians, capped against
# uncapped). link_s is how long the capped link was in use, from the start
# of its first piece to the end of its last (the fixtures' counters,
# bench/fixtures/link.h): "delivered" is bytes / (CAP x link_s).
# -n NAME keeps raw.csv, the shares and table.md in
# bench/results/YYYY-MM-DD-NAME/ (as bench/loss.sh -n does).
# Environment: PERF, PERFCAP, ALT, W (the workloads' folder), CAPCAT, SLOWFS.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=5 DUR=5 CAP= OUTDIR=bench/out/capped-$(date +%Y%m%d-%H%M%S) NAME= FILE=
RECS=perf,perfcap
EVOPTS="-e cpu-clock -F 10000 --call-graph dwarf,4096"
while getopts fr:d:c:w:x:o:n: opt; do
	case $opt in
	f) FILE=1 ;;
	r) REPS=$OPTARG ;; d) DUR=$OPTARG ;; c) CAP=$OPTARG ;; w) RECS=$OPTARG ;;
	x) EVOPTS=$OPTARG ;; o) OUTDIR=$OPTARG ;; n) NAME=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^#/p}' "$0"; exit 2 ;;
	esac
done
# shellcheck source=bench/keepdir.sh
. bench/keepdir.sh
KEEPDIR=$(keep_dir "$NAME" "$OUTDIR") || exit 2
PERFCAP=${PERFCAP:-$PWD/perfcap}
PERF=${PERF:-perf}
W=${W:-$PWD/build/workloads}
CAPCAT=${CAPCAT:-$PWD/build/bench/capcat}
SLOWFS=${SLOWFS:-$PWD/build/bench/slowfs}
[ -x "$PERFCAP" ] && [ -x "$W/phases" ] && [ -x "$CAPCAT" ] || make -s
[ -z "$FILE" ] || [ -x "$SLOWFS" ] || make -s slowfs
mkdir -p "$OUTDIR" "$KEEPDIR"
OUTDIR=$(realpath "$OUTDIR")

rec_bin() {
	local bin t o=
	local -a toks
	IFS=- read -r -a toks <<<"$1"
	case ${toks[0]} in
	perf) bin=$PERF ;;
	perfcap) bin=$PERFCAP ;;
	alt) bin=${ALT:?ALT=perfcap binary} ;;
	*) echo "bench/capped.sh: unknown recorder '$1'" >&2; exit 2 ;;
	esac
	for t in "${toks[@]:1}"; do
		case $t in
		z) o="$o -z" ;;
		zauto) o="$o -zauto" ;;
		aio) o="$o --aio" ;;
		unwind) [ "$bin" != "$PERF" ] || { echo "bench/capped.sh: perf has no --unwind" >&2; exit 2; }
		        o="$o --unwind" ;;
		ub*) [ "$bin" != "$PERF" ] || { echo "bench/capped.sh: perf has no $t" >&2; exit 2; }
		     o="$o --user-buffer-size=${t#ub}" ;;
		*) echo "bench/capped.sh: unknown recorder '$1'" >&2; exit 2 ;;
		esac
	done
	echo "$bin$o"
}
IFS=, read -r -a recorders <<< "$RECS"
for r in "${recorders[@]}"; do rec_bin "$r" >/dev/null; done

# The command both record: the phases, and 150 programs spread over it.
GAP=$(awk "BEGIN{printf \"%.3f\", $DUR / 150}")
WORK="$W/phases -c -t $DUR >/dev/null & for i in \$(seq 150); do /bin/true; sleep $GAP; done; wait"

# With -f the capped files go to a slowfs mount, capped at CAP (set once
# CAP is known), over the folder $OUTDIR/backing.
MNT=
unmount() { [ -z "$MNT" ] || umount "$MNT" 2>/dev/null || umount -l "$MNT" 2>/dev/null || true; }
trap unmount EXIT
mount_slowfs() {
	mkdir -p "$OUTDIR/mnt" "$OUTDIR/backing"
	"$SLOWFS" --backing="$OUTDIR/backing" --rate="$CAP" "$OUTDIR/mnt"
	MNT=$OUTDIR/mnt
}

# record REC CAP FILE: CAP empty = uncapped. Prints the wall time and the
# capped link's time in use (0 uncapped); the recording ends up in FILE.
record() {
	local t0 t1 rc=0 link=0 out=$3
	local -a b
	read -r -a b <<<"$(rec_bin "$1")"
	if [ -n "$FILE" ] && [ -n "$2" ]; then
		out=$MNT/$(basename "$3")
		echo >"$MNT/.slowfs-stats"
	fi
	t0=$(date +%s.%N)
	# shellcheck disable=SC2086
	if [ -n "$FILE" ]; then
		"${b[0]}" record "${b[@]:1}" -q -N $EVOPTS -o "$out" -- sh -c "$WORK" 2>"$OUTDIR/rec.err" || rc=$?
	elif [ -n "$2" ]; then
		"${b[0]}" record "${b[@]:1}" -q -N $EVOPTS -o - -- sh -c "$WORK" 2>"$OUTDIR/rec.err" |
			"$CAPCAT" "$2" "$OUTDIR/link.txt" >"$3" || rc=$?
	else
		"${b[0]}" record "${b[@]:1}" -q -N $EVOPTS -o - -- sh -c "$WORK" 2>"$OUTDIR/rec.err" |
			cat >"$3" || rc=$?
	fi
	t1=$(date +%s.%N)
	[ $rc = 0 ] || { echo "warning: $1 exited $rc:" >&2; tail -n 3 "$OUTDIR/rec.err" >&2; }
	if [ -n "$2" ]; then
		if [ -n "$FILE" ]; then
			cat "$MNT/.slowfs-stats" >"$OUTDIR/link.txt"
			mv "$OUTDIR/backing/$(basename "$3")" "$3"
		fi
		link=$(awk '{ for (i = 1; i < NF; i += 2) v[$i] = $(i + 1) } END { printf "%.3f", (v["last_ns"] - v["first_ns"]) / 1e9 }' "$OUTDIR/link.txt")
	fi
	echo "$(awk "BEGIN{print $t1 - $t0}") $link"
}

# report ARGS...: perf report of $f, a pipe's stream or a file.
report() {
	if [ -n "$FILE" ]; then
		"$PERF" report -i "$f" "$@"
	else
		"$PERF" report -i - "$@" <"$f"
	fi
}

# stat FILE TYPE: perf report --stats' count of one record type (0 if none).
stat_of() { awk -v t="$2" '$1 == t && $2 == "events:" { print $3; f = 1; exit } END { if (!f) print 0 }' "$1"; }

if [ -z "$CAP" ]; then
	read -r w _ <<<"$(record perf "" "$OUTDIR/calib.data")"
	b=$(stat -c %s "$OUTDIR/calib.data")
	CAP=$(awk "BEGIN{printf \"%d\", $b / $w / 4}")
	echo "calibration: perf uncapped wrote $b bytes in $w s; CAP = $CAP bytes/s"
	rm -f "$OUTDIR/calib.data"
fi
echo "$CAP" > "$KEEPDIR/cap.txt"
KIND=pipe
[ -z "$FILE" ] || { KIND=file; mount_slowfs; }
RAW=$KEEPDIR/raw.csv
echo "recorder,mode,rep,cap_bps,wall_s,bytes,samples,lost_records,lost_samples,comm,mmap2,fork,exit,event_count,unknown_pct,kernel_lost,triage_dropped,output,link_s,root_pct" > "$RAW"
modes=(uncapped capped)
for rep in $(seq 1 "$REPS"); do
	n=${#recorders[@]}
	for i in $(seq 0 $((2 * n - 1))); do
		k=$(( (i + rep) % (2 * n) ))
		r=${recorders[$((k / 2))]} mode=${modes[$((k % 2))]}
		f=$OUTDIR/$r-$mode-$rep.data
		cap=; [ "$mode" = capped ] && cap=$CAP
		read -r wall link <<<"$(record "$r" "$cap" "$f")"
		bytes=$(stat -c %s "$f")
		report --stats >"$OUTDIR/stats.txt" 2>/dev/null || true
		report --stdio --sort sym -g none --no-children --percent-limit 0 \
			>"$OUTDIR/sym.txt" 2>/dev/null || true
		report --stdio --sort dso -g none --no-children >"$OUTDIR/dso.txt" 2>/dev/null || true
		grep '%' "$OUTDIR/sym.txt" | grep -v '^#' >"$KEEPDIR/shares-$r-$mode-$rep.txt" || true
		ec=$(sed -n 's/^# Event count (approx.): //p' "$OUTDIR/sym.txt" | head -1)
		unk=$(awk '$2 == "[unknown]" { sub("%", "", $1); s += $1 } END { print s + 0 }' "$OUTDIR/dso.txt")
		# Of the samples in the burn functions, those whose chain reaches thread_main.
		if [ -n "$FILE" ]; then
			"$PERF" script -i "$f" -F ip,sym --no-inline >"$OUTDIR/chains.txt" 2>/dev/null || true
		else
			"$PERF" script -i - -F ip,sym --no-inline <"$f" >"$OUTDIR/chains.txt" 2>/dev/null || true
		fi
		root=$(awk 'BEGIN { RS = ""; FS = "\n" } $1 ~ /_burn$/ { b++; if ($0 ~ / (thread_main|main)(\n|$)/) r++ }
			END { printf "%.1f", b ? 100 * r / b : 0 }' "$OUTDIR/chains.txt")
		kl=0 td=0
		if json=$("$PERFCAP" loss --json "$f" 2>/dev/null); then
			kl=$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print(j.get("kernel_lost", j.get("lost", 0)))' "$json")
			td=$(python3 -c 'import json,sys; j=json.loads(sys.argv[1]); print(j.get("triage_dropped", 0))' "$json")
		fi
		echo "$r,$mode,$rep,$CAP,$wall,$bytes,$(stat_of "$OUTDIR/stats.txt" SAMPLE),$(stat_of "$OUTDIR/stats.txt" LOST),$(stat_of "$OUTDIR/stats.txt" LOST_SAMPLES),$(stat_of "$OUTDIR/stats.txt" COMM),$(stat_of "$OUTDIR/stats.txt" MMAP2),$(stat_of "$OUTDIR/stats.txt" FORK),$(stat_of "$OUTDIR/stats.txt" EXIT),${ec:-0},$unk,$kl,$td,$KIND,$link,$root" >>"$RAW"
		tail -n 1 "$RAW"
		rm -f "$f"
	done
done
python3 bench/capped.py "$RAW" | tee "$KEEPDIR/table.md"
