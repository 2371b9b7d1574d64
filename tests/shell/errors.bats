#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# perfcap record's mistakes and refusals: a clear message that names the
# problem, exit status 2 for a usage error and 1 for a runtime failure, and no
# output file left behind.

load helpers

setup() {
	common_setup
	MNT=
	NOBODY_DIR=
}

teardown() {
	[ -z "$MNT" ] || umount "$MNT" 2>/dev/null || true
	[ -z "$NOBODY_DIR" ] || rm -rf "$NOBODY_DIR"
}

# fails STATUS WORD... -- ARGS...: `perfcap record -o o.data ARGS...` exits
# STATUS, its message contains every WORD (case-insensitive), and neither
# o.data nor perf.data exists afterwards.
fails() {
	local want=$1 words=() w
	shift
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	rm -f o.data perf.data
	run timeout 3 "$P" record -o o.data "$@"
	echo "perfcap record -o o.data $*: exit $status"
	echo "$output"
	[ "$status" = "$want" ]
	for w in "${words[@]}"; do
		grep -qiF -- "$w" <<<"$output" || { echo "message lacks '$w'"; return 1; }
	done
	# One clear message, not a cascade.
	[ "$(grep -c . <<<"$output")" -le 4 ]
	[ ! -e o.data ]
	[ ! -e perf.data ]
	[ ! -e o.data.old ]
}

# ---- usage errors: 2 ------------------------------------------------------

@test "unknown event: exit 2, names the event" {
	fails 2 "unknown event" "foo" -- -e foo -- true
	fails 2 "unknown event" "foo" -- -e cpu-clock,foo -- true
}

@test "unknown tracepoint: exit 2, names it" {
	need_root
	need_tracefs
	fails 2 "sched:no_such_tracepoint" "not found" -- -e sched:no_such_tracepoint -- true
}

@test "bad option values: exit 2, name the option and the value" {
	fails 2 "-F" "abc" -- -F abc -- true
	fails 2 "-m" "3X" -- -m 3X -- true
	fails 2 "-k" "foo" -- -k foo -- true
	fails 2 "--switch-output" "5x" -- --switch-output=5x -- true
	fails 2 "--user-regs" "DS" -- --user-regs=DS -- true
	fails 2 "-c" "xyz" -- -c xyz -- true
	fails 2 "--aio" "99" -- --aio=99 -- true
	fails 2 "--writer" "floppy" -- --writer=floppy -- true
}

@test "-m 3 is rounded up to 4 pages with perf's notice, and records" {
	need_root
	run -0 "$P" record -v -m 3 -o m.data -e cpu-clock -- true
	[[ "$output" == *"rounding mmap pages size to $((4 * $(getconf PAGESIZE) / 1024))K (4 pages)"* ]]
	perf report -i m.data --stats >/dev/null 2>&1
}

@test "--user-regs=?, -I? and --list-options print and record nothing, exit 0" {
	run -0 "$P" record --user-regs=? -o never.data -- true
	[ "$output" = "available registers: $(perf record --user-regs=? 2>&1 | sed -n 's/^available registers: //p' | sed 's/ *$//')" ]
	run -0 "$P" record -I?
	[[ "$output" == "available registers: AX "* ]]
	run -0 "$P" record --list-options
	[[ "$output" == *$'\n--compression-level=\n-z\n'* ]]
	# every perf record option that perfcap has is spelled as perf spells it
	for o in $(echo "$output" | grep -- '^--' | tr -d =); do
		case $o in --writer|--status|--reader-sched|--user-buffer-size|--unwind|--list-options|--list-opts|--help) continue ;; esac
		perf record -h 2>&1 | grep -qe "$o\b" || { echo "perf has no $o"; false; }
	done
	[ ! -e never.data ]
}

@test "--dry-run checks the options and records nothing" {
	run -0 "$P" record --dry-run -o dry.data -e cpu-clock -- true
	[ ! -e dry.data ]
	run -2 "$P" record --dry-run -c 1 -F 1 -- true
}

