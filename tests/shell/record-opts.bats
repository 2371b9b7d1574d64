#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The rest of perf 6.1's record options (issue 23, item 1), end to end:
# what each does to the recording, checked with upstream perf, and perf's
# own recording of the same command where perf can be the oracle. The
# attrs of each are compared with perf's in parity.bats (item 6).

load helpers

setup() {
	common_setup
	need_record
}

teardown() {
	local p
	for p in ${BUSY_PIDS:-}; do
		kill "$p" 2>/dev/null
		wait "$p" 2>/dev/null
	done
	[ -n "${CG_DIR:-}" ] && rmdir "$CG_DIR" 2>/dev/null
	return 0
}

# runs_parallel PID: PID has exec'd the busy workload.
runs_parallel() {
	[ "$(cat "/proc/$1/comm" 2>/dev/null)" = parallel ]
}

# busy [CMD PREFIX...]: a CPU-bound process for 20 s, its pid in BUSY.
busy() {
	"$@" "$W/parallel" -j 1 -t 20 >/dev/null &
	BUSY=$!
	BUSY_PIDS+=" $BUSY"
	wait_for runs_parallel "$BUSY"
}

# pids_sampled FILE: the pids of FILE's samples, one a line, sorted.
# A perf script that fails, or a file with no sample, fails the caller's
# assignment: a refute over its output could not fail otherwise.
pids_sampled() {
	local out
	out=$(perf script -i "$1" -F pid 2>/dev/null) || { echo "perf script -i $1 failed" >&2; return 1; }
	[ -n "$out" ] || { echo "no sample in $1" >&2; return 1; }
	awk '{print $1}' <<<"$out" | sort -un
}

# ---- perf record --list-opts, less perfcap's -------------------------------

# The man page's "Differences from perf record" section, as plain text.
differences() {
	awk '/^\.SS Differences from perf record/ { on = 1; next }
	     on && /^\.S[HS] / { exit }
	     on' "$BATS_TEST_DIRNAME/../../doc/perfcap-record.1"
}

