#!/usr/bin/env bash
# Soak: does a long recording stay flat? perfcap record --aio records a
# tracepoint flood (sysflood: getppid in a loop on every CPU) for a long
# time while this script samples the recorder every few seconds: resident
# memory (VmRSS), its peak (VmHWM), open fds, threads, and the size of the
# file. At the end upstream perf report --stats must read the whole file.
# A benchmark, not a test: nothing here passes or fails a build.
#
#   sudo bench/soak.sh [-t SECONDS] [-i INTERVAL] [-c PERIOD] [-b PERFCAP] [-o DIR] [-k]
#
#   -t  how long the flood runs (default 600: ten minutes)
#   -i  seconds between samples (default 5)
#   -c  -c PERIOD for perfcap record (default none). On the 2-CPU VM's kernel
#       a tracepoint samples every hit whatever the period (perf record
#       too): the flood writes ~12 MB/s there, a 10-minute file of ~7 GB
#   -b  the perfcap binary (default ./perfcap); a sanitizer build
#       (perfcap-san) makes the ASan/UBSan soak: run it shorter, it is
#       several times slower, and its report lands in record.log
#   -o  where the results go (default bench/out/soak-DATE-TIME; the
#       recording is deleted at the end unless -k)
#
# Output in DIR: samples.txt (comma separated, one row per sample; not .csv,
# which bench/results keeps for bench/loss.sh raw rows), record.log (perfcap's
# messages and summary), perf-stats.txt (perf report --stats), summary.md
# (the table and the flat/leak figures). RSS is compared from the end of
# the first tenth of the run (rings mapped, buffers touched) to the end.
set -u
cd "$(dirname "$0")/.."

secs=600 interval=5 period= perfcap=./perfcap out= keep=0
while getopts "t:i:c:b:o:k" opt; do
	case $opt in
	t) secs=$OPTARG ;;
	i) interval=$OPTARG ;;
	c) period=$OPTARG ;;
	b) perfcap=$OPTARG ;;
	o) out=$OPTARG ;;
	k) keep=1 ;;
	*) sed -n '2,/^set -u/p' "$0" | sed 's/^# \{0,1\}//' | head -n -1 >&2; exit 2 ;;
	esac
done
out=${out:-bench/out/soak-$(date +%Y%m%d-%H%M%S)}
mkdir -p "$out"
perfcap=$(realpath "$perfcap")
flood=$(realpath "${WORKLOADS:-build/workloads}/sysflood")
event=syscalls:sys_enter_getppid

[ "$(id -u)" = 0 ] || { echo "soak: needs root (-a and a tracepoint)" >&2; exit 1; }
[ -x "$perfcap" ] || { echo "soak: no perfcap binary at $perfcap" >&2; exit 1; }
[ -x "$flood" ] || { echo "soak: no sysflood at $flood (make, or set WORKLOADS)" >&2; exit 1; }
command -v perf >/dev/null || { echo "soak: upstream perf is not installed" >&2; exit 1; }

data=$out/soak.data
cmd=("$perfcap" record --aio -e "$event" ${period:+-c "$period"} -a -o "$data" -- "$flood" -t "$secs")
echo "soak: ${cmd[*]}" | tee "$out/record.log"
"${cmd[@]}" >>"$out/record.log" 2>&1 &
pid=$!
start=$(date +%s.%N)

echo "t_s,rss_kb,hwm_kb,fds,threads,file_bytes" >"$out/samples.txt"
sample() {
	local st rss hwm thr fds size t
	st=$(cat "/proc/$pid/status" 2>/dev/null) || return 1
	rss=$(awk '/^VmRSS:/ {print $2}' <<<"$st")
	hwm=$(awk '/^VmHWM:/ {print $2}' <<<"$st")
	thr=$(awk '/^Threads:/ {print $2}' <<<"$st")
	fds=$(find "/proc/$pid/fd" -mindepth 1 -maxdepth 1 2>/dev/null | wc -l)
	size=$(stat -c %s "$data" 2>/dev/null || echo 0)
	t=$(awk -v now="$(date +%s.%N)" -v start="$start" 'BEGIN { printf "%.1f", now - start }')
	echo "$t,$rss,$hwm,$fds,$thr,$size" >>"$out/samples.txt"
}
while kill -0 "$pid" 2>/dev/null; do
	sleep "$interval"
	sample || break
done
wait "$pid"
rc=$?
echo "soak: perfcap exited $rc" | tee -a "$out/record.log"

perf report --stats -i "$data" >"$out/perf-stats.txt" 2>"$out/perf-stats.err"
prc=$?
perf_warn=$(grep -ciE 'warning|error|failed|unexpected' "$out/perf-stats.err")
file_bytes=$(stat -c %s "$data" 2>/dev/null || echo 0)
ours=$("$perfcap" dump --stats "$data" 2>/dev/null | awk '/ SAMPLE events:/ {print $3; exit}')
theirs=$(awk '/ SAMPLE events:/ {print $3; exit}' "$out/perf-stats.txt")
[ "$keep" = 1 ] || rm -f "$data" "$data.old"

# The table and the figures, from samples.txt.
python3 - "$out" "$secs" "$rc" "$prc" "$perf_warn" "$file_bytes" "${ours:-?}" "${theirs:-?}" \
	"${cmd[*]}" <<'EOF' | tee "$out/summary.md"
import csv, sys
out, secs, rc, prc, warn, size, ours, theirs, cmd = sys.argv[1:]
rows = [r for r in csv.DictReader(open(out + "/samples.txt")) if r["rss_kb"]]
if not rows:
    print("no samples: the recorder ended before the first one")
    sys.exit(0)
def col(k):
    return [int(r[k]) for r in rows]
t = [float(r["t_s"]) for r in rows]
rss, hwm, fds, thr = col("rss_kb"), col("hwm_kb"), col("fds"), col("threads")
warm = next((i for i, x in enumerate(t) if x >= float(secs) / 10), 0)
print("| t (s) | RSS (KiB) | peak RSS (KiB) | fds | threads | file (MB) |")
print("|---|---|---|---|---|---|")
step = max(1, len(rows) // 12)
for i in list(range(0, len(rows), step)) + ([len(rows) - 1] if (len(rows) - 1) % step else []):
    r = rows[i]
    print(f"| {t[i]:.0f} | {rss[i]} | {hwm[i]} | {fds[i]} | {thr[i]} | {int(r['file_bytes']) / 1e6:.1f} |")
print()
print(f"- command: `{cmd}`")
print(f"- samples: {len(rows)}, every ~{(t[-1] - t[0]) / max(1, len(rows) - 1):.1f} s; perfcap exit status {rc}")
print(f"- RSS after warm-up (t >= {t[warm]:.0f} s): {rss[warm]} KiB -> {rss[-1]} KiB at the end "
      f"({rss[-1] - rss[warm]:+d} KiB), min {min(rss[warm:])}, max {max(rss[warm:])}; peak (VmHWM) {hwm[-1]} KiB")
print(f"- fds: min {min(fds)}, max {max(fds)} (after warm-up: {min(fds[warm:])}..{max(fds[warm:])}); "
      f"threads: {min(thr)}..{max(thr)}")
print(f"- file: {int(size) / 1e6:.1f} MB; perf report --stats exit {prc}, {warn} warning lines; "
      f"SAMPLE events: perf {theirs}, perfcap dump {ours}")
EOF
