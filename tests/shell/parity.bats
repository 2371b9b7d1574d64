#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Attr parity with perf record 6.1 (issue 12, item 6). parity.tsv has one
# row per option and event syntax; each row records `-- true` (or the
# row's workload) with upstream perf and with perfcap and compares `perf
# evlist -v` of the two files: the event list itself, then the fields
# that the row's option controls. A test per item of the issue runs that
# item's rows and prints a line per row (ok, FAILED, or skip where the
# row needs what this machine lacks, a hardware PMU) on fd 3;
# PARITY_ROWS=REGEX runs only the rows whose name matches.

load helpers

setup() {
	common_setup
	need_record
}

TABLE=$BATS_TEST_DIRNAME/parity.tsv

# ---- where perfcap differs from perf on purpose -------------------------
#
# The one place that names them (doc/perfcap-record.1 says why, in
# "Differences from perf record"). A row never lists an exception.
#
#  1. sample_type TIME, CPU and PERIOD: perfcap samples them on every event
#     (the loss report and the readers need them); perf only in some modes.
#  2. sample_type ID and IDENTIFIER: with several events perfcap marks every
#     record with IDENTIFIER; perf uses ID when every event has the same
#     sample_type. Both say which event a record belongs to.
#  3. build_id: perfcap asks the kernel for build ids in MMAP2 records
#     (unless -B); perf does only with --buildid-mmap.
#  4. Syntax perf 6.1 refuses that issue 12 asks for: tracepoint globs on
#     the subsystem (-e '*:sched_switch'; perf's parser stops at the '*').
#     perfcap records them; a row with it passes when perf refuses.
DIFF_SAMPLE_BITS='TIME CPU PERIOD'
DIFF_MORE_SYNTAX='(^| )-e \*:'

# normalize FIELD VALUE ARGS: sets NORM to VALUE with the differences
# above taken out (no subshell: it runs for every field of every row).
normalize() {
	local field=$1 value=$2 args=$3 bit id= bits
	NORM=$value
	case $field in
	sample_type)
		NORM=
		IFS='|' read -ra bits <<<"$value"
		for bit in "${bits[@]}"; do
			[[ " $DIFF_SAMPLE_BITS " == *" $bit "* ]] && continue
			if [ "$bit" = ID ] || [ "$bit" = IDENTIFIER ]; then
				id='|ID or IDENTIFIER'
				continue
			fi
			NORM+="${NORM:+|}$bit"
		done
		NORM+=$id
		;;
	build_id)
		[[ " $args " == *" --buildid-mmap "* || " $args " == *" -B "* ]] ||
			NORM="(perfcap: always)"
		;;
	esac
}

# ---- reading perf evlist -v ----------------------------------------------

# Field groups a row may name.
declare -gA FIELD_GROUPS=(
	[@excl]=exclude_user,exclude_kernel,exclude_hv,exclude_guest,exclude_host,exclude_idle
	[@track]=mmap,mmap2,comm,comm_exec,task,ksymbol,bpf_event,context_switch,mmap_data
	[@rate]=sample_period,freq
	[@on]=disabled,enable_on_exec,inherit
)

# The attr fields perf 6.1's evlist -v prints (when not 0; the two
# unions under the names evlist_fields gives them). A field that a row
# names and perf never prints would read as 0 on both sides and compare
# nothing: run_row refuses a name that is not here.
EVLIST_FIELDS=" type size config sample_period freq sample_type read_format
 disabled inherit pinned exclusive exclude_user exclude_kernel exclude_hv
 exclude_idle mmap comm inherit_stat enable_on_exec task watermark
 precise_ip mmap_data sample_id_all exclude_host exclude_guest
 exclude_callchain_kernel exclude_callchain_user mmap2 comm_exec
 use_clockid context_switch write_backward namespaces ksymbol bpf_event
 aux_output cgroup text_poke build_id inherit_thread remove_on_exec sigtrap
 wakeup_events bp_type config1 config2 branch_sample_type sample_regs_user
 sample_stack_user clockid sample_regs_intr aux_watermark sample_max_stack
 aux_sample_sizesig_data "

