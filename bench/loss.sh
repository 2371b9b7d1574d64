#!/usr/bin/env bash
# Loss and cost of perfcap's writers against upstream perf record, on the
# same workloads, interleaved in one run (this machine is shared and noisy:
# compare within a run, never across runs).
#
#   sudo bench/loss.sh [-r REPS] [-d SECONDS] [-s SCENARIOS] [-w RECORDERS] [-o DIR] [-n NAME]
#
# Scenarios (-s, comma separated):
#   dwarf-small  all CPUs saturated (parallel), cpu-clock -F 10000,
#                --call-graph dwarf,4096, --switch-events, -m 8 (32 KiB rings)
#   dwarf-large  the same with -m 256 (1 MiB rings)
#   tpflood      raw_syscalls:sys_enter + sched:sched_switch flood (sysflood), -m 64
#   seed         the seed's own flag set (issue 22): parallel, -B -T -R -g
#                --call-graph dwarf,1024 --user-regs=IP,SP,BP --switch-events
#                -e cpu-clock -c 100000, default rings
#   flood-seed   issue 22's flood: sysflood -j 4, -B -T -R -e
#                sched:sched_switch,raw_syscalls:sys_enter --switch-events -m 64
# Recorders (-w): perfcap (its default) perfcap-sync perfcap-aio perfcap-aioN
#                 perfcap-uring perf perf-aio perf-aioN perf-threads (N: --aio=N);
#                 more tokens add options: -threads (--threads), -rtN (-r N),
#                 -status (--status=0.5), -z (-z: zstd level 1), -zauto, -zN
#                 (--compression-level=N), ubSIZE (--user-buffer-size=SIZE;
#                 perfcap only, ub0: no triage stage), e.g. perfcap-threads-aio4, perf-rt1,
#                 perfcap-z against perf-z, perfcap-aio4-z3 against perf-aio4-z3
#                 perfB perfB-aio perfB-aioN perfB-threads: the same with -B
#                 (no build ids: without the pass over the file that perf
#                 makes after recording, most of its CPU time in a flood)
#                 alt alt-sync alt-aio alt-aioN alt-uring: another perfcap binary
#                 (alt: its default),
#                 ALT=/path/to/perfcap (A/B of a change inside one run);
#                 alt2 alt2-*: the same with ALT2, for a third binary
#
# Every recorder runs with -N (no build-id cache: perfcap keeps none, and
# perf 6.1's cache step aborted with "stack smashing detected" on large
# dwarf files here). Each run: the recorder records system-wide (-a) with `-- sleep D+0.6`
# as its timer; 0.3 s later the workload starts and runs D seconds. The
# recorder's CPU time and context switches come from GNU time (they are
# the recorder's and its threads'; its only child is sleep). Samples and
# loss come from `perfcap loss --json`, bytes from du. Slowdown is the
# workload's work without a recorder (same rep) over its work with one.
# lost_records (the last column) counts PERF_RECORD_LOST records: each
# is one stretch in which a ring was full, so loss spread over many
# short overflows and loss from a few long stalls look different there.
# Raw rows go to DIR/raw.csv, the tables to DIR/table.md (bench/summarize.py:
# medians per recorder, then each perfcap recorder against perf's with the
# same writer: ratios, and the reps in which perfcap lost less or had
# fewer LOST records, each with a sign test's p). DIR is bench/out/DATE-TIME
# unless -o says otherwise; bench/out/ is not tracked.
# -n NAME keeps the run as an experiment: raw.csv and table.md go to a new
# folder bench/results/YYYY-MM-DD-NAME/ (NAME: a-z, 0-9, '-'; the folder
# must not exist yet), the recordings and scratch files still to DIR. Add
# its README.md and a line in bench/results/README.md (the layout is
# described there). RESULTS overrides bench/results.
# Environment: PERF, PERFCAP (the binaries), W (the workloads' folder),
# TIME (GNU time), ALT and ALT2 (the alt-* and alt2-* binaries), RESULTS;
# bench/device/ sets the first four.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=3 DUR=3 OUTDIR=bench/out/$(date +%Y%m%d-%H%M%S) NAME=
SCEN=dwarf-small,dwarf-large,tpflood
RECS=perfcap-sync,perfcap-aio,perfcap-aio4,perfcap-uring,perf,perf-aio,perf-aio4,perf-threads
while getopts r:d:s:w:o:n: opt; do
	case $opt in
	r) REPS=$OPTARG ;; d) DUR=$OPTARG ;; s) SCEN=$OPTARG ;; w) RECS=$OPTARG ;;
	o) OUTDIR=$OPTARG ;; n) NAME=$OPTARG ;;
	*) sed -n '2,/^set -e/{/^#/p}' "$0"; exit 2 ;;
	esac
