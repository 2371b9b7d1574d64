#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# perfcap pprof (issue 32): a recording as a gzipped pprof profile. The
# oracles: go tool pprof (Debian's golang-go) reads every profile with
# nothing on stderr; its -traces stacks are perf script's callchains for
# the same threads, sample for sample; its -top flat shares are perf
# report's within 0.5 points for every symbol over 1%; -raw lists a build
# id for every mapping (tests/shell/pprof-compare.py does the comparing).

load helpers

setup() {
	common_setup
	need_record
	need_python
	command -v go >/dev/null || skip "go is not installed (Debian golang-go)"
	CMP="$BATS_TEST_DIRNAME/pprof-compare.py"
}

# pprof ARGS...: perfcap pprof ARGS...; must exit 0; its messages in pprof.err.
pprof() {
	local rc=0
	"$P" pprof "$@" 2>pprof.err || rc=$?
	cat pprof.err >&2
	[ "$rc" = 0 ]
}

# gopprof ARGS...: go tool pprof ARGS... into gopprof.out; must exit 0 and
# print nothing on stderr (no warning, no failed symbolization).
gopprof() {
	local rc=0
	go tool pprof "$@" >gopprof.out 2>gopprof.err || rc=$?
	if [ "$rc" != 0 ] || [ -s gopprof.err ]; then
		echo "go tool pprof $* exited $rc:" >&2
		sed 's/^/  /' gopprof.err >&2
		return 1
	fi
}

# agrees DATA PROFILE [UNIT]: go tool pprof's stacks are perf script's, and
# its flat shares (sample type UNIT, default cpu) perf report's.
agrees() {
	local data=$1 prof=$2 unit=${3:-cpu}
	perf_ok script -i "$data" -F comm,tid,ip,sym --no-inline
	mv "$PERF_OUT" perf.script
	gopprof -traces -sample_index=samples "$prof"
	mv gopprof.out pprof.traces
	python3 "$CMP" traces perf.script pprof.traces
	perf_ok report -i "$data" --no-children --sort sym --stdio -g none
	mv "$PERF_OUT" perf.report
	gopprof -top -nodecount=100000 -sample_index="$unit" "$prof"
	mv gopprof.out pprof.top
	python3 "$CMP" top perf.report pprof.top
}

# every_mapping_has_a_build_id PROFILE: each line of -raw's Mappings has one.
every_mapping_has_a_build_id() {
	gopprof -raw "$1"
	sed -n '/^Mappings/,$p' gopprof.out | tail -n +2 >mappings
	cat mappings
	[ "$(wc -l <mappings)" -ge 3 ]
	[ "$(grep -cEv ' [0-9a-f]{40}( \[FN\])? *$' mappings)" = 0 ]
}

@test "pprof: perfcap's frame-pointer recording: go tool pprof reads it, perf's stacks sample for sample, its shares, a build id a mapping" {
	pc_record -g -F 2000 -o fp.data -- "$W/parallel" -t 1
	pprof -i fp.data -o fp.pb.gz
	grep -Eq '^perfcap pprof: [0-9]+ samples of 1 event as [0-9]+ profile samples' pprof.err
	agrees fp.data fp.pb.gz
	every_mapping_has_a_build_id fp.pb.gz
	# cpu-clock's periods are CPU time: the sample types say so.
	grep -q '^samples/count cpu/nanoseconds\[dflt\]$' gopprof.out
	grep -q '^PeriodType: cpu nanoseconds$' gopprof.out
	# Aggregated: far fewer profile samples than samples (memory follows the stacks).
	n=$(awk '/samples of 1 event as/ { print $3 }' pprof.err)
	s=$(awk '/samples of 1 event as/ { print $9 }' pprof.err)
	[ "$n" -gt 1000 ]
	[ "$s" -lt $((n / 10)) ]
}