# evlist_fields FILE: "INDEX<TAB>FIELD<TAB>VALUE" for each field of each
# event, and "INDEX<TAB>name<TAB>NAME". A pipe-format file goes through
# stdin, as perf reads pipes.
evlist_fields() {
	local file=$1
	{
		if [ "$(head -c 16 "$file" | od -An -tx1 -j8 | tr -d ' \n')" = 1000000000000000 ]; then
			perf evlist -v -i - <"$file"
		else
			perf evlist -v -i "$file"
		fi
	} 2>/dev/null | awk '
		BEGIN { n = 0 }
		/^# / { next }
		{
			i = index($0, ": type: ")
			if (!i) next
			print n "\tname\t" substr($0, 1, i - 1)
			rest = substr($0, i + 2)
			gsub(/\{ sample_period, sample_freq \}/, "sample_period", rest)
			gsub(/\{ wakeup_events, wakeup_watermark \}/, "wakeup_events", rest)
			gsub(/\{ bp_addr, config1 \}/, "config1", rest)
			gsub(/\{ bp_len, config2 \}/, "config2", rest)
			m = split(rest, kv, ", ")
			for (j = 1; j <= m; j++) {
				p = index(kv[j], ": ")
				print n "\t" substr(kv[j], 1, p - 1) "\t" substr(kv[j], p + 2)
			}
			n++
		}'
}

# The data file a recorder left: FILE, or with --switch-output or
# --timestamp-filename the FILE.<timestamp> it was renamed to.
data_file() {
	local f
	[ -s "$1" ] && { echo "$1"; return; }
	for f in "$1".[0-9]*; do
		[ -s "$f" ] && { echo "$f"; return; }
	done
	echo "$1"
}

# ---- one row ---------------------------------------------------------------

ROW_PID=
start_target() {
	sleep 30 &
	ROW_PID=$!
}

stop_target() {
	[ -n "$ROW_PID" ] && kill "$ROW_PID" 2>/dev/null && wait "$ROW_PID" 2>/dev/null
	ROW_PID=
}

# record TOOL DIR OUTFILE ARGS...: runs perf or perfcap in DIR with the
# row's arguments; stdout/stderr to DIR/OUTFILE.{out,err}. Returns its status.
record() {
	local tool=$1 dir=$2 file=$3 pipe=false a
	shift 3
	for a in "$@"; do
		if [ "$a" = - ]; then pipe=true; fi
	done
	(
		cd "$dir" || exit 1
		# ctl and ack: FIFOs for --control, open read-write on fds 10 and 11
		# so that neither recorder blocks opening them.
		exec 10<>ctl 11<>ack
		# shellcheck disable=SC2086
		if $pipe; then
			timeout 30 "$tool" record "$@" -- $WORKLOAD >"$file" 2>"$file.err"
		else
			timeout 30 "$tool" record "$@" -o "$file" -- $WORKLOAD >"$file.out" 2>"$file.err"
		fi
	)
}

# run_row ITEM: runs every row of that item; a line per row on fd 3.
# Fails if any row failed, with the reasons.
run_rows() {
	local item=$1 it name needs args fields workload
	local failed=() nrows=0 skipped=0

	while IFS=$'\t' read -r it name needs args fields workload; do
		[[ -z $it || $it == \#* ]] && continue
		[ "$it" = "$item" ] || continue
		[ -n "${PARITY_ROWS:-}" ] && ! [[ $name =~ $PARITY_ROWS ]] && continue
		nrows=$((nrows + 1))
		local why
		why=$(row_skip "$needs")
		if [ -n "$why" ]; then
			echo "# skip $name: $why" >&3
			skipped=$((skipped + 1))
			continue
		fi
		local out
		if out=$(run_row "$name" "$args" "$fields" "${workload:-true}" 2>&1) && [ -z "$out" ]; then
			echo "# ok   $name" >&3
		else
			echo "# FAILED $name: $(head -1 <<<"$out")" >&3
			failed+=("$name")
			printf 'row %s (%s):\n%s\n' "$name" "$args" "$out"
		fi
	done <"$TABLE"
	echo "# item $item: $nrows rows, ${#failed[@]} failed, $skipped skipped" >&3
	[ "${#failed[@]}" = 0 ] || { echo "failed rows: ${failed[*]}"; return 1; }
}

# row_skip NEEDS: why the row cannot run here, or nothing.
row_skip() {
	local dev=/sys/bus/event_source/devices
	case $1 in
	-) ;;
	pmu) [ -e $dev/cpu ] || [ -e $dev/cpu_core ] || echo "needs a hardware PMU (this machine has none)" ;;
	lbr) [ -e $dev/cpu/caps/branches ] || echo "needs a PMU with branch stacks (LBR)" ;;
	tracefs)
		[ -r /sys/kernel/tracing/events/sched/sched_switch/id ] ||
			[ -r /sys/kernel/debug/tracing/events/sched/sched_switch/id ] ||
			echo "needs tracefs with sched:sched_switch" ;;
	*) echo "unknown need '$1' in parity.tsv" ;;
	esac
}

