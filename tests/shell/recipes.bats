#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Issue 12's acceptance: command lines perf users already run work with
# "perfcap record" put in place of "perf record", checked against perf 6.1
# on the same machine.

load helpers

setup() {
	common_setup
	need_record
}

# The seed experiment's command: the hardware events are missing here
# (no PMU), so perf refuses it; perfcap must refuse it too.
@test "the seed command: refused as perf refuses it where there is no PMU" {
	if perf record -o p.data -e instructions -- true 2>/dev/null; then
		skip "this machine has a PMU: perf records instructions"
	fi
	run "$P" record -o seed.data -a -N -B -T -R -g --call-graph dwarf,1024 \
		--user-regs=IP,SP,BP --switch-events \
		-e 'cycles,instructions,ref-cycles,software/period=1,name=cs,config=0x3/Duk' \
		-- "$W/parallel" -j 2 -t 0.2
	echo "$output"
	[ "$status" -ne 0 ]
	[[ "$output" == *instructions* ]]
	[[ "$output" == *"not supported"* ]]
}

@test "the seed command without its hardware events: cs is named, pinned and sampled at period 1" {
	args=(-a -N -B -T -R -g --call-graph dwarf,1024 --user-regs=IP,SP,BP --switch-events
		-e 'software/period=1,name=cs,config=0x3/Duk')
	pc_record -o seed.data "${args[@]}" -- "$W/parallel" -j 2 -t 0.3
	perf_ok evlist -v -i seed.data
	cs=$(grep '^cs:' "$PERF_OUT")
	echo "$cs"
	[[ "$cs" == *"config: 0x3,"* ]]
	[[ "$cs" == *"pinned: 1"* ]]
	[[ "$cs" == *"sample_period, sample_freq }: 1,"* ]]
	[[ "$cs" == *"sample_stack_user: 1024"* ]]
	# perf forces IP and SP into a --user-regs set with dwarf call graphs: BP|SP|IP
	[[ "$cs" == *"sample_regs_user: 0x1c0"* ]]
	# perf's DWARF unwinder asks for registers the command left out (it says
	# so for its own recording of this command too): nothing else on stderr.
	perf report -i seed.data --stdio --sort comm >rep.out 2>rep.err
	cat rep.err
	[ -z "$(grep -vx "unwind: can't read reg [0-9]*" rep.err)" ]
	grep -q "Samples: .* of event 'cs'" rep.out
	perf script -i seed.data >script.out 2>script.err
	[ -z "$(grep -vx "unwind: can't read reg [0-9]*" script.err)" ]
	grep -q ' cs:' script.out
	[ "$(perf_samples seed.data)" -gt 10 ]
}

# hotspot's recorder (hotspot 1.4: --call-graph dwarf --aio -z --sample-cpu)
@test "hotspot's record command line, and hotspot's parser reads the file" {
	pc_record -o hs.data --call-graph dwarf --aio -z --sample-cpu \
		-e cpu-clock --switch-events -- "$W/parallel" -j 2 -t 0.3
	perf_reads_clean hs.data
	perf_ok report -i hs.data --header-only
	grep -q '^# compressed : Zstd' "$PERF_OUT"
	# Debian's hotspot-perfparser has no zstd (compress.bats): it reads the
	# file inflated, and finds every sample perf finds, in time order.
	need_hotspot_perfparser
	/usr/bin/python3 -c 'import zstandard' 2>/dev/null ||
		skip "python3-zstandard not installed (scripts/install-deps.sh)"
	/usr/bin/python3 "$BATS_TEST_DIRNAME/inflate.py" hs.data plain.data
	"$HOTSPOT_PP" --print-stats --input plain.data >hs.out 2>hs.err
	strings hs.out >stats
	grep -E '^(samples|rounds|samples time violations):' stats
	[ "$(awk '/^samples:/ { print $2 }' stats)" = "$(perf_samples hs.data)" ]
	[ "$(awk '/^samples time violations:/ { print $4 }' stats)" = 0 ]
}

@test "perf record -o - | perf script, and | perf report, with perfcap in perf's place" {
	# pipefail: either side failing fails the test (perfcap exiting non-zero
	# after it wrote the stream included).
	set -o pipefail
	"$P" record -q -o - -e cpu-clock -- "$W/parallel" -j 2 -t 0.3 2>rec.err |
		perf script -i - >script.out 2>script.err
	set +o pipefail
	cat rec.err script.err
	grep -q parallel script.out
	[ "$(wc -l <script.out)" -gt 50 ]
	set -o pipefail
	"$P" record -q -o - -e cpu-clock -- "$W/parallel" -j 2 -t 0.3 2>rec.err |
		perf report -i - --stdio --sort comm >report.out 2>report.err
	set +o pipefail
	cat rec.err report.err
	grep -qE '^ +[0-9.]+% +parallel' report.out
}