done
# Where raw.csv and table.md go: DIR, or with -n a new experiment folder.
# shellcheck source=bench/keepdir.sh
. bench/keepdir.sh
KEEPDIR=$(keep_dir "$NAME" "$OUTDIR") || exit 2
[ "$(id -u)" = 0 ] || { echo "bench/loss.sh: run as root (system-wide recording)" >&2; exit 1; }
# The device run (bench/device/) points these at carried binaries.
PERFCAP=${PERFCAP:-$PWD/perfcap}
PERF=${PERF:-perf}
W=${W:-$PWD/build/workloads}
TIME=${TIME:-/usr/bin/time}
[ -x "$PERFCAP" ] && [ -x "$W/parallel" ] || make -s
mountpoint -q /sys/kernel/tracing || mount -t tracefs nodev /sys/kernel/tracing
MAXRATE=$(cat /proc/sys/kernel/perf_event_max_sample_rate)

scen_opts() {
	case $1 in
	dwarf-small) echo "-e cpu-clock -F 10000 --call-graph dwarf,4096 --switch-events -m 8" ;;
	dwarf-large) echo "-e cpu-clock -F 10000 --call-graph dwarf,4096 --switch-events -m 256" ;;
	tpflood) echo "-e raw_syscalls:sys_enter,sched:sched_switch -m 64" ;;
	seed) echo "-B -T -R -g --call-graph dwarf,1024 --user-regs=IP,SP,BP --switch-events -e cpu-clock -c 100000" ;;
	flood-seed) echo "-B -T -R -e sched:sched_switch,raw_syscalls:sys_enter --switch-events -m 64" ;;
	*) echo "bench/loss.sh: unknown scenario '$1'" >&2 ;;
	esac
}
scen_workload() {
	case $1 in
	tpflood) echo "$W/sysflood -t $DUR" ;;
	flood-seed) echo "$W/sysflood -j 4 -t $DUR" ;;
	*) echo "$W/parallel -t $DUR" ;;
	esac
}
# A recorder's name is its binary and its options, '-'-separated tokens:
# sync (nothing), aio (--aio), aioN (--aio=N), uring (--writer=uring),
# threads (--threads), rtN (-r N), status (--status=0.5: the live status
# line, as a terminal would get it), z (-z), zN (--compression-level=N);
# "perfcap" alone is perfcap's default.
rec_opts() { # TOKENS...
	local t o=
	for t in "$@"; do
		case $t in
		sync) ;;
		aio) o="$o --aio" ;;
		aio[0-9]*) o="$o --aio=${t#aio}" ;;
		uring) o="$o --writer=uring" ;;
		threads) o="$o --threads" ;;
		rt[0-9]*) o="$o -r ${t#rt}" ;;
		status) o="$o --status=0.5" ;;
		z) o="$o -z" ;;
		zauto) o="$o -zauto" ;;
		z[0-9]*) o="$o --compression-level=${t#z}" ;;
		ub[0-9]*) o="$o --user-buffer-size=${t#ub}" ;;
		*) return 1 ;;
		esac
	done
	echo "$o"
}
rec_cmd() {
	local bin= b= r=$1 o
	local -a toks
	case $r in
	perfcap) echo "$PERFCAP record"; return ;;
	perfcap-*) bin=$PERFCAP ;;
	alt) echo "${ALT:?ALT=perfcap binary} record"; return ;;
	alt-*) bin=${ALT:?ALT=perfcap binary} ;;
	alt2) echo "${ALT2:?ALT2=perfcap binary} record"; return ;;
	alt2-*) bin=${ALT2:?ALT2=perfcap binary} ;;
	perf) echo "$PERF record"; return ;;
	perfB) echo "$PERF record -B"; return ;;
	perf-*) bin=$PERF ;;
	perfB-*) bin=$PERF b=" -B" ;;
	esac
	IFS=- read -r -a toks <<<"${r#*-}"
	if [ -z "$bin" ] || ! o=$(rec_opts "${toks[@]}") ||
		{ [ "$bin" = "$PERF" ] && [[ " ${toks[*]} " =~ \ (sync|uring)\  ]]; }; then
		echo "bench/loss.sh: unknown recorder '$1'" >&2
		exit 2
	fi
	echo "$bin record$b$o"
}