# run_row NAME ARGS FIELDS WORKLOAD: prints why it failed, or nothing (a
# row that prints anything fails). A row perf crashes on, or hangs on, is
# tried three times, then fails: it compared nothing, and a skip line
# under a test that says ok would hide that.
run_row() {
	local name=$1 args=$2 fields=$3 dir=$BATS_TEST_TMPDIR/$1 argv=() f
	local perf_rc=0 pc_rc=0 a b i list=() g try

	WORKLOAD=$4
	mkdir -p "$dir" && mkfifo "$dir/ctl" "$dir/ack" || return 1
	[[ $args == *@PID@* || $args == *@TID@* ]] && start_target
	args=${args//@PID@/$ROW_PID}
	args=${args//@TID@/$ROW_PID}
	set -f
	# shellcheck disable=SC2206
	argv=($args)
	set +f
	# perf gets -B: perf 6.1.187 here aborts in the build-id pass at the
	# end of many short recordings (an assertion in util/build-id.c, then
	# "stack smashing detected"); -B skips that pass and changes no attr.
	# 129 is perf's usage error (a refusal); 124 is timeout's; the others
	# are crashes.
	for try in 1 2 3; do
		perf_rc=0
		record perf "$dir" a.data "${argv[@]}" -B 2>/dev/null || perf_rc=$?
		[[ " 124 134 135 136 137 139 " == *" $perf_rc "* ]] || break
		echo "# $name: perf exited $perf_rc (try $try): $(grep -v '^ *$' "$dir/a.data.err" | head -2 | tr '\n' ' ')" >&3
		rm -f "$dir"/a.data*
	done
	record "$P" "$dir" b.data "${argv[@]}" 2>/dev/null || pc_rc=$?
	stop_target

	if [ "$perf_rc" = 124 ]; then
		echo "perf did not finish in 30 s, $try times: nothing to compare with"
		return 1
	fi
	if [[ " 134 135 136 137 139 " == *" $perf_rc "* ]]; then
		echo "perf itself died on signal $((perf_rc - 128)), $try times: nothing to compare with"
		return 1
	fi
	if [ "$perf_rc" != 0 ]; then
		if [ "$pc_rc" = 0 ] && ! [[ $args =~ $DIFF_MORE_SYNTAX ]]; then
			echo "perf refuses it (exit $perf_rc: $(grep -v '^ *$' "$dir/a.data.err" | head -2 | tr '\n' ' ')), perfcap records"
			return 1
		fi
		# perfcap refuses too: as a refusal (1 or 2) that says why, not a
		# crash, a hang (124) or a silent exit.
		if [ "$pc_rc" != 0 ]; then
			if [ "$pc_rc" != 1 ] && [ "$pc_rc" != 2 ]; then
				echo "perf refuses it; perfcap exits $pc_rc, not a refusal: $(head -3 "$dir/b.data.err" | tr '\n' ' ')"
				return 1
			fi
			if ! grep -q '[a-z]' "$dir/b.data.err"; then
				echo "perf refuses it; perfcap exits $pc_rc and says nothing"
				return 1
			fi
		fi
		return 0
	fi
	if [ "$pc_rc" != 0 ]; then
		echo "perfcap exits $pc_rc where perf records: $(head -3 "$dir/b.data.err" | tr '\n' ' ')"
		return 1
	fi

	a=$(evlist_fields "$(data_file "$dir/a.data")")
	b=$(evlist_fields "$(data_file "$dir/b.data")")
	[ -n "$a" ] || { echo "perf evlist cannot read perf's own file: nothing to compare with"; return 1; }
	[ -n "$b" ] || { echo "perf evlist cannot read perfcap's file"; return 1; }
	local names=() idx key val n_a= n_b=
	local -A A=() B=()
	while IFS=$'\t' read -r idx key val; do A[$idx,$key]=$val; done <<<"$a"
	while IFS=$'\t' read -r idx key val; do B[$idx,$key]=$val; done <<<"$b"
	i=0
	while [ -n "${A[$i,name]+set}" ]; do
		names+=("${A[$i,name]}")
		n_a+="${n_a:+ | }${A[$i,name]}"
		i=$((i + 1))
	done
	i=0
	while [ -n "${B[$i,name]+set}" ]; do
		n_b+="${n_b:+ | }${B[$i,name]}"
		i=$((i + 1))
	done
	if [ "$n_a" != "$n_b" ]; then
		echo "event list: perf [$n_a], perfcap [$n_b]"
		return 1
	fi
	IFS=, read -ra list <<<"$fields"
	local expanded=()
	for f in "${list[@]}"; do
		if [ -n "${FIELD_GROUPS[$f]:-}" ]; then
			IFS=, read -ra g <<<"${FIELD_GROUPS[$f]}"
			expanded+=("${g[@]}")
		else
			expanded+=("$f")
		fi
	done
	local bad=()
	for f in "${expanded[@]}"; do
		if [ "$f" != group ] && [[ " ${EVLIST_FIELDS//$'\n'/ } " != *" $f "* ]]; then
			bad+=("perf evlist -v never prints '$f': it would read as 0 on both sides")
			continue
		fi
		if [ "$f" = group ]; then
			local ga gb
			ga=$(perf evlist -g -i "$(data_file "$dir/a.data")" 2>/dev/null | grep -v '^#' | paste -sd' ')
			gb=$(perf evlist -g -i "$(data_file "$dir/b.data")" 2>/dev/null | grep -v '^#' | paste -sd' ')
			[ "$ga" = "$gb" ] || bad+=("groups: perf '$ga', perfcap '$gb'")
			continue
		fi
		local va vb
		for ((i = 0; i < ${#names[@]}; i++)); do
			normalize "$f" "${A[$i,$f]:-0}" "$args"
			va=$NORM
			normalize "$f" "${B[$i,$f]:-0}" "$args"
			vb=$NORM
			[ "$va" = "$vb" ] || bad+=("${names[i]} $f: perf '$va', perfcap '$vb'")
		done
	done
	if [ "${#bad[@]}" -gt 0 ]; then
		printf '%s\n' "${bad[@]}"
		return 1
	fi
}

# ---- the tests ---------------------------------------------------------------

@test "parity.tsv: 60+ rows, each well formed, names unique, fields known to perf evlist -v" {
	local rows names it name needs args fields
	rows=$(grep -v '^#' "$TABLE" | grep -c .)
	echo "rows: $rows"
	[ "$rows" -ge 60 ]
	names=$(grep -v '^#' "$TABLE" | cut -f2 | sort | uniq -d)
	[ -z "$names" ] || { echo "duplicate names: $names"; false; }
	while IFS=$'\t' read -r it name needs args fields _; do
		[[ -z $it || $it == \#* ]] && continue
		[[ $it =~ ^[0-6]$ ]] || { echo "$name: item '$it'"; false; }
		[ -z "$(row_skip "$needs" | grep unknown)" ] || { echo "$name: needs '$needs'"; false; }
		[ -n "$fields" ] || { echo "$name: no fields"; false; }
		for f in ${fields//,/ }; do
			[[ $f == @* ]] && { [ -n "${FIELD_GROUPS[$f]:-}" ] || { echo "$name: group $f"; false; }; continue; }
			[[ $f =~ ^[a-z_0-9]+$ ]] || { echo "$name: field '$f'"; false; }
		done
	done <"$TABLE"
}

@test "the differences are real: normalize hides only what it names" {
	normalize sample_type 'IP|TID|TIME|CPU|PERIOD|IDENTIFIER' ''
	[ "$NORM" = "IP|TID|ID or IDENTIFIER" ]
	normalize sample_type 'IP|TID|ID|RAW' ''
	[ "$NORM" = "IP|TID|RAW|ID or IDENTIFIER" ]
	normalize sample_type 'IP|TID|ADDR' ''
	[ "$NORM" = "IP|TID|ADDR" ]
	normalize sample_type 'IP|TID|TIME' ''
	[ "$NORM" = "IP|TID" ]
	normalize build_id 1 '-e cpu-clock --buildid-mmap'
	[ "$NORM" = 1 ]
	normalize build_id 0 '-B'
	[ "$NORM" = 0 ]
	normalize clockid 1 ''
	[ "$NORM" = 1 ]
}

@test "evlist_fields numbers the events from 0, as the rows compare them" {
	# An unset awk counter printed "" for the first event: every row then
	# compared no event at all and passed (found with issue 23's rows).
	"$P" record -q -e cpu-clock,task-clock -o b.data -- true
	local out
	out=$(evlist_fields b.data)
	grep -qP '^0\tname\tcpu-clock$' <<<"$out"
	grep -qP '^1\tname\ttask-clock$' <<<"$out"
	grep -qP '^0\tsample_type\t' <<<"$out"
}

@test "item 0: the basics (targets, -F/-c, call graphs, -T -R -i -B -N, switch events) match perf" {
	run_rows 0
}

@test "item 1: event syntax (modifiers, PMU terms, groups, cache events, tracepoint globs, --filter) matches perf" {
	run_rows 1
}

@test "item 2: sampling and registers (--user-regs -I -d -W -P -k --all-user -s -n -b -j ...) match perf" {
	run_rows 2
}

@test "item 3: control of the recording (-D, --control, --max-size, --switch-output, --no-buffering) keeps perf's attrs" {
	run_rows 3
}

@test "item 4: -z keeps perf's attrs" {
	run_rows 4
}

@test "item 5: -o - writes perf's attrs into the pipe" {
	run_rows 5
}

@test "item 6: the rest of perf 6.1's options and their --no- forms (issue 23) keep perf's attrs" {
	run_rows 6
}

@test "-a with tracepoints only: the dummy tracking event, so perf report sorts by command, object and symbol as for perf's file" {
	need_tracefs
	local ev=sched:sched_switch,raw_syscalls:sys_enter
	perf record -q -a -e "$ev" -o a.data -B -- sleep 0.3 >/dev/null 2>&1
	"$P" record -q -a -e "$ev" -o b.data -- sleep 0.3
	perf_ok evlist -i a.data
	local want
	want=$(grep -v '^#' "$PERF_OUT")
	perf_ok evlist -i b.data
	[ "$(grep -v '^#' "$PERF_OUT")" = "$want" ]
	[ "$(grep -v '^#' "$PERF_OUT" | tail -1)" = dummy:HG ]
	# The dummy tracks, the tracepoints do not.
	perf_ok evlist -v -i b.data
	grep '^dummy:HG: .*mmap: 1,.*comm: 1,.*task: 1,' "$PERF_OUT"
	refute grep '^sched:sched_switch: .*mmap: 1' "$PERF_OUT"
	# perf's own file may say it holds out-of-order events: not checked here.
	perf report --stdio -i a.data >a.report 2>/dev/null
	grep -E '^# Overhead +Command +Shared Object +Symbol' a.report
	perf_ok report --stdio -i b.data
	grep -E '^# Overhead +Command +Shared Object +Symbol' "$PERF_OUT"
	refute grep -q 'Trace output' "$PERF_OUT"
	# Our reader and the loss report read the file with its three events.
	run "$P" loss b.data
	[ "$status" = 0 ]
	[[ $output == *dummy:HG* ]]
	perf_ok report --stats -i b.data
	refute grep -qi 'warning\|unknown' "$PERF_OUT"
}

@test "-D without -a: the dummy tracks from the exec, the events start after the delay" {
	"$P" record -q -e cpu-clock -D 50 -o b.data -- "$W/parallel" -j 1 -t 0.3
	perf_ok evlist -v -i b.data
	grep '^dummy:HG: .*disabled: 1,.*enable_on_exec: 1,' "$PERF_OUT"
	refute grep '^cpu-clock: .*enable_on_exec' "$PERF_OUT"
	perf_ok report --stdio -i b.data --sort comm
	grep -q parallel "$PERF_OUT"
}

@test "--call-graph dwarf with --user-regs: IP and SP are added, with a warning" {
	"$P" record -e cpu-clock --call-graph dwarf --user-regs=AX -o b.data -- true 2>err
	cat err
	grep -qi 'warning.*user-regs' err
	perf_ok evlist -v -i b.data
	grep 'sample_regs_user: 0x181' "$PERF_OUT"
}

@test "-b on an event without branch stacks fails as perf does, saying why" {
	run "$P" record -e cpu-clock -b -o b.data -- true
	echo "$output"
	[ "$status" = 1 ]
	[[ $output == *"cannot sample branch stacks"* ]]
}
