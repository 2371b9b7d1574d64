#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# AUX area tracing (issue 23, item 1): -e intel_pt//, arm_spe//,
# cs_etm//, -S/--snapshot, --aux-sample and -m's AUX pages, with perf
# 6.1 as the oracle. This machine has no AUX-capable PMU: what needs one
# skips saying so; the records perfcap writes for an AUX area are checked
# by perf on a file the unit test writes over an AUX area in memory.

load helpers

setup() {
	common_setup
}

# The AUX-capable PMUs of this machine, one a line.
aux_pmus() {
	local d
	for d in /sys/bus/event_source/devices/*; do
		case ${d##*/} in
		intel_pt | intel_bts | cs_etm | arm_spe*) echo "${d##*/}" ;;
		esac
	done
}

need_aux_pmu() {
	AUX_PMU=$(aux_pmus | head -1)
	[ -n "$AUX_PMU" ] || skip "no AUX-capable PMU (intel_pt/arm_spe/cs_etm) on this machine"
}

@test "-e intel_pt//, arm_spe//, cs_etm// without the PMU: perf's refusal (unknown PMU), non-zero, no file" {
	need_perf
	for ev in intel_pt arm_spe cs_etm; do
		if aux_pmus | grep -q "^$ev"; then
			echo "this machine has $ev: not checked"
			continue
		fi
		run perf record -e "$ev//" -o perf.data -- true
		echo "perf: $status: $output"
		[ "$status" != 0 ]
		[[ $output == *"Cannot find PMU \`$ev'"* ]]
		run "$P" record -e "$ev//" -o pc.data -- true
		echo "perfcap: $status: $output"
		[ "$status" = 2 ]
		[[ $output == *"no PMU '$ev'"* ]]
		[ ! -e pc.data ]
	done
}

@test "-S and --aux-sample with no AUX event: perf 6.1's refusals, non-zero, no file (--dry-run too)" {
	need_perf
	[ -z "$(aux_pmus)" ] || skip "this machine has an AUX-capable PMU"
	for opt in -S --aux-sample; do
		case $opt in
		-S) msg='No AUX area tracing to snapshot' ;;
		*) msg='No AUX area event to sample' ;;
		esac
		run perf record "$opt" -e cpu-clock -o perf.data -- true
		[ "$status" != 0 ]
		[[ $output == *"$msg"* ]]
		run "$P" record "$opt" -e cpu-clock -o pc.data -- true
		echo "perfcap $opt: $status: $output"
		[ "$status" = 2 ]
		[[ $output == *"$msg"* ]]
		[ ! -e pc.data ]
		run "$P" record --dry-run "$opt" -e cpu-clock -- true
		[ "$status" = 2 ]
		[[ $output == *"$msg"* ]]
	done
}

@test "AUXTRACE_INFO and AUXTRACE records as perf 6.1 reads them (written over an AUX area in memory)" {
	need_perf
	bin=$W/../tests/test_aux
	[ -x "$bin" ] || skip "tests/unit/test_aux is not built ($bin)"
	for kind in spe bts; do
		case $kind in
		spe) type=4 name='ARM SPE' ;;
		bts) type=2 name='Intel BTS' ;;
		esac
		# The recorder's own AUXTRACE_INFO for such a PMU, then the records.
		run env PERFCAP_AUX_FILE="$PWD/$kind.data" PERFCAP_AUX_KIND=$kind "$bin"
		echo "$output"
		[ "$status" = 0 ]
		# perf walks past each record's data (its size): every record is where it should be.
		stats=$(perf_stats "$kind.data")
		echo "$stats"
		[ "$(stat_of Aggregated SAMPLE <<<"$stats")" = 1 ]
		[ "$(stat_of Aggregated AUXTRACE_INFO <<<"$stats")" = 1 ]
		[ "$(stat_of Aggregated AUXTRACE <<<"$stats")" = 2 ]
		# perfcap's reader too (the file has no event names: perf's are its own).
		[ "$(our_stats "$kind.data" | grep ^Aggregated)" = "$(grep ^Aggregated <<<"$stats")" ]
		# perf report -D takes the AUXTRACE_INFO (it refuses one it cannot
		# set its decoder up from) and prints each record's fields as written,
		# then decodes the made-up trace, and exits 0.
		run -0 perf report -D -i "$kind.data"
		grep -q "PERF_RECORD_AUXTRACE_INFO type: $type\$" <<<"$output"
		refute grep -q 'failed to process type' <<<"$output"
		grep -q 'PERF_RECORD_AUXTRACE size: 0xfa0  offset: 0  ref: 0  idx: 3  tid: -1  cpu: 0$' <<<"$output"
		# 301 bytes from 4000 on: they wrap in the area, and are padded to 304.
		grep -q 'PERF_RECORD_AUXTRACE size: 0x130  offset: 0xfa0  ref: 0  idx: 3  tid: -1  cpu: 0$' <<<"$output"
		grep -qE "$name data: size (0x130|304) bytes" <<<"$output"
	done
}

@test "AUX area tracing on the machine's AUX PMU: AUXTRACE records perf decodes" {
	need_record
	need_aux_pmu
	pc_record -e "$AUX_PMU//u" -m ,64 -o aux.data -- "$W/parallel" -t 1
	stats=$(perf_stats aux.data)
	echo "$stats"
	[ "$(stat_of Aggregated AUXTRACE_INFO <<<"$stats")" = 1 ]
	[ "$(stat_of Aggregated AUXTRACE <<<"$stats")" -gt 0 ]
	perf_ok script -i aux.data
}