@test "--dry-run refuses what a recording would: events, PMUs and their terms as perf 6.1 does; pids and CPUs too" {
	# perf 6.1's --dry-run refuses an unknown event or PMU (it exits 129).
	if command -v perf >/dev/null; then
		run -129 perf record --dry-run -e foo -- true
		run -129 perf record --dry-run -e nopmu/config=1/ -- true
	fi
	run -2 "$P" record --dry-run -o dry.data -e foo -- true
	grep -qF "unknown event 'foo'" <<<"$output"
	run -2 "$P" record --dry-run -o dry.data -e nopmu/config=1/ -- true
	grep -qF "no PMU 'nopmu'" <<<"$output"
	run -2 "$P" record --dry-run -o dry.data -e software/bogus=1/ -- true
	grep -qF "unknown term 'bogus'" <<<"$output"
	run -2 "$P" record --dry-run -o dry.data -C 99 -e cpu-clock -- true
	grep -qF "CPU 99 is not online" <<<"$output"
	run -1 "$P" record --dry-run -o dry.data -p 999999 -e cpu-clock
	grep -qF "pid 999999 does not exist" <<<"$output"
	run -1 "$P" record --dry-run -o dry.data -t 999999 -e cpu-clock
	grep -qF "tid 999999 does not exist" <<<"$output"
	run -0 "$P" record --dry-run -o dry.data -C 0 -e cpu-clock -e software/config=0,period=1000/ -- true
	[ ! -e dry.data ]
}

@test "unknown option: exit 2, names it" {
	fails 2 "--bogus" -- --bogus -- true
}

@test "CPU out of range: exit 2, names the CPU and the online ones" {
	fails 2 "CPU 99" "online" -- -C 99 -- true
}

@test "no target at all: the whole system until SIGINT, as perf record" {
	need_root
	rm -f o.data
	# timeout forwards the SIGINT, and ends it should the test fail first.
	timeout 60 "$P" record -q -o o.data -e cpu-clock &
	pid=$!
	wait_for holds_samples o.data 1000
	kill -INT $pid
	rc=0; wait $pid || rc=$?
	pids=$(perf script -i o.data -F pid 2>/dev/null | sort -u | wc -l)
	cpus=$(perf script -i o.data -F cpu 2>/dev/null | sort -u | wc -l)
	echo "exit $rc; samples from $pids tasks, on $cpus CPUs of $(nproc)"
	[ "$rc" = 0 ]
	# System-wide: samples from more than one task, on every CPU.
	[ "$pids" -gt 1 ]
	[ "$cpus" = "$(nproc)" ]
}

@test "conflicting targets: -p with -t is a usage error" {
	fails 2 "-p" "-t" -- -p $$ -t $$
}

# ---- runtime failures: 1 ----------------------------------------------------

@test "command not found: exit 1, names the command" {
	need_root
	fails 1 "not found" "no-such-command-perfcap" -- -e cpu-clock -- no-such-command-perfcap
	fails 1 "/nonexistent/cmd" -- -e cpu-clock -- /nonexistent/cmd
}

@test "pid that does not exist: exit 1, names the pid" {
	need_root
	fails 1 "999999" "does not exist" -- -e cpu-clock -p 999999
	fails 1 "999999" -- -e cpu-clock -t 999999
}

@test "a low soft fd limit is raised to the hard limit, as perf does" {
	need_root
	# 6 events x every CPU, plus what the process already has open.
	run bash -c "ulimit -S -n \$(( 6 * $(nproc) + 2 )); '$P' record -q -a -o fd.data \
		-e cpu-clock,cs,faults,task-clock,migrations,minor-faults -- true"
	echo "$output"
	[ "$status" = 0 ]
	perf_ok report --header-only -i fd.data
	grep -q "name = minor-faults" "$PERF_OUT"
}

@test "-o naming a directory: exit 2, and the directory is neither moved nor touched" {
	mkdir -p outdir/keep
	run "$P" record -e cpu-clock -o outdir -- true
	echo "$output"
	[ "$status" = 2 ]
	grep -qi "is a directory" <<<"$output"
	[ -d outdir/keep ]
	[ ! -e outdir.old ]
}

@test "output directory missing or read-only: exit 1, names the file and the reason" {
	need_root
	rm -f x.data
	run "$P" record -e cpu-clock -o /nonexistent/dir/x.data -- true
	echo "$output"
	[ "$status" = 1 ]
	grep -qF /nonexistent/dir/x.data <<<"$output"
	grep -qi "no such file or directory" <<<"$output"
	[ ! -e /nonexistent ]

	mkdir ro
	mount -t tmpfs -o ro,size=1M tmpfs ro || skip "cannot mount a read-only tmpfs"
	MNT=$PWD/ro
	run "$P" record -e cpu-clock -o ro/x.data -- true
	echo "$output"
	[ "$status" = 1 ]
	grep -qF ro/x.data <<<"$output"
	grep -qi "read-only file system" <<<"$output"
	[ -z "$(ls -A ro)" ]
}

@test "hardware event without a PMU: exit 1, says not supported" {
	need_root
	if perf stat -e cycles -x, true 2>&1 | grep -qE '^[0-9]+,'; then
		skip "this machine has a hardware PMU: cycles is supported"
	fi
	# cycles falls back to cpu-clock as perf's does (events.bats checks it)
	fails 1 "instructions" "not supported" -- -e instructions -- true
	fails 1 "instructions" "not supported" -- -e instructions:u -- true
}

