# SPDX-License-Identifier: GPL-2.0
# Shared by the end-to-end tests: record for real with perfcap, then ask
# upstream perf (the oracle) what it sees.
#
# Environment (exported by tests/run): PERFCAP, the perfcap binary (absolute
# path), WORKLOADS, the directory of the built workloads (build/workloads).
# Every test runs in its own BATS_TEST_TMPDIR, so perf.data lands there.

bats_require_minimum_version 1.5.0

P=${PERFCAP:?PERFCAP must name the perfcap binary}
W=${WORKLOADS:?WORKLOADS must name the workloads directory}

common_setup() {
	cd "$BATS_TEST_TMPDIR" || return 1
	# perf record and perf report keep a build-id cache in ~/.debug; a
	# HOME of our own keeps other users of perf on this machine out of it.
	export HOME=$BATS_FILE_TMPDIR/home
	mkdir -p "$HOME"
}

# ---- what a test needs ---------------------------------------------------

need_root() {
	[ "$(id -u)" = 0 ] || skip "needs root (perf_event_paranoid=$(cat /proc/sys/kernel/perf_event_paranoid))"
}

need_perf() {
	command -v perf >/dev/null || skip "upstream perf is not installed"
}

# Recording for real and reading back with perf: the usual requirement.
need_record() {
	need_root
	need_perf
}

need_tracefs() {
	local t
	for t in /sys/kernel/tracing /sys/kernel/debug/tracing; do
		[ -r "$t/events/sched/sched_switch/id" ] && return 0
	done
	skip "no tracefs with sched:sched_switch"
}

need_python() {
	command -v python3 >/dev/null || skip "python3 is not installed"
}

# hotspot's perf parser, in $HOTSPOT_PP, or a skip. Debian's hotspot
# package installs it off PATH (/usr/lib/<multiarch>/libexec/).
need_hotspot_perfparser() {
	HOTSPOT_PP=$(command -v hotspot-perfparser ||
		dpkg -L hotspot 2>/dev/null | grep -m1 '/hotspot-perfparser$' || true)
	[ -n "$HOTSPOT_PP" ] && [ -x "$HOTSPOT_PP" ] ||
		skip "hotspot-perfparser not installed (Debian package hotspot)"
}

# ---- checks that bats' set -e cannot pass over (tests/lint-bats.py) -------

# refute CMD...: CMD must fail. A bare `! CMD` never fails a test but as
# its last line: bash's errexit ignores a negated command.
refute() {
	if "$@"; then
		echo "refute: this succeeded: $*" >&2
		return 1
	fi
}

