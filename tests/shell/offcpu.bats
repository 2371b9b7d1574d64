#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# --off-cpu (issue 24, item 2): perf 6.1's offcpu-time samples, made by
# perfcap's BPF program, read by upstream perf and hotspot's parser. The
# workload (tests/workloads/sleeper.c) sleeps -l MS in sleep_long and -s
# MS in sleep_short and does nothing else that waits.

load helpers

setup() {
	common_setup
	NOBODY_DIR=
	BG=
}

teardown() {
	[ -z "$BG" ] || kill "$BG" 2>/dev/null || true
	[ -z "$NOBODY_DIR" ] || rm -rf "$NOBODY_DIR"
}

# offcpu_ns FILE SYMBOL: the nanoseconds of offcpu-time that perf report
# gives SYMBOL and what it calls (its Children share of the event count);
# 0 when perf does not list it.
offcpu_ns() {
	perf_ok report -i "$1" --stdio --children --sort sym -g none || return 1
	awk -v sym="$2" '
	/^# Samples: .* of event / { on = ($0 ~ /offcpu-time/) }
	on && /^# Event count/ { count = $NF }
	on && !/^#/ && $NF == sym { sub(/%$/, "", $1); ns = $1 * count / 100 }
	END { printf "%.0f\n", ns }' "$PERF_OUT"
}

# within_10pct NS MS: NS nanoseconds are MS milliseconds, give or take 10%.
within_10pct() {
	echo "measured $1 ns, slept $2 ms"
	awk -v a="$1" -v b="$2" 'BEGIN { b *= 1e6; exit !(a >= b * 0.9 && a <= b * 1.1) }'
}

@test "--off-cpu: perf report gives sleep_long and sleep_short the time each slept, within 10%" {
	need_record
	pc_record --off-cpu -o oc.data -- "$W/sleeper" -l 300 -s 100
	cat "$BATS_TEST_TMPDIR/record.err"
	grep -qE 'off-cpu: [0-9]+ offcpu-time samples' "$BATS_TEST_TMPDIR/record.err"
	long=$(offcpu_ns oc.data sleep_long)
	within_10pct "$long" 300
	short=$(offcpu_ns oc.data sleep_short)
	within_10pct "$short" 100
	# perf's attr: a software (1) bpf-output (config 0xa) event named offcpu-time.
	perf_ok evlist -v -i oc.data
	grep -E '^offcpu-time: type: 1, .*config: 0xa,' "$PERF_OUT"
	grep -E '^offcpu-time: .*sample_type: [A-Z|]*CALLCHAIN' "$PERF_OUT"
	[ "$(perf_stats oc.data | stat_of offcpu-time SAMPLE)" -ge 2 ]
}

@test "--off-cpu: perf script reads the samples with no warning: periods, user and kernel stacks" {
	need_record
	pc_record --off-cpu -o oc.data -- "$W/sleeper" -l 200 -s 100
	perf_reads_clean oc.data
	perf_ok script -i oc.data -F event,period,ip,sym
	# One paragraph per sample: "PERIOD offcpu-time:", then its frames.
	awk 'BEGIN { RS = "" } /offcpu-time:/' "$PERF_OUT" >offcpu.txt
	cat offcpu.txt
	grep -qE '^ *[0-9]{8,} +offcpu-time:' offcpu.txt
	# The user stack reaches the function that slept and main; the kernel
	# one starts where the task went to sleep, not in the BPF program.
	grep -qw sleep_long offcpu.txt
	grep -qw main offcpu.txt
	grep -qw do_nanosleep offcpu.txt
	refute grep -qE 'bpf_trace_run|bpf_prog_' offcpu.txt
}

@test "--off-cpu: the command's threads too, each under its own tid" {
	need_record
	pc_record --off-cpu -o oc.data -- "$W/sleeper" -T -l 300 -s 100
	within_10pct "$(offcpu_ns oc.data sleep_long)" 300
	perf_ok script -i oc.data -F pid,tid,event,ip,sym
	# sleep_long slept in the thread (tid != pid), sleep_short in main.
	# A sample without a call chain (cpu-clock's) has no blank line behind
	# it: the paragraph may begin with one, so the offcpu-time line is found.
	awk 'BEGIN { RS = "" } {
		n = split($0, l, "\n"); at = 0
		for (i = 1; i <= n; i++) {
			if (l[i] ~ /offcpu-time:/) { at = i; split(l[i], f, " "); split(f[1], p, "/") }
			else if (at && l[i] ~ / sleep_long$/) { print (p[1] == p[2] ? "main" : "thread"); at = 0 }
		}
	}' "$PERF_OUT" | sort -u >long
	cat long
	[ "$(cat long)" = thread ]
}