# ---- privileges ---------------------------------------------------------------

nobody_dir() {
	need_root
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	# A directory nobody may write into, on a path nobody may walk.
	NOBODY_DIR=$(mktemp -d /tmp/perfcap-nobody.XXXXXX)
	chmod 1777 "$NOBODY_DIR"
}

as_nobody() {
	setpriv --reuid=nobody --regid=nogroup --clear-groups -- "$@"
}

@test "no permission (unprivileged, perf_event_paranoid >= 2, -a): exit 1, names perf_event_paranoid" {
	nobody_dir
	paranoid=$(cat /proc/sys/kernel/perf_event_paranoid)
	[ "$paranoid" -ge 2 ] || skip "perf_event_paranoid is $paranoid: -a is allowed to everyone"
	run as_nobody "$P" record -a -o "$NOBODY_DIR/x.data" -- true
	echo "$output"
	[ "$status" = 1 ]
	grep -qF perf_event_paranoid <<<"$output"
	grep -qi "permission" <<<"$output"
	[ -z "$(ls -A "$NOBODY_DIR")" ]
}

@test "unprivileged user-space recording of one's own command works, as with perf record" {
	nobody_dir
	# perf_event_paranoid 2 allows user-space-only events on one's own
	# processes: upstream perf records this as nobody.
	run as_nobody "$P" record -e cpu-clock:u -o "$NOBODY_DIR/u.data" -- "$W/parallel" -j 1 -t 0.3
	echo "$output"
	[ "$status" = 0 ]
	need_perf
	# -f: the file is nobody's.
	n=$(perf report -f --stats -i "$NOBODY_DIR/u.data" 2>/dev/null | stat_of_sample)
	[ "$n" -gt 100 ]
}

@test "unprivileged: reader threads at normal priority, with one notice that says why (none with -q)" {
	nobody_dir
	run as_nobody "$P" record -e cpu-clock:u -o "$NOBODY_DIR/n.data" -- "$W/parallel" -j 1 -t 0.3
	echo "$output"
	[ "$status" = 0 ]
	[ "$(grep -c 'SCHED_FIFO 1 was refused' <<<"$output")" = 1 ]
	grep -qF 'RLIMIT_RTPRIO' <<<"$output"
	run as_nobody "$P" record -q -e cpu-clock:u -o "$NOBODY_DIR/q.data" -- "$W/parallel" -j 1 -t 0.3
	echo "$output"
	[ "$status" = 0 ]
	# The command's own line is all there is.
	refute grep -v '^parallel: ' <<<"$output"
}

stat_of_sample() { stats_norm | stat_of Aggregated SAMPLE; }

# ---- the command line itself ----------------------------------------------------

@test "perfcap record --help exits 0 and lists the options" {
	run -0 "$P" record --help
	grep -qE '^ +-e, --event' <<<"$output"
	grep -qE -- '--aio\[=<n>\]' <<<"$output"
	grep -qE -- '--writer' <<<"$output"
	grep -qE -- '-p, --pid' <<<"$output"
	grep -qi 'exit status' <<<"$output"
	run -0 "$P" dump --help
	grep -qE -- '--stats' <<<"$output"
	run -0 "$P" loss --help
	grep -qE -- '--json' <<<"$output"
	[ ! -e perf.data ]
}

@test "perfcap with an unknown command or none exits 2 with the usage" {
	run -2 "$P" frobnicate
	grep -qF frobnicate <<<"$output"
	grep -qF 'usage: perfcap' <<<"$output"
	run -2 "$P"
	grep -qF 'usage: perfcap' <<<"$output"
}

# ---- hostile and odd inputs to perfcap loss and dump (issue 13) -----------------

CORPUS=$BATS_TEST_DIRNAME/../fuzz/corpus

# reader_fails WORD... -- ARGS...: `perfcap loss ARGS` and `perfcap dump ARGS`
# both exit 1 within 10 s, and each message holds every WORD.
reader_fails() {
	local words=() w cmd
	while [ "$1" != -- ]; do words+=("$1"); shift; done
	shift
	for cmd in loss dump; do
		run timeout 10 "$P" "$cmd" "$@"
		echo "perfcap $cmd $*: exit $status"
		echo "$output" | tail -n 5
		[ "$status" = 1 ]
		for w in "${words[@]}"; do
			grep -qiF -- "$w" <<<"$output" || { echo "message lacks '$w'"; return 1; }
		done
	done
}