# wait_for [-t SECONDS] CMD...: runs CMD every 0.05 s until it succeeds;
# after SECONDS (default 10, whole seconds) says what it waited for and
# fails. For what must have happened before a test acts (sends a signal,
# reads /proc): a fixed sleep is too short on a loaded machine.
wait_for() {
	local limit=10 end
	if [ "$1" = -t ]; then
		limit=$2
		shift 2
	fi
	end=$((${EPOCHREALTIME//[.,]/} + limit * 1000000))
	until "$@" 2>/dev/null; do
		if [ "${EPOCHREALTIME//[.,]/}" -ge "$end" ]; then
			echo "wait_for: still not so after $limit s: $*" >&2
			return 1
		fi
		sleep 0.05
	done
}

# child_runs PID COMM: a child of PID runs COMM. For perfcap record PID,
# the command it started has exec'd: its readers are settled and the
# events on (record__start releases the command last).
child_runs() {
	local c
	for c in $(pgrep -P "$1"); do
		[ "$(cat "/proc/$c/comm" 2>/dev/null)" = "$2" ] && return 0
	done
	return 1
}

# tasks_at_least PID N: PID has N threads or more.
tasks_at_least() {
	local t=(/proc/"$1"/task/*)
	[ -d "/proc/$1" ] || return 1
	[ "${#t[@]}" -ge "$2" ]
}

# holds_samples FILE N: perfcap's reader finds more than N samples in
# FILE, which a recorder may still be writing.
holds_samples() {
	local st n
	# A file being written may end in a part-written record: dump says so
	# and still counts what is before it. A dump that counts nothing
	# leaves n empty, and the test below fails.
	st=$("$P" dump --stats "$1" 2>/dev/null) || true
	n=$(stats_norm <<<"$st" | stat_of Aggregated SAMPLE)
	[ "$n" -gt "$2" ]
}

# perf_sees FILE N: perf report --stats counts more than N samples in
# FILE while perfcap still writes it (the header's data size follows what
# is on disk), so a SIGKILL now leaves them to perf.
perf_sees() {
	local n
	n=$(perf report --stats -i "$1" 2>/dev/null | stats_norm | stat_of Aggregated SAMPLE)
	[ "$n" -gt "$2" ]
}

# STALLED: a workload command for a recorder, in place of `parallel -t 1`:
# it starts the bundled workload, stops its parent (the recorder) at once
# for half a second, lets it go on and exits with the workload's status.
# Nothing drains the rings meanwhile: with small rings the kernel loses
# samples (PERF_RECORD_LOST) for certain, not only on a busy day. The stop
# comes from the workload's side: a test that watched for the workload
# from outside missed it in 2 of 15 runs on a loaded machine, its polling
# shell starved for the whole second the workload ran (2026-12-02).
STALLED=(sh -c '"$1" -t 1 & kill -STOP $PPID; sleep 0.5; kill -CONT $PPID; wait $!' stalled "$W/parallel")

# --threads with one reader for every ring: perf's CPUS/AFFINITY mask of
# all online CPUs, e.g. --threads=0-1/0-1 (perfcap-record(1), --threads).
one_reader() {
	local c
	c=$(cat /sys/devices/system/cpu/online)
	echo "--threads=$c/$c"
}

# ---- running upstream perf -------------------------------------------------

# Lines perf may print on stderr that are not a problem with the file.
# `perf report`, `perf script`, `perf report -D/--stats/--header-only` and
# `perf evlist` print nothing at all to stderr on a clean file (checked on
# perf record's own output by the "upstream perf" tests), so only blank
# lines are tolerated.
PERF_HARMLESS='^[[:space:]]*$'

# What a warning or an error looks like when perf prints it on stdout
# (--stdio report headers, script output) instead of stderr. Narrow on
# purpose: stdout also holds symbol and task names (invalidate_*, ...).
PERF_WARNING_RE='(Warning:|WARNING:|[Ff]ailed to (process|open|read|map)|out of order events|lost [0-9]+ chunks|[Uu]nknown events|data size field is 0|properly terminated|Check IO/CPU overload|non matching)'

# perf_ok ARGS...: run `perf ARGS...`; its stdout is left in $PERF_OUT.
# Fails the test if perf exits non-zero or prints anything on stderr that is
# not in PERF_HARMLESS, or a warning-looking line on stdout.
perf_ok() {
	PERF_OUT=$BATS_TEST_TMPDIR/perf.out
	local err=$BATS_TEST_TMPDIR/perf.err rc=0 bad try
	# perf 6.1 now and then aborts in its build-id code on a loaded machine
	# ("assertion failed at util/build-id.c:1010", then "stack smashing
	# detected"), on its own files too: tried three times; a file that
	# makes it abort every time still fails.
	for try in 1 2 3; do
		rc=0
		perf "$@" >"$PERF_OUT" 2>"$err" || rc=$?
		[ "$rc" = 134 ] && grep -q 'assertion failed at util/build-id.c' "$err" || break
		echo "perf $* aborted in util/build-id.c (try $try)" >&2
	done
	if [ "$rc" != 0 ]; then
		echo "perf $* exited $rc; stderr:" >&2
		sed 's/^/  /' "$err" >&2
		return 1
	fi
	bad=$(grep -vE "$PERF_HARMLESS" "$err" || true)
	if [ -n "$bad" ]; then
		echo "perf $* printed on stderr:" >&2
		printf '%s\n' "$bad" | head -20 | sed 's/^/  /' >&2
		return 1
	fi
	# -D and --header-only are dumps of the file; their text is data.
	case " $* " in
	*" -D "* | *" --header-only "* | *" --dump-raw-trace "*) return 0 ;;
	esac
	bad=$(grep -E "$PERF_WARNING_RE" "$PERF_OUT" | grep -v '^#' | head -5 || true)
	if [ -n "$bad" ]; then
		echo "perf $* printed a warning on stdout:" >&2
		printf '%s\n' "$bad" | sed 's/^/  /' >&2
		return 1
	fi
}

# perf_reads_clean FILE: perf report and perf script read FILE without a
# warning and see at least one sample.
perf_reads_clean() {
	local f=$1 n
	perf_ok report -i "$f" --stdio || return 1
	perf_ok script -i "$f" || return 1
	n=$(wc -l <"$PERF_OUT")
	if [ "$n" -lt 1 ]; then
		echo "perf script printed no sample for $f" >&2
		return 1
	fi
}

# ---- numbers from perf and from perfcap ------------------------------------

# Normalize `perf report --stats` text (also `perfcap dump --stats`, which
# prints the same layout) on stdin into "SECTION|TYPE|COUNT" lines, sorted,
# without zero counts (perf omits those, perfcap prints LOST and
# LOST_SAMPLES at 0).
stats_norm() {
	awk '
	/^Aggregated stats:/ { sec = "Aggregated"; next }
	/ stats:[[:space:]]*$/ { sec = $0; sub(/^[[:space:]]+/, "", sec); sub(/ stats:[[:space:]]*$/, "", sec); next }
	/ events:/ { if ($3 != 0) print sec "|" $1 "|" $3 }
	' | sort
}

perf_stats() { # FILE|DIR
	perf_ok report --stats -i "$1" || return 1
	stats_norm <"$PERF_OUT"
}

our_stats() { # FILE|DIR
	local st
	st=$("$P" dump --stats "$1") || return 1
	stats_norm <<<"$st"
}

# Count the records of `perf report -D` per type, as "Aggregated|TYPE|N".
# A record line starts with optional "CPU TIME " columns, then the file
# offset and the size: "0 0x1a8 [0x30]: PERF_RECORD_COMM: ...".
perf_dump_counts() { # FILE
	perf_ok report -D -i "$1" || return 1
	awk '
	match($0, /^([0-9]+ )*0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_[A-Z0-9_]+/) {
		s = substr($0, RSTART, RLENGTH); sub(/.*PERF_RECORD_/, "", s); c[s]++; t++
	}
	END { for (k in c) print "Aggregated|" k "|" c[k]; print "Aggregated|TOTAL|" t + 0 }
	' "$PERF_OUT" | sort
}

# The value of one "SECTION|TYPE|N" entry (0 when absent).
stat_of() { # SECTION TYPE < normalized stats
	awk -F'|' -v s="$1" -v t="$2" '$1 == s && $2 == t { n = $3 } END { print n + 0 }'
}

# The first entry of `perf report --sort dso,sym`: "PERCENT DSO SYMBOL".
top_entry() { # FILE [more perf report options]
	local f=$1
	shift
	perf_ok report -i "$f" --stdio --sort dso,sym "$@" || return 1
	awk '!/^#/ && NF >= 4 { sub(/%$/, "", $1); print $1, $2, $4; exit }' "$PERF_OUT"
}

# Number of samples perf sees in FILE. When perf fails or warns it prints
# no number but "perf-report-failed:FILE" and returns 1, so that neither a
# comparison with a count nor "0 = 0" between two such files passes.
perf_samples() { # FILE
	local st
	if ! st=$(perf_stats "$1"); then
		echo "perf-report-failed:$1"
		return 1
	fi
	stat_of Aggregated SAMPLE <<<"$st"
}

# The feature names `perf report --header-only` lists as missing, one a line.
missing_features() { # FILE
	perf_ok report --header-only -i "$1" || return 1
	sed -n 's/^# missing features: //p' "$PERF_OUT" | tr ' ' '\n' | grep -v '^$' | sort
}

# has_features FILE FEATURE...: perf lists none of them as missing.
has_features() {
	local f=$1 m lacking=
	shift
	m=$(missing_features "$f") || return 1
	for x in "$@"; do
		if grep -qx "$x" <<<"$m"; then lacking+=" $x"; fi
	done
	if [ -n "$lacking" ]; then
		echo "$f lacks:$lacking" >&2
		return 1
	fi
}

# ---- recording -------------------------------------------------------------

# pc_record ARGS...: perfcap record ARGS...; must exit 0. Its stderr is in
# $BATS_TEST_TMPDIR/record.err (and shown when the test fails).
pc_record() {
	local rc=0
	"$P" record "$@" >"$BATS_TEST_TMPDIR/record.out" 2>"$BATS_TEST_TMPDIR/record.err" || rc=$?
	if [ "$rc" != 0 ]; then
		echo "perfcap record $* exited $rc:" >&2
		sed 's/^/  /' "$BATS_TEST_TMPDIR/record.err" >&2
		return 1
	fi
}

# perf_record ARGS...: upstream `perf record ARGS...`, its output and
# messages in $BATS_TEST_TMPDIR/perf-record.{out,err}. perf 6.1 sometimes
# aborts in its build-id pass on a busy machine ("assertion failed at
# util/build-id.c:1010", "stack smashing detected"): tried three times, then
# the test is skipped, as perf is the oracle here, not the subject.
perf_record() {
	local try rc
	for try in 1 2 3; do
		rc=0
		perf record "$@" >"$BATS_TEST_TMPDIR/perf-record.out" 2>"$BATS_TEST_TMPDIR/perf-record.err" || rc=$?
		[ "$rc" = 0 ] && return 0
		echo "perf record $* exited $rc (try $try):" >&2
		tail -3 "$BATS_TEST_TMPDIR/perf-record.err" >&2
	done
	skip "upstream perf record failed $try times"
}

# Wait (up to $2 seconds, default 5) for a process to exit.
wait_gone() { # PID [SECONDS]
	local i
	for ((i = 0; i < ${2:-5} * 20; i++)); do
		kill -0 "$1" 2>/dev/null || return 0
		sleep 0.05
	done
	return 1
}

# Fail with a message unless A <= B * factor and B <= A * factor.
within_factor() { # A B FACTOR (e.g. 1.3)
	awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a > 0 && b > 0 && a <= b * f && b <= a * f) }' || {
		echo "$1 and $2 differ by more than a factor $3" >&2
		return 1
	}
}

# Of the samples in $PERF_OUT (perf script output, one sample per
# paragraph, leaf first; with PID, from -F pid,ip,sym: the pid on a line of
# its own first), check that more than 100 are in burn and that at least 80% of
# those unwind through work up to main or thread_main. With PID, every
# sample must belong to it.
dwarf_chains_reach_main() { # [PID]
	local burn deep others
	read -r burn deep others <<<"$(awk -v pid="${1:-}" 'BEGIN { RS = ""; FS = "\n" }
		{ split($1, f, " "); if (pid != "" && f[1] + 0 != pid) o++ }
		(pid == "" ? $1 : $2) ~ / burn$/ {
			b++
			if ($0 ~ / work\n/ && ($0 ~ / main\n/ || $0 ~ / main$/ || $0 ~ / thread_main/)) d++
		}
		END { print b + 0, d + 0, o + 0 }' "$PERF_OUT")"
	echo "burn samples: $burn, reaching work and main/thread_main: $deep, other pids: $others"
	[ "$others" = 0 ]
	[ "$burn" -gt 100 ]
	# perf record's own dwarf recording of this workload unwinds ~100%.
	[ "$deep" -ge $((burn * 8 / 10)) ]
}

# ---- a file whose write bandwidth is capped (slowfile.bats) ---------------

# mount_slowfs RATE: bench/fixtures/slowfs at $SLOW (a folder of the
# test's), over $SLOW_BACKING, its writes capped at RATE bytes a second.
# The test's teardown calls unmount_slowfs.
mount_slowfs() {
	need_root
	[ -n "${SLOWFS:-}" ] && [ -x "$SLOWFS" ] ||
		skip "no slowfs binary (make slowfs; it needs libfuse3-dev)"
	[ -c /dev/fuse ] || skip "no /dev/fuse: this kernel or container has no FUSE"
	SLOW=$BATS_TEST_TMPDIR/slow SLOW_BACKING=$BATS_TEST_TMPDIR/backing
	mkdir -p "$SLOW" "$SLOW_BACKING"
	# fuse_main's 4 is "mounting failed": this machine will not mount FUSE.
	# Any other failure (a usage error, a crash) is the fixture's: a failure.
	local rc=0
	"$SLOWFS" --backing="$SLOW_BACKING" --rate="$1" "$SLOW" 2>"$BATS_TEST_TMPDIR/slowfs.err" || rc=$?
	[ "$rc" != 4 ] || skip "cannot mount a FUSE filesystem here: $(cat "$BATS_TEST_TMPDIR/slowfs.err")"
	[ "$rc" = 0 ] || { echo "slowfs exited $rc:"; cat "$BATS_TEST_TMPDIR/slowfs.err"; return 1; }
}

unmount_slowfs() {
	[ -z "${SLOW:-}" ] || umount "$SLOW" 2>/dev/null || umount -l "$SLOW" 2>/dev/null || true
}

# slowfs_stat KEY: a counter of .slowfs-stats (bytes, writes, busy_ns, ...).
slowfs_stat() {
	awk -v k="$1" '{ for (i = 1; i < NF; i += 2) if ($i == k) print $(i + 1) }' "$SLOW/.slowfs-stats"
}

# ---- failures: disk full and I/O errors (failure.bats, threads.bats) -------

# Tests that mount a tmpfs at $MNT call this from their teardown.
unmount_mnt() {
	[ -z "${MNT:-}" ] || umount "$MNT" 2>/dev/null || true
}

# Every writer is built into perfcap, so a writer that fails is a failure;
# only a kernel that disables io_uring (kernel.io_uring_disabled) is a skip.
need_io_uring() {
	local d
	d=$(cat /proc/sys/kernel/io_uring_disabled 2>/dev/null || echo 0)
	[ "$d" = 0 ] || skip "io_uring is disabled on this kernel (kernel.io_uring_disabled=$d)"
}

# The header's data section lies inside the file, and perf reads it whole:
# no warning, the records perfcap's reader counts.
truncated_file_reads() { # FILE
	local f=$1 off size len
	perf_ok report --header-only -i "$f"
	off=$(sed -n 's/^# data offset *: //p' "$PERF_OUT")
	size=$(sed -n 's/^# data size *: //p' "$PERF_OUT")
	len=$(stat -c %s "$f")
	echo "data offset $off, size $size, file $len bytes"
	[ "$size" -gt 0 ]
	[ $((off + size)) -le "$len" ]
	perf_ok report -i "$f" --stdio
	perf_ok script -i "$f"
	[ "$(our_stats "$f")" = "$(perf_stats "$f")" ]
}

disk_full() { # perfcap record options (a writer, --threads)
	mkdir mnt
	mount -t tmpfs -o size=1M tmpfs mnt || skip "cannot mount a tmpfs"
	MNT=$PWD/mnt
	SECONDS=0
	run timeout 30 "$P" record "$@" -a -g -o mnt/f.data -- "$W/parallel" -t 10
	took=$SECONDS
	echo "exit $status after ${took}s:"
	echo "$output"
	[ "$status" = 1 ]
	# One clear message says why.
	[ "$(grep -ciE 'no space left on device|disk full' <<<"$output")" = 1 ]
	grep -qF mnt/f.data <<<"$output"
	# Recording stopped at the error; it did not wait for the 10 s workload.
	[ "$took" -lt 8 ]
	truncated_file_reads mnt/f.data
	# Most of the megabyte is samples.
	[ "$(perf_samples mnt/f.data)" -gt 2000 ]
}

eio() { # perfcap record options
	# The 12th: the readers start before the events, and a round can wake
	# one to write a few records of the command's start (136 bytes of
	# COMM and MMAP) before any sample; with the 5th, 2 of 5 runs kept no
	# sample at all, and perf report refuses such a file.
	run env PERFCAP_FAULT_INJECT=eio@12 "$P" record "$@" -a -g -o f.data -- "$W/parallel" -t 1
	echo "exit $status:"
	echo "$output"
	[ "$status" = 1 ]
	[ "$(grep -ci 'input/output error' <<<"$output")" = 1 ]
	truncated_file_reads f.data
	# The synthesized records before the failing write made it.
	[ "$(perf_stats f.data | stat_of Aggregated COMM)" -gt 0 ]
}


# ---- perfcap test (selftest.bats, install.bats) ------------------------------

# The reasons perfcap test may skip for: what a machine may lack (the right
# to record, a tracefs, upstream perf, io_uring). Any other Skip is perfcap
# deciding to skip itself, a failure.
SELFTEST_MACHINE_SKIPS='Skip \((system-wide|user-space) recording is not permitted|Skip \(no tracefs with|Skip \(upstream perf is not installed|Skip \(.* does not run on this kernel|Skip \(io_uring is disabled on this kernel'

# In perfcap test's $output: every Skip gives one of those reasons, and as
# root with perf installed, none but the io_uring one is there at all.
selftest_skips_are_the_machines() {
	local skips bad
	skips=$(grep -E ' : Skip \(' <<<"$output" || true)
	bad=$(grep -vE "$SELFTEST_MACHINE_SKIPS" <<<"$skips" || true)
	[ -z "$bad" ] || { echo "skips that are not the machine's: $bad"; return 1; }
	if [ "$(id -u)" = 0 ] && command -v perf >/dev/null; then
		bad=$(grep -vE 'io_uring is disabled' <<<"$skips" || true)
		[ -z "$bad" ] || { echo "as root with perf: $bad"; return 1; }
	fi
}

# make_cgroup: a cgroup of the test's own, on the file system perf events
# count in (cgroup2, or v1's perf_event hierarchy); CG_NAME, CG_DIR.
make_cgroup() {
	local mnt
	mnt=$(awk '$3 == "cgroup" && $4 ~ /(^|,)perf_event(,|$)/ { print $2; exit }' /proc/self/mounts)
	[ -n "$mnt" ] || mnt=$(awk '$3 == "cgroup2" { print $2; exit }' /proc/self/mounts)
	[ -n "$mnt" ] || skip "no cgroup2 or perf_event cgroup file system mounted"
	CG_NAME=perfcap-test-$$
	CG_DIR=$mnt/$CG_NAME
	mkdir "$CG_DIR" || skip "cannot make a cgroup under $mnt"
}