work_of() { sed -n 's/.* \([0-9][0-9]*\) iterations.*/\1/p' "$1" | tail -n 1; }

IFS=, read -r -a scenarios <<< "$SCEN"
IFS=, read -r -a recorders <<< "$RECS"
for r in "${recorders[@]}"; do rec_cmd "$r" >/dev/null || exit 2; done
for s in "${scenarios[@]}"; do [ -n "$(scen_opts "$s")" ] || exit 2; done
mkdir -p "$OUTDIR" "$KEEPDIR"
RAW=$KEEPDIR/raw.csv
echo "scenario,recorder,rep,samples,lost,loss_fraction,lost_time_fraction,cpu_s,vcs,ivcs,work,base_work,bytes,failed,lost_records" > "$RAW"
for rep in $(seq 1 "$REPS"); do
	for s in "${scenarios[@]}"; do
		# Baseline: the workload alone.
		$(scen_workload "$s") > "$OUTDIR/base.txt"
		base=$(work_of "$OUTDIR/base.txt")
		# Rotate the order each rep so no recorder always runs first.
		n=${#recorders[@]}
		for i in $(seq 0 $((n - 1))); do
			r=${recorders[$(( (i + rep) % n ))]}
			out=$OUTDIR/$s-$r-$rep.data
			rm -rf "$out"
			echo "$MAXRATE" > /proc/sys/kernel/perf_event_max_sample_rate
			sync
			# shellcheck disable=SC2046
			"$TIME" -o "$OUTDIR/time.txt" -f "%U %S %w %c" \
				$(rec_cmd "$r") -q -N -a $(scen_opts "$s") -o "$out" \
				-- sleep "$(awk "BEGIN{print $DUR + 0.6}")" > /dev/null 2> "$OUTDIR/rec.err" &
			recpid=$!
			sleep 0.3
			$(scen_workload "$s") > "$OUTDIR/work.txt"
			rc=0
			wait $recpid || rc=$?
			work=$(work_of "$OUTDIR/work.txt")
			if [ $rc != 0 ] || ! json=$("$PERFCAP" loss --json "$out" 2>>"$OUTDIR/rec.err"); then
				# Keep the failure in the table: a recorder that crashed lost everything.
				echo "warning: $r exited $rc on $s rep $rep:" >&2
				tail -n 3 "$OUTDIR/rec.err" >&2
				cp "$OUTDIR/rec.err" "$OUTDIR/$s-$r-$rep.err"
				echo "$s,$r,$rep,,,,,,,,$work,$base,,failed," >> "$RAW"
				rm -rf "$out"
				continue
			fi
			read -r u sy vcs ivcs < <(tail -n 1 "$OUTDIR/time.txt")
			bytes=$(du -sb "$out" | cut -f1)
			python3 - "$s" "$r" "$rep" "$u" "$sy" "$vcs" "$ivcs" "$work" "$base" "$bytes" \
				>> "$RAW" <<PY
import json, sys
s, r, rep, u, sy, vcs, ivcs, work, base, nbytes = sys.argv[1:]
j = json.loads('''$json''')
lf = j.get("lost_time_fraction")
print(",".join(str(x) for x in [s, r, rep, j["samples"], j["lost"], j["loss_fraction"],
      "" if lf is None else lf, float(u) + float(sy), vcs, ivcs, work, base, nbytes, "",
      j["lost_records"]]))
PY
			tail -n 1 "$RAW"
			rm -rf "$out"
		done
	done
done
echo "$MAXRATE" > /proc/sys/kernel/perf_event_max_sample_rate
python3 bench/summarize.py "$RAW" | tee "$KEEPDIR/table.md"