# A 1 MiB file built to make an unbounded reader allocate gigabytes, spin,
# or walk far: refused with the offset of the problem. (Time and memory are
# measured in the issue's report, not asserted here.)
@test "a 1 MiB hostile file: loss and dump exit 1 and name the offset" {
	command -v python3 >/dev/null || skip "python3 is not installed"
	H=$BATS_TEST_DIRNAME/../fuzz/hostile.py
	python3 "$H" ids-overlap ids.data
	[ "$(stat -c %s ids.data)" -gt 1000000 ]
	reader_fails "ids of attr 1 at offset 0" "more than the file holds" -- ids.data
	python3 "$H" zstd-bomb bomb.data
	reader_fails "COMPRESSED record at offset 0xf8" "inflates to more than" -- bomb.data
	python3 "$H" bad-size bad.data
	reader_fails "record of size 12 at offset 0xfffe0" -- bad.data
	python3 "$H" tiny-record tiny.data
	reader_fails "record of size 4 at offset 0xffff0" -- tiny.data
}

@test "loss and dump refuse a FIFO without blocking on it" {
	mkfifo fifo
	reader_fails "fifo" "a FIFO" "refused" -- fifo
}

@test "loss and dump refuse a device and a directory without perf's layout" {
	# A device node of our own: tests elsewhere may leave /dev/null a file.
	if [ "$(id -u)" = 0 ] && mknod null c 1 3 2>/dev/null; then dev=null; else dev=/dev/zero; fi
	reader_fails "$dev" "character device" -- "$dev"
	mkdir empty
	reader_fails "empty" "without perf's layout" -- empty
	mkdir -p odd/data
	reader_fails "odd" "without perf's layout" -- odd
}

@test "a --threads directory whose data.N is a FIFO is refused, not waited on" {
	mkdir dir
	cp "$CORPUS/perf-threads-data" dir/data
	cp "$CORPUS/perf-threads-data.0" dir/data.0
	run -0 timeout 10 "$P" dump --stats dir
	mkfifo dir/data.1
	reader_fails "dir/data.1" "a FIFO" -- dir
}

@test "'-' is standard input: a file there is read, and so is a pipe (kept in a temporary file)" {
	run -0 timeout 10 "$P" dump --stats - <"$CORPUS/perf-default.data"
	grep -qE 'SAMPLE events: +[1-9]' <<<"$output"
	file_stats=$output
	run -0 timeout 10 "$P" loss --json - <"$CORPUS/perf-default.data"
	grep -qF '"samples":' <<<"$output"
	# A pipe (pipe.bats has the pipe format): the same file through cat reads the same.
	run -0 timeout 10 bash -c 'cat "$1" | "$2" dump --stats -' _ "$CORPUS/perf-default.data" "$P"
	[ "$output" = "$file_stats" ]
	run -0 timeout 10 bash -c 'cat "$1" | "$2" loss -' _ "$CORPUS/perf-default.data" "$P"
	# What is not perf data is refused as from a file.
	run -1 timeout 10 bash -c 'echo not perf data, but longer than a header | "$1" dump -' _ "$P"
	grep -qF 'standard input: not a perf.data file' <<<"$output"
}

@test "-o /dev/null records into it and leaves it a device; only a regular file becomes PATH.old" {
	dev=$BATS_TEST_TMPDIR/null
	mknod "$dev" c 1 3 || skip "cannot make a device node here"
	pc_record -a -e cpu-clock -o "$dev" -- sleep 0.1
	[ -c "$dev" ]
	[ ! -e "$dev.old" ]
	# An empty regular file is written over, as perf does; one with data is kept.
	: >empty.data
	pc_record -a -e cpu-clock -o empty.data -- sleep 0.1
	[ ! -e empty.data.old ]
	pc_record -a -e cpu-clock -o empty.data -- sleep 0.1
	[ -s empty.data.old ]
}

@test "an earlier file whose PATH.old would not fit in a path is an error, not a shortened rename" {
	p=$BATS_TEST_TMPDIR/l
	for i in $(seq 1 16); do p=$p/$(printf 'd%.0s' $(seq 1 250)); done
	mkdir -p "$p" || skip "cannot make a 4 KiB path here"
	f=$p/$(printf 'f%.0s' $(seq 1 $((4093 - ${#p} - 1))))
	echo earlier >"$f"
	run "$P" record -q -a -e cpu-clock -o "$f" -- true
	[ "$status" = 1 ]
	grep -q 'the name is too long' <<<"$output"
	[ "$(cat "$f")" = earlier ]
	[ -z "$(ls "$p" | grep -v '^f*$')" ]
	rm -rf "$BATS_TEST_TMPDIR/l"
}
