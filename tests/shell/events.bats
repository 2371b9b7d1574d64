#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# perf 6.1's event syntax (issue 12, item 1): PMU terms, modifiers, groups,
# tracepoint globs and --filter, the cycles fallback. Upstream perf is the
# oracle: perf evlist / report / script read perfcap's files, and where
# perf can record the same -e here, both files must say the same.

load helpers

setup() {
	common_setup
}

# The fields an event's syntax decides, from one `perf evlist -v` line:
# "name|config|period|exclude_*|pinned|exclusive|precise_ip|READ|GROUP".
attr_fields() { # < perf evlist -v output
	awk -F': ' '!/^#/ {
		n = $1
		cfg = match($0, /config: 0x[0-9a-f]+/) ? substr($0, RSTART + 8, RLENGTH - 8) : "0"
		per = match($0, /sample_freq }: [0-9]+/) ? substr($0, RSTART + 15, RLENGTH - 15) : "0"
		f = ""
		split("exclude_user exclude_kernel exclude_hv exclude_idle exclude_host exclude_guest pinned exclusive", k, " ")
		for (i = 1; i <= 8; i++) if (index($0, k[i] ": 1")) f = f " " k[i]
		p = match($0, /precise_ip: [0-9]/) ? substr($0, RSTART + 12, 1) : "0"
		r = index($0, "|READ") ? " READ" : ""
		g = index($0, "|GROUP") ? " GROUP" : ""
		inh = index($0, "inherit: 1") ? " inherit" : ""
		print n "|" cfg "|" per "|" f "|" p r g inh
	}'
}

# Both recorders, the same -e; the evlist lines of both files in $ours / $theirs.
# perf gets -B: its build-id pass aborts here on short recordings ("assertion
# failed at util/build-id.c:1010"), and build ids are not what is compared.
both_record() { # perf record args (after -o)
	pc_record -o pc.data "$@"
	perf_record -B -o perf.data "$@"
	perf_ok evlist -v -i pc.data
	ours=$(attr_fields <"$PERF_OUT" | grep -v '^dummy')
	perf_ok evlist -v -i perf.data
	theirs=$(attr_fields <"$PERF_OUT" | grep -v '^dummy')
	echo "perfcap:"; echo "$ours"; echo "perf:"; echo "$theirs"
}

@test "software/period=1,name=cs,config=0x3/Duk: named cs, pinned, period 1, config 0x3, as perf records it" {
	need_record
	both_record -e 'software/period=1,name=cs,config=0x3/Duk' -- "$W/parallel" -s -t 0.3
	perf_ok evlist -v -i pc.data
	line=$(grep '^cs:' "$PERF_OUT")
	[[ $line == *"config: 0x3,"* ]]
	[[ $line == *"{ sample_period, sample_freq }: 1,"* ]]
	[[ $line == *"pinned: 1"* ]]
	[[ $line != *"freq: 1"* ]]
	[ "$ours" = "$theirs" ]
	perf_reads_clean pc.data
	# Every sample is a context switch, taken at period 1.
	perf_ok script -i pc.data -F event,period
	[ "$(grep -c . "$PERF_OUT")" -gt 0 ]
	[ "$(grep -vc '^ *1 cs: *$' "$PERF_OUT")" = 0 ]
}

@test "every modifier on cpu-clock sets the attr bits perf 6.1 sets" {
	need_record
	both_record -e 'cpu-clock:u,cpu-clock:k,cpu-clock:h,cpu-clock:G,cpu-clock:H,cpu-clock:I,cpu-clock:D,cpu-clock:e,cpu-clock:W,cpu-clock:P,cpu-clock:p,cpu-clock:pp,cpu-clock:ppp,cpu-clock:uk,cpu-clock:Gu,cpu-clock:Hk,cpu-clock:S' -- true
	[ "$(wc -l <<<"$ours")" = 17 ]
	[ "$ours" = "$theirs" ]
}

@test "group {cpu-clock,task-clock}:S: leader sampling; perf evlist -g, report --group, script read it" {
	need_record
	both_record -e '{cpu-clock,task-clock}:S' -- "$W/parallel" -t 0.3
	[ "$ours" = "$theirs" ]
	# The leader reads the group; the member does not sample.
	[[ $(sed -n 1p <<<"$ours") == "cpu-clock|0|4000|"*"READ GROUP" ]]
	[[ $(sed -n 2p <<<"$ours") == "task-clock|0x1|0|"*"READ GROUP" ]]
	perf_ok evlist -g -i pc.data
	grep -qx '{cpu-clock,task-clock}' "$PERF_OUT"
	perf_ok report --header-only -i pc.data
	grep -q '^# group: {cpu-clock,task-clock}' "$PERF_OUT"
	perf_ok report --group --stdio -i pc.data
	grep -q "of events 'anon group { cpu-clock, task-clock }'" "$PERF_OUT"
	perf_ok report --stats -i pc.data
	stats=$(stats_norm <"$PERF_OUT")
	samples=$(stat_of cpu-clock SAMPLE <<<"$stats")
	[ "$samples" -gt 100 ]
	# perf delivers each leader sample once per member, with the member's count.
	[ "$(stat_of task-clock SAMPLE <<<"$stats")" = "$samples" ]
	perf_ok script -i pc.data -F event
	[ "$(grep -c 'task-clock' "$PERF_OUT")" = "$samples" ]
}