# A process that sleeps and wakes all the time: a shell waiting for its
# short sleeps, in the background for as long as the test runs.
napper() {
	(while :; do sleep 0.02; done) &
	BG=$!
}

@test "--off-cpu: only the command's sleeps are counted, not another process's" {
	need_record
	napper
	pc_record --off-cpu -o oc.data -- "$W/sleeper" -l 300 -s 100
	perf_ok script -i oc.data -F comm,pid,event
	awk '/offcpu-time:/ { print $1, $2 }' "$PERF_OUT" | sort -u >tasks
	cat tasks
	[ "$(wc -l <tasks)" = 1 ]
	grep -qE '^sleeper [0-9]+$' tasks
}

@test "--off-cpu -p PID: the sleeps of that process from the start of the recording" {
	need_record
	"$W/sleeper" -l 800 -s 300 &
	BG=$!
	# The recording starts during sleep_long: that sleep began before
	# and is not counted; sleep_short is, whole.
	wait_for grep -q nanosleep "/proc/$BG/wchan"
	pc_record --off-cpu -o oc.data -p "$BG"
	BG=
	within_10pct "$(offcpu_ns oc.data sleep_short)" 300
	[ "$(offcpu_ns oc.data sleep_long)" = 0 ]
}

@test "--off-cpu -a: every process's sleeps" {
	need_record
	napper
	pc_record --off-cpu -a -o oc.data -- "$W/sleeper" -l 300 -s 0
	perf_ok script -i oc.data -F pid,event
	grep -qE "^ *$BG +offcpu-time:" "$PERF_OUT"
	grep -qE "^ *[0-9]+ +offcpu-time:" "$PERF_OUT"
}

@test "--off-cpu: hotspot's parser reads the file, every sample in time order" {
	need_record
	need_hotspot_perfparser
	pc_record --off-cpu -o oc.data -- "$W/sleeper" -l 200 -s 100
	[ "$(perf_stats oc.data | stat_of offcpu-time SAMPLE)" -ge 2 ]
	"$HOTSPOT_PP" --print-stats --input oc.data >hs.out 2>hs.err
	cat hs.err
	strings hs.out >stats
	grep -E '^(samples|samples time violations):' stats
	[ "$(awk '/^samples:/ { print $2 }' stats)" = "$(perf_samples oc.data)" ]
	[ "$(awk '/^samples time violations:/ { print $4 }' stats)" = 0 ]
}

@test "perfcap loss of an --off-cpu file: the recording's elapsed time, not offcpu-time's dates" {
	need_record
	pc_record --off-cpu -o oc.data -- "$W/sleeper" -l 200 -s 100
	run -0 "$P" loss --json oc.data
	echo "$output"
	grep -qE '"name": "offcpu-time", "samples": [1-9]' <<<"$output"
	ns=$(sed -n 's/^ *"elapsed_time_ns": \([0-9]*\),$/\1/p' <<<"$output")
	# The sleeper runs 0.3 s; its samples are dated 2^64 - 2^32 ns and up.
	[ "$ns" -gt 250000000 ]
	[ "$ns" -lt 10000000000 ]
}

@test "--off-cpu without the privilege for BPF: one clear message, exit 1, no file" {
	need_root
	command -v setpriv >/dev/null || skip "setpriv is not installed"
	id nobody >/dev/null 2>&1 || skip "no user nobody"
	NOBODY_DIR=$(mktemp -d /tmp/perfcap-nobody.XXXXXX)
	chmod 1777 "$NOBODY_DIR"
	run setpriv --reuid=nobody --regid=nogroup --clear-groups -- \
		"$P" record --off-cpu -e cpu-clock:u -o "$NOBODY_DIR/x.data" -- "$W/sleeper" -l 10 -s 10
	echo "$output"
	[ "$status" = 1 ]
	[ "$(grep -c . <<<"$output")" = 1 ]
	grep -qF -- '--off-cpu' <<<"$output"
	grep -qF 'CAP_BPF' <<<"$output"
	[ -z "$(ls -A "$NOBODY_DIR")" ]
}