@test "pprof: perf's DWARF recording is unwound first: perf's own unwinding, sample for sample" {
	perf_record -F 2000 --call-graph dwarf -o dw.data -- "$W/parallel" -t 0.5
	pprof -i dw.data -o dw.pb.gz
	grep -q '(DWARF stacks unwound)' pprof.err
	agrees dw.data dw.pb.gz
	gopprof -raw dw.pb.gz
	grep -q '^Comment: user stacks unwound by perfcap (DWARF)$' gopprof.out
	# Whole chains: the workload's threads reach main and start_thread.
	grep -q 'main' pprof.traces
	grep -q 'start_thread' pprof.traces
}

@test "pprof: perf -z (no BUILD_ID section) and a pipe stream on standard input" {
	perf_record -z -g -F 2000 -o z.data -- "$W/parallel" -t 0.5
	pprof -i z.data -o z.pb.gz
	agrees z.data z.pb.gz
	# No build id in the recording: each file's own, as perf report reads it.
	every_mapping_has_a_build_id z.pb.gz
	set -o pipefail
	"$P" record -g -F 2000 -o - -- "$W/parallel" -t 0.5 2>record.err | tee s.pipe |
		"$P" pprof -i - -o s.pb.gz 2>pprof.err
	set +o pipefail
	agrees s.pipe s.pb.gz
}

@test "pprof: labels as asked; --event picks one of two events; an unknown one is refused" {
	pc_record -g -e cpu-clock -e page-faults -o two.data -- "$W/parallel" -t 0.5
	pprof -i two.data -o two.pb.gz
	gopprof -raw two.pb.gz
	# Two events: a pair of sample types each, named after it.
	grep -q '^samples:cpu-clock/count cpu:cpu-clock/nanoseconds\[dflt\] samples:page-faults/count events:page-faults/count$' gopprof.out
	grep -q 'pid:\[[0-9]*\] tid:\[[0-9]*\]' gopprof.out
	grep -q 'comm:\[parallel\]' gopprof.out
	pprof -i two.data -o pf.pb.gz --event page-faults --labels cpu
	gopprof -raw pf.pb.gz
	grep -q '^samples/count events/count\[dflt\]$' gopprof.out
	grep -q 'cpu:\[[0-9]\]' gopprof.out
	refute grep -q 'pid:' gopprof.out
	perf_ok report -i two.data --stats
	pf=$(awk '/page-faults stats/ { f = 1 } f && /SAMPLE events:/ { print $3; exit }' "$PERF_OUT")
	[ "$(awk '/perfcap pprof:/ && /samples of 1 event/ { print $3 }' pprof.err)" = "$pf" ]
	run -1 "$P" pprof -i two.data -o x.pb.gz --event cycles
	[[ $output == *"two.data has no event cycles"* ]]
	run -2 "$P" pprof -i two.data --labels pid,nope
	[[ $output == *"--labels 'pid,nope'"* ]]
}

@test "pprof: a C++ program's names demangled as perf shows them" {
	command -v g++ >/dev/null || skip "g++ is not installed"
	cat >spin.cc <<'EOF'
#include <cstdlib>
namespace work {
struct Burner {
	unsigned long spin(unsigned long n) { unsigned long x = 1; for (unsigned long i = 0; i < n; i++) x = x * 2862933555777941757UL + i; return x; }
};
}
int main(int argc, char **argv) { work::Burner b; unsigned long s = 0; for (int i = 0; i < 100; i++) s += b.spin(3000000 + i); return (int)(s & 1) + (argc > 5 ? atoi(argv[1]) : 0); }
EOF
	g++ -O1 -fno-omit-frame-pointer -fno-inline -o spin spin.cc
	pc_record -g -F 2000 -o cc.data -- ./spin
	pprof -i cc.data -o cc.pb.gz
	agrees cc.data cc.pb.gz
	grep -q 'work::Burner::spin$' pprof.top
	gopprof -raw cc.pb.gz
	grep -q '_ZN4work6Burner4spinEm' gopprof.out
}