@test "group {cpu-clock,task-clock}: both sample, one group" {
	need_record
	both_record -e '{cpu-clock,task-clock}' -- "$W/parallel" -t 0.3
	[ "$ours" = "$theirs" ]
	perf_ok evlist -g -i pc.data
	grep -qx '{cpu-clock,task-clock}' "$PERF_OUT"
	stats=$(perf_stats pc.data)
	[ "$(stat_of cpu-clock SAMPLE <<<"$stats")" -gt 100 ]
	[ "$(stat_of task-clock SAMPLE <<<"$stats")" -gt 100 ]
	perf_reads_clean pc.data
}

@test "--group: every event of every -e in one group, as perf 6.1 does" {
	need_record
	both_record --group -e cpu-clock,task-clock -e cs -- true
	[ "$ours" = "$theirs" ]
	perf_ok evlist -g -i perf.data
	want=$(cat "$PERF_OUT")
	perf_ok evlist -g -i pc.data
	[ "$(cat "$PERF_OUT")" = "$want" ]
	grep -qx '{cpu-clock,task-clock,cs}' "$PERF_OUT"
}

@test "no group, no GROUP_DESC: perf evlist -g lists the events alone" {
	need_record
	pc_record -o pc.data -e cpu-clock,task-clock -- true
	perf_ok report --header-only -i pc.data
	refute grep -q '^# group:' "$PERF_OUT"
}

@test "sched:sched_* expands to the tracepoints perf's own recording lists, in its order" {
	need_record
	need_tracefs
	pc_record -o pc.data -e 'sched:sched_*' -- true
	perf_record -B -o perf.data -e 'sched:sched_*' -- true
	perf_ok evlist -i perf.data
	theirs=$(grep -v '^#' "$PERF_OUT")
	perf_ok evlist -i pc.data
	ours=$(grep -v '^#' "$PERF_OUT")
	[ "$(wc -l <<<"$ours")" -gt 10 ]
	diff <(echo "$theirs") <(echo "$ours")
	# every one a tracepoint perf can decode
	perf_ok evlist -v -i pc.data
	[ "$(grep -c 'type: 2,' "$PERF_OUT")" = "$(wc -l <<<"$ours")" ]
}

@test "*:sched_switch: every system with that event (perf 6.1 stops at the first system without it)" {
	need_record
	need_tracefs
	pc_record -o pc.data -e '*:sched_switch' -- true
	perf_ok evlist -i pc.data
	[ "$(grep -v '^#' "$PERF_OUT")" = "sched:sched_switch" ]
	run -2 "$P" record -o x.data -e 'sched:no_such_*' -- true
	[[ $output == *"no tracepoint matches 'sched:no_such_*'"* ]]
}

@test "--filter 'prev_pid == 0' keeps only the matching sched_switch samples" {
	need_record
	need_tracefs
	# The same switches unfiltered, recorded around the filtered recording:
	# where they hold switches from idle, the filter must keep some. (No
	# command: it records until SIGINT; timeout forwards that, and ends it
	# should the test fail first.)
	timeout 60 "$P" record -q -e sched:sched_switch -a -o all.data 2>all.err &
	all=$!
	wait_for holds_samples all.data 0
	pc_record -o pc.data -e sched:sched_switch --filter 'prev_pid == 0' -a -- "$W/parallel" -s -t 0.5
	kill -INT "$all"
	wait "$all"
	perf_ok script -i all.data
	idle=$(grep 'sched:sched_switch' "$PERF_OUT" | grep -c 'prev_pid=0 ' || true)
	perf_ok script -i pc.data
	n=$(grep -c 'sched:sched_switch' "$PERF_OUT" || true)
	bad=$(grep 'sched:sched_switch' "$PERF_OUT" | grep -vc 'prev_pid=0 ' || true)
	echo "filtered: $n switches, $bad of them not from idle; unfiltered, around it: $idle from idle"
	[ "$bad" = 0 ]
	# The workload sleeps (-s) on a machine where nothing else runs: a CPU
	# goes idle and comes back, so the unfiltered recording holds switches
	# from idle, and the filtered one must hold some.
	[ "$idle" -gt 0 ]
	[ "$n" -gt 0 ]
}