@test "every option of perf record --list-opts is perfcap's, or the man page's Differences section says why not" {
	local perf_opts ours left o reason
	perf_opts=$(perf record --list-opts 2>&1 | tr ' ' '\n' | grep '^--' | sort -u)
	ours=$("$P" record --list-options)
	ours=$(grep '^--' <<<"$ours" | sed 's/=$//' | sort -u)
	[ "$(wc -l <<<"$perf_opts")" -ge 80 ]
	left=$(comm -23 <(echo "$perf_opts") <(echo "$ours"))
	echo "perf's options perfcap does not take: ${left//$'\n'/ }"
	for o in $left; do
		# A row of its own: .B \-\-name on a line, the reason on the next.
		reason=$(differences | awk -v o="${o//-/\\\\-}" '
			found { print; exit }
			$0 == ".B " o || index($0, ".BR " o " ") == 1 { found = 1 }')
		echo "$o: ${reason:-(no row)}"
		[ -n "$reason" ]
		[[ $reason != .* ]]
	done
}

@test "the README says perfcap lacks none of perf record --list-opts, and that holds" {
	local perf_opts ours left readme
	readme="$BATS_TEST_DIRNAME/../../README.md"
	perf_opts=$(perf record --list-opts 2>&1 | tr ' ' '\n' | grep '^--' | sort -u)
	ours=$("$P" record --list-options)
	ours=$(grep '^--' <<<"$ours" | sed 's/=$//' | sort -u)
	left=$(comm -23 <(echo "$perf_opts") <(echo "$ours"))
	echo "perf's options perfcap does not take: ${left:-none}"
	[ -z "$left" ]
	# The sentence that says so, with the count of perf's list it names.
	tr '\n' ' ' <"$readme" | grep -Eq "every one of the $(wc -l <<<"$perf_opts") in perf 6\.1's .perf record --list-opts. among them \(perfcap lacks none"
	# And no sentence left that names options as ones perfcap lacks.
	refute grep -n -- '--list-opts` it lacks' "$readme"
}

@test "the Differences section names no option perfcap takes as one it lacks" {
	local ours o rows
	ours=$("$P" record --list-options)
	ours=$(sed 's/=$//' <<<"$ours")
	# The rows between the section's two markers: ".B \-\-name".
	rows=$(differences | awk '/^\.\\" options perfcap does not take/ { on = 1; next }
				  on && /^\.\\" end/ { exit }
				  on && /^\.B / { gsub(/\\/, "", $2); print $2 }')
	echo "rows: ${rows//$'\n'/ }"
	# The list may be empty (every perf option is taken), but its markers are there.
	differences | grep -qxF '.\" options perfcap does not take'
	differences | grep -qxF '.\" end'
	for o in $rows; do
		refute grep -qx -- "$o" <<<"$ours"
	done
}

# ---- targets -----------------------------------------------------------------

@test "--per-thread: a ring for each thread of -p, no CPU; perf reads each thread's samples" {
	local n
	"$W/parallel" -j 3 -t 20 >/dev/null &
	BUSY=$!
	BUSY_PIDS+=" $BUSY"
	wait_for tasks_at_least "$BUSY" 3
	n=$(ls "/proc/$BUSY/task" | wc -l)
	"$P" record -v --per-thread -e cpu-clock -p "$BUSY" -o t.data -- sleep 0.5 2>err
	cat err
	grep -q "one reader thread for the $n per-thread rings" err
	perf_ok report --stdio -i t.data --sort pid
	grep -q "$BUSY:parallel" "$PERF_OUT"
	# Samples of at least two threads, none of them on an inherited event.
	[ "$(perf script -i t.data -F tid | sort -u | wc -l)" -ge 2 ]
	perf_ok evlist -v -i t.data
	refute grep -q 'inherit: 1' "$PERF_OUT"
}

@test "-u USER records that user's processes and no other, as perf -u does" {
	command -v setpriv >/dev/null || skip "needs setpriv (util-linux)"
	busy setpriv --reuid=nobody --regid=nogroup --clear-groups
	local theirs=$BUSY
	busy
	local ours=$BUSY
	"$P" record -q -u nobody -e cpu-clock -o u.data -- sleep 0.5
	perf record -q -u nobody -e cpu-clock -o p.data -B -- sleep 0.5 2>/dev/null
	perf_ok report --stdio -i u.data
	echo "perfcap: $(pids_sampled u.data | tr '\n' ' ') perf: $(pids_sampled p.data | tr '\n' ' ')"
	pids_sampled u.data | grep -qx "$theirs"
	pids=$(pids_sampled u.data)
	refute grep -qx "$ours" <<<"$pids"
	# perf's recording of the same: the same user's process, not root's.
	pids_sampled p.data | grep -qx "$theirs"
	pids=$(pids_sampled p.data)
	refute grep -qx "$ours" <<<"$pids"
	run "$P" record -u no-such-user-here -e cpu-clock -o x.data -- true
	[ "$status" = 2 ]
	[[ $output == *"Invalid User: no-such-user-here"* ]]
}

# busy_in_cgroup: a busy process started inside CG_DIR.
busy_in_cgroup() {
	sh -c 'echo $$ > "$1/cgroup.procs" && exec "$2/parallel" -j 1 -t 20' sh "$CG_DIR" "$W" >/dev/null &
	BUSY=$!
	BUSY_PIDS+=" $BUSY"
	wait_for runs_parallel "$BUSY"
	grep -qx "$BUSY" "$CG_DIR/cgroup.procs"
}

@test "-G CGROUP with -a: only what runs in the cgroup the test made is sampled, as perf -G" {
	make_cgroup
	busy_in_cgroup
	local inside=$BUSY
	busy
	local outside=$BUSY
	"$P" record -q -a -e cpu-clock -G "$CG_NAME" -o g.data -- sleep 0.5
	perf record -q -a -e cpu-clock -G "$CG_NAME" -o p.data -B -- sleep 0.5 2>/dev/null
	perf_ok report --stdio -i g.data
	echo "perfcap: $(pids_sampled g.data | tr '\n' ' ') perf: $(pids_sampled p.data | tr '\n' ' ')"
	[ "$(pids_sampled g.data)" = "$inside" ]
	[ "$(pids_sampled p.data)" = "$inside" ]
	pids=$(pids_sampled g.data)
	refute grep -qx "$outside" <<<"$pids"
	# perf's rules: events first, -a, and a name for each event at most.
	run "$P" record -e cpu-clock -G "$CG_NAME" -o x.data -- true
	[ "$status" = 2 ]
	[[ $output == *"only available in system-wide mode"* ]]
	run "$P" record -a -e cpu-clock -G "$CG_NAME,$CG_NAME" -o x.data -- true
	[ "$status" = 2 ]
	run "$P" record -a -e cpu-clock -G no-such-cgroup-$$ -o x.data -- true
	[ "$status" = 2 ]
	[[ $output == *"no access to cgroup"* ]]
}

@test "--all-cgroups: samples carry their cgroup, and perf report --sort cgroup names the one the test made" {
	make_cgroup
	busy_in_cgroup
	"$P" record -q -a --all-cgroups -e cpu-clock -o c.data -- sleep 0.5
	perf_ok report --stdio -i c.data --sort cgroup
	cat "$PERF_OUT"
	grep -q "/$CG_NAME\$" "$PERF_OUT"
	# The cgroup existed before the recording: only perfcap's CGROUP record names it.
	perf script -i c.data --show-cgroup-events 2>/dev/null | grep -q "PERF_RECORD_CGROUP.*/$CG_NAME"
	refute grep -qi unknown "$PERF_OUT"
}

@test "--affinity=node reads the rings within their NUMA node, --affinity=cpu each on its CPU: --threads' layouts" {
	local nodes cpus
	nodes=$(ls -d /sys/devices/system/node/node[0-9]* 2>/dev/null | wc -l)
	[ "$nodes" -ge 1 ] || skip "no NUMA nodes in sysfs"
	cpus=$(nproc)
	"$P" record -v -a --affinity=node -e cpu-clock -o n.data -- sleep 0.1 2>err
	grep -q "as --affinity=node asks" err
	grep -q "\[ perfcap record: $nodes reader threads (--threads=numa)" err
	"$P" record -v -a --affinity=cpu -e cpu-clock -o c.data -- sleep 0.1 2>err
	grep -q "\[ perfcap record: $cpus reader threads (--threads=cpu)" err
	perf_ok report --stdio -i n.data
	perf_ok report --stdio -i c.data
}

# ---- records ------------------------------------------------------------------

@test "--namespaces: the command's NAMESPACES record holds its namespaces' inodes" {
	local net
	net=$(stat -L -c '%d/%i' /proc/self/ns/net)
	"$P" record -q --namespaces -e cpu-clock -o n.data -- true
	perf_ok script -i n.data --show-namespace-events
	grep -q PERF_RECORD_NAMESPACES "$PERF_OUT"
	# perf report -D prints each namespace: "0/net: DEV/0xINODE".
	perf_ok report -D -i n.data
	grep -A1 PERF_RECORD_NAMESPACES "$PERF_OUT"
	grep -A1 PERF_RECORD_NAMESPACES "$PERF_OUT" | grep -q "0/net: ${net%/*}/$(printf '%#x' "${net#*/}"),"
	"$P" record -q -e cpu-clock -o plain.data -- true
	perf_ok script -i plain.data --show-namespace-events
	refute grep -q PERF_RECORD_NAMESPACES "$PERF_OUT"
}

@test "--exclude-perf: the tracepoint leaves out every thread of the recorder" {
	need_tracefs
	"$P" record -q -a -e raw_syscalls:sys_enter --exclude-perf -o x.data -- sleep 0.3 &
	local ex=$!
	wait "$ex"
	"$P" record -q -a -e raw_syscalls:sys_enter -o y.data -- sleep 0.3 &
	local plain=$!
	wait "$plain"
	perf_ok report --stdio -i x.data
	pids_sampled y.data | grep -qx "$plain"
	pids=$(pids_sampled x.data)
	refute grep -qx "$ex" <<<"$pids"
	# The user's --filter stays, ANDed with it.
	"$P" record -q -a -e raw_syscalls:sys_enter --filter 'id == 0' --exclude-perf -o f.data -- sleep 0.3
	perf_ok script -i f.data
	# sleep's loader reads (id 0) its libraries: the filter has samples to keep.
	n=$(grep -c 'raw_syscalls:sys_enter: NR 0 ' "$PERF_OUT" || true)
	bad=$(grep -vc 'raw_syscalls:sys_enter: NR 0 ' "$PERF_OUT" || true)
	echo "--filter 'id == 0' --exclude-perf: $n samples of read, $bad of other syscalls"
	[ "$n" -gt 0 ]
	[ "$bad" = 0 ]
	run "$P" record -e cpu-clock --exclude-perf -o z.data -- true
	[ "$status" = 2 ]
	[[ $output == *"should follow a -e tracepoint option"* ]]
}

# first_records FILE: perfcap dump's record lines, less FINISHED_ROUND.
# perfcap dump's failure, or a file with no record, fails the caller.
record_lines() {
	local out
	out=$("$P" dump "$1") || { echo "perfcap dump $1 failed" >&2; return 1; }
	grep '^0x' <<<"$out" | grep -v FINISHED_ROUND
}

@test "--tail-synthesize: the tasks and maps are written at the end, as perf's option moves them" {
	"$P" record -q -a --tail-synthesize -e cpu-clock -o t.data -- sleep 0.3
	"$P" record -q -a -e cpu-clock -o h.data -- sleep 0.3
	perf_ok report --stdio -i t.data
	# Synthesized records carry time 0: first in the plain file, last with the option.
	record_lines h.data | head -3 | grep -q 'time 0 '
	lines=$(record_lines t.data)
	refute grep -q 'time 0 ' <<<"$(head -3 <<<"$lines")"
	record_lines t.data | tail -1 | grep -q 'COMM.*time 0 \|MMAP2.*time 0 '
	[ "$(record_lines t.data | grep -c 'COMM.*time 0 ')" -gt 10 ]
}

@test "--synth=no: nothing read from /proc but the kernel's maps; task keeps FORK and COMM without maps" {
	"$P" record -q -a --synth=no -e cpu-clock -o n.data -- sleep 0.2
	"$P" record -q -a --synth=task -e cpu-clock -o t.data -- sleep 0.2
	perf_ok report --stdio -i n.data
	lines=$(record_lines n.data)
	refute grep -q 'COMM.*time 0 \|FORK.*time 0 ' <<<"$lines"
	# The maps at time 0 are the kernel's and its modules' only (pid -1).
	perf_ok script -i n.data --show-mmap-events
	grep -q ' 0.000000: PERF_RECORD_MMAP2 -1/0: .*kernel.kallsyms' "$PERF_OUT"
	refute grep -q ' 0.000000: PERF_RECORD_MMAP2 [0-9]' "$PERF_OUT"
	record_lines t.data | grep -q 'COMM.*time 0 '
	perf_ok script -i t.data --show-mmap-events
	refute grep -q ' 0.000000: PERF_RECORD_MMAP2 [0-9]' "$PERF_OUT"
	# Without --synth the user maps are there: what the checks above would miss.
	"$P" record -q -a -e cpu-clock -o a.data -- sleep 0.2
	perf_ok script -i a.data --show-mmap-events
	grep -q ' 0.000000: PERF_RECORD_MMAP2 [0-9]' "$PERF_OUT"
}

@test "--proc-map-timeout 0 cuts every process's maps short, and perf report says so as for perf's" {
	"$P" record -a --proc-map-timeout 0 -e cpu-clock -o m.data -- sleep 0.2 2>err
	grep -q 'proc-map-timeout' err
	perf report --stdio -i m.data >rep 2>&1
	grep -q 'map information files for pre-existing threads were' rep
	# With perf's 500 ms nothing here takes that long.
	"$P" record -q -a -e cpu-clock -o d.data -- sleep 0.2
	perf_ok report --stdio -i d.data
}

@test "--switch-output-event: a new file at the command's execs, as perf switches at them" {
	need_tracefs
	local cmd='sleep 0.2; /bin/true; sleep 0.2'
	"$P" record -q -e cpu-clock --switch-output-event sched:sched_process_exec -o s.data -- sh -c "$cmd"
	perf record -q -e cpu-clock --switch-output-event sched:sched_process_exec -o p.data -B -- sh -c "$cmd" 2>/dev/null
	local ours theirs f
	ours=$(ls s.data.* | wc -l)
	theirs=$(ls p.data.* | wc -l)
	echo "perfcap wrote $ours files, perf $theirs"
	# sh and sleep exec at once, 0.2 s later true and sleep: two or more
	# switches, four at most, each with its file and one after the last
	# (two execs a millisecond apart may come as one SIGUSR2, as in perf,
	# whose count varies from 4 to 7 here for the same command).
	[ "$ours" -ge 3 ]
	[ "$ours" -le 5 ]
	[ "$theirs" -ge 3 ]
	# Each reads clean (a file between two close execs may hold no sample).
	for f in s.data.*; do
		perf_ok report --stats -i "$f"
	done
	# An event it does not know is refused, --dry-run too, as perf refuses it.
	run "$P" record --dry-run --switch-output-event no-such-event -e cpu-clock -- true
	[ "$status" = 2 ]
	[[ $output == *"unknown event 'no-such-event'"* ]]
	run perf record --switch-output-event no-such-event -e cpu-clock -o q.data -- true
	[ "$status" != 0 ]
}

@test "--transaction samples PERF_SAMPLE_TRANSACTION on the events, as perf's file (perf evlist -v does not print the bit)" {
	"$P" record -q --transaction -e cpu-clock,task-clock -o t.data -- true
	perf record -q --transaction -e cpu-clock,task-clock -o p.data -B -- true 2>/dev/null
	run -0 "$P" dump p.data
	[ "$(grep -c '^# event [0-9]:.*TRANSACTION' <<<"$output")" = 2 ]
	run -0 "$P" dump t.data
	echo "$output" | grep '^# event'
	[ "$(grep -c '^# event [0-9]:.*TRANSACTION' <<<"$output")" = 2 ]
	perf_ok report --stdio -i t.data
	"$P" record -q -e cpu-clock -o n.data -- true
	run -0 "$P" dump n.data
	refute grep -q TRANSACTION <<<"$output"
}

@test "--timestamp-boundary: the header holds the first and last sample times (perfcap always writes them)" {
	"$P" record -q --timestamp-boundary -e cpu-clock -o t.data -- "$W/parallel" -t 0.3
	perf_ok report --header-only -i t.data
	local first last
	first=$(sed -n 's/^# time of first sample : //p' "$PERF_OUT")
	last=$(sed -n 's/^# time of last sample : //p' "$PERF_OUT")
	echo "first $first last $last"
	# The samples' own first and last times, as perf script prints them.
	perf_ok script -i t.data -F time
	[ "$first" = "$(head -1 "$PERF_OUT" | tr -d ' :')" ]
	[ "$last" = "$(tail -1 "$PERF_OUT" | tr -d ' :')" ]
	[ "$first" != "$last" ]
}

# ---- refusals as perf's ----------------------------------------------------------

@test "--vmlinux of no file, --kcore without /proc/kcore, --call-graph lbr without LBR: refused as perf refuses them" {
	run "$P" record --vmlinux /no/such/vmlinux -e cpu-clock -o x.data -- true
	[ "$status" = 2 ]
	[[ $output == *"Invalid file: /no/such/vmlinux"* ]]
	run perf record --vmlinux /no/such/vmlinux -e cpu-clock -o p.data -- true
	[ "$status" != 0 ]
	if [ -r /proc/kcore ]; then
		run "$P" record --kcore -e cpu-clock -o x.data -- true
		[ "$status" = 2 ]
		[[ $output == *"not implemented"* ]]
	else
		run "$P" record --kcore -e cpu-clock -o x.data -- true
		[ "$status" = 1 ]
		[[ $output == *"kcore is not readable"* ]]
		run perf record --kcore -e cpu-clock -o p.data -- true
		[ "$status" != 0 ]
		[[ $output == *"kcore is not readable"* ]]
	fi
	[ -e /sys/bus/event_source/devices/cpu/caps/branches ] && skip "this PMU has branch stacks"
	run "$P" record --call-graph lbr -e cpu-clock -o x.data -- true
	[ "$status" = 1 ]
	[[ $output == *"cannot sample branch stacks"* ]]
	run perf record --call-graph lbr -e cpu-clock -o p.data -- true
	[ "$status" != 0 ]
	[[ $output == *"doesn't support branch stack sampling"* ]]
	[ ! -e x.data ]
}