@test "pprof: a recording without samples gives an empty profile and says so; LOST counts go in a comment" {
	pc_record -e cpu-clock -c 1000000000 -o none.data -- true
	pprof -i none.data -o none.pb.gz
	grep -q 'none.data has no samples: the profile is empty' pprof.err
	# A profile go tool pprof parses, and refuses only for being empty
	# (a file it cannot parse gets "parsing profile: ..." instead).
	gzip -t none.pb.gz
	run -1 go tool pprof -raw none.pb.gz
	[[ $output == *"profile has no samples"* ]]
	[[ $output != *"parsing profile"* ]]
	# A ring far too small for its stacks: perf loses, and the profile says how much.
	perf_record -m 1 --call-graph dwarf,60000 -F 20000 -a -o lost.data -- "$W/parallel" -t 0.5
	perf_ok report -i lost.data --stats
	lost=$(awk '/^ *LOST events:/ { print $3; exit }' "$PERF_OUT")
	[ "${lost:-0}" -gt 0 ] || skip "perf lost nothing with a one-page ring"
	pprof -i lost.data -o lost.pb.gz
	grep -q "lost.data lost [0-9]* events (LOST)" pprof.err
	gopprof -raw lost.pb.gz
	grep -Eq '^Comment: lost: [0-9]+ events in LOST records' gopprof.out
}

@test "pprof: not perf.data, a missing file and bad options: a clear error, exit 1 or 2" {
	head -c 4096 /dev/urandom >junk
	run -1 "$P" pprof -i junk -o j.pb.gz
	[[ $output == *junk* ]]
	[ ! -s j.pb.gz ]
	run -1 "$P" pprof -i nosuch.data -o n.pb.gz
	[[ $output == *nosuch.data* ]]
	run -2 "$P" pprof --bogus
	[[ $output == *"unknown option"* ]]
	run -2 "$P" pprof -j 0
	[[ $output == *"--jobs '0'"* ]]
	# A FILE that is not there: said, and exit 1.
	run -1 "$P" pprof nosuch.data
	[[ $output == *nosuch.data* ]]
	[ ! -e nosuch.data.pb.gz ]
}

@test "pprof: a --switch-output set gives a profile a file, beside each or in a directory; their samples are the recording's" {
	pc_record -g --switch-output=100ms -o sw.data -- "$W/parallel" -t 0.5
	set -- sw.data.2*
	[ "$#" -ge 3 ]
	pprof "$@"
	total=0
	for f in "$@"; do
		gopprof -raw "$f.pb.gz"
		perf_ok report -i "$f" --stats
		n=$(awk '/^ *SAMPLE events:/ { print $3; exit }' "$PERF_OUT")
		[ "$(grep -c "samples of 1 event.* -> $f.pb.gz\$" pprof.err)" = 1 ]
		[ "$(awk -v o="$f.pb.gz" '$NF == o { print $3 }' pprof.err)" = "${n:-0}" ]
		total=$((total + ${n:-0}))
	done
	[ "$total" -gt 1000 ]
	mkdir out
	pprof -q -o out "$@"
	[ "$(ls out | wc -l)" = "$#" ]
	for f in "$@"; do gzip -t "out/$f.pb.gz"; done
	run -2 "$P" pprof -o nodir "$@"
	[[ $output == *"-o nodir: with several FILEs, a directory that exists"* ]]
	run -2 "$P" pprof -i sw.data "$1"
	[[ $output == *"one or the other"* ]]
}

@test "pprof: --off-cpu's offcpu-time in wall nanoseconds, its total the samples' periods" {
	pc_record --off-cpu -g -o off.data -- "$W/sleeper"
	pprof -i off.data -o off.pb.gz --event offcpu-time
	gopprof -raw off.pb.gz
	grep -q '^samples/count wall/nanoseconds\[dflt\]$' gopprof.out
	grep -q '^PeriodType: wall nanoseconds$' gopprof.out
	perf_ok script -i off.data -F event,period
	want=$(awk '$2 == "offcpu-time:" { s += $1 } END { print s + 0 }' "$PERF_OUT")
	[ "$want" -gt 100000000 ]
	gopprof -top -unit=nanoseconds -sample_index=wall off.pb.gz
	got=$(sed -n 's/^Showing nodes accounting for .* of \([0-9]*\)ns total$/\1/p' gopprof.out)
	[ "$got" = "$want" ]
}