@test "--filter on a comm: only the workload's switches, where unfiltered there are others" {
	need_record
	need_tracefs
	pc_record -o all.data -e sched:sched_switch -a -- "$W/parallel" -s -t 0.5
	perf_ok script -i all.data
	others=$(grep 'sched:sched_switch' "$PERF_OUT" | grep -vc 'prev_comm=parallel ' || true)
	pc_record -o pc.data -e sched:sched_switch --filter 'prev_comm == "parallel"' -a -- "$W/parallel" -s -t 0.5
	perf_ok script -i pc.data
	n=$(grep -c 'sched:sched_switch' "$PERF_OUT" || true)
	bad=$(grep 'sched:sched_switch' "$PERF_OUT" | grep -vc 'prev_comm=parallel ' || true)
	echo "unfiltered others: $others, filtered: $n, not matching: $bad"
	[ "$others" -gt 0 ]
	[ "$n" -gt 0 ]
	[ "$bad" = 0 ]
}

@test "--filter errors: after a non-tracepoint -e (usage, exit 2); a filter the kernel rejects (exit 1, names the event)" {
	need_record
	need_tracefs
	run -2 "$P" record -o x.data -e cpu-clock --filter 'x == 1' -- true
	[[ $output == *"--filter 'x == 1' needs tracepoints, but event 'cpu-clock'"* ]]
	run -1 "$P" record -o x.data -e sched:sched_switch --filter 'no_such_field == 1' -- true
	[[ $output == *'failed to set filter "no_such_field == 1" on event sched:sched_switch'* ]]
	# the filter belongs to its own -e only
	pc_record -o pc.data -e cpu-clock -e sched:sched_switch --filter 'prev_pid != 0' -- true
}

@test "-e cycles here records cpu-clock, as perf does on a machine without a PMU" {
	need_record
	perf_record -B -o perf.data -e cycles -- true
	perf_ok evlist -i perf.data
	[ "$(grep -v '^#' "$PERF_OUT")" = cpu-clock ] || skip "this machine counts cycles: no fallback to check"
	both_record -e cycles -- true
	[ "$ours" = "$theirs" ]
	[[ $ours == "cpu-clock|0|4000|"* ]]
	both_record -e cycles:u -- true
	[ "$ours" = "$theirs" ]
	[[ $ours == "cpu-clock:uH|"* ]]
	# perf says so only with -v
	refute grep -q 'fall back' "$BATS_TEST_TMPDIR/record.err"
	"$P" record -v -o v.data -e cycles -- true 2>v.err
	grep -q 'The cycles event is not supported, trying to fall back to cpu-clock-ticks' v.err
}

@test "-e instructions (and a cache event) fail here as perf's do, with perf's message" {
	need_record
	rc=0
	perf record -B -o perf.data -e instructions -- true >/dev/null 2>&1 || rc=$?
	[ "$rc" != 0 ] || skip "this machine counts instructions"
	run -1 "$P" record -o x.data -e instructions -- true
	[[ $output == *"The instructions event is not supported."* ]]
	[ ! -e x.data ]
	run -1 "$P" record -o x.data -e L1-dcache-load-misses -- true
	[[ $output == *"The L1-dcache-load-misses event is not supported."* ]]
}

@test "bad event syntax is a usage error (exit 2) that says what is wrong" {
	run -2 "$P" record -o x.data -e 'software/bogus=1/' -- true
	[[ $output == *"unknown term 'bogus' for PMU 'software'"* ]]
	run -2 "$P" record -o x.data -e '{cpu-clock,task-clock' -- true
	[[ $output == *"has no '}'"* ]]
	run -2 "$P" record -o x.data -e 'cpu-clock:Q' -- true
	[[ $output == *"invalid modifier ':Q'"* ]]
	run -2 "$P" record -o x.data -e 'nopmu/event=1/' -- true
	[[ $output == *"no PMU 'nopmu'"* ]]
	run -2 "$P" record -o x.data -e 'L1-icache-stores' -- true
	[[ $output == *"the L1-icache cache has no store operation"* ]]
}

@test "W: a weak group the kernel refuses (a pinned member) is opened apart, as perf does; without W it fails" {
	need_record
	# Only a leader may be pinned: the kernel says EINVAL to the member.
	run -1 "$P" record -o x.data -e '{cpu-clock,task-clock:D}' -- true
	[[ $output == *"task-clock:D"* ]]
	both_record -e '{cpu-clock,task-clock:D}:W' -- "$W/parallel" -t 0.3
	# perf's split member keeps neither disabled nor enable_on_exec (it counts
	# from the open); perfcap's starts with its old leader. The rest agree.
	[ "$(cut -d'|' -f1-4 <<<"$ours")" = "$(cut -d'|' -f1-4 <<<"$theirs")" ]
	[[ $(sed -n 2p <<<"$ours") == "task-clock:D|0x1|4000|"*pinned* ]]
	perf_ok report --header-only -i pc.data
	refute grep -q '^# group:' "$PERF_OUT"
	stats=$(perf_stats pc.data)
	[ "$(stat_of cpu-clock SAMPLE <<<"$stats")" -gt 100 ]
	[ "$(stat_of task-clock:D SAMPLE <<<"$stats")" -gt 100 ]
}
