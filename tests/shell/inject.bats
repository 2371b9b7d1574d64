#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# perfcap inject --convert-callchain (issue 31): a DWARF recording's
# samples unwound into callchains. Upstream perf is the oracle: its own
# unwinding of the raw file (libunwind) and its reading of the converted
# callchains must print the same frames, sample by sample. perf 6.1 adds
# inline frames only to chains it unwinds itself, so the comparison is
# --no-inline (perfcap-inject(1) says so).

load helpers

setup() {
	common_setup
	need_record
}

# chains FILE: perf script's frames of FILE, no inline frames, in $PERF_OUT.
chains() {
	perf_ok script -i "$1" -F comm,tid,ip,sym --no-inline
}

# same_chains RAW CONV [PERCENT]: perf's unwinding of RAW and its reading
# of CONV give the same frames for at least PERCENT (default 99) of the
# samples, in the same order, and there are more than 100. perf ends a
# chain cut by the stack copy's end with a frame ffffffffffffffff (its
# access_mem reads 0 past the copy, and 0 less one is that): it is left
# out of perf's side, perfcap writes no such frame.
same_chains() {
	local raw=$1 conv=$2 pct=${3:-99}
	chains "$raw"
	mv "$PERF_OUT" raw.chains
	chains "$conv"
	mv "$PERF_OUT" conv.chains
	awk -v pct="$pct" '
	BEGIN { RS = ""; FS = "\n" }
	FNR == 1 { f++ }
	{ sub(/\n[[:space:]]*ffffffffffffffff \[unknown\]$/, "") }
	f == 1 { raw[FNR] = $0; nr = FNR; next }
	{ nc = FNR; if ($0 == raw[FNR]) same++; else if (!shown++) print "first difference:\n" raw[FNR] "\n--- perfcap:\n" $0 > "/dev/stderr" }
	END {
		printf "samples: %d raw, %d converted, %d the same (%.2f%%)\n", nr, nc, same, 100 * same / (nr ? nr : 1)
		exit !(nr > 100 && nr == nc && same * 100 >= pct * nr)
	}' raw.chains conv.chains
}

# inject ARGS...: perfcap inject --convert-callchain ARGS; must exit 0;
# its summary in inject.err.
inject() {
	local rc=0
	"$P" inject --convert-callchain "$@" 2>inject.err || rc=$?
	cat inject.err >&2
	[ "$rc" = 0 ]
}

@test "inject: perf's DWARF recording, converted, gives perf's own chains at a tenth of the bytes" {
	perf_record -q -F 2000 --call-graph dwarf -o raw.data -- "$W/parallel" -j 2 -t 1
	inject -i raw.data -o conv.data
	same_chains raw.data conv.data
	# perf reads callchains now, through main and thread_main.
	perf_ok script -i conv.data -F ip,sym --no-inline
	dwarf_chains_reach_main
	[ $(($(stat -c %s conv.data) * 10)) -lt "$(stat -c %s raw.data)" ]
	grep -E '^perfcap inject: [0-9]+ DWARF samples unwound' inject.err
	# The attrs say callchains, no user registers or stack.
	perf_ok evlist -v -i conv.data
	grep -q 'CALLCHAIN' "$PERF_OUT"
	refute grep -qE 'REGS_USER|STACK_USER' "$PERF_OUT"
	perf_ok report --header-only -i conv.data
	[ "$(perf_samples conv.data)" = "$(perf_samples raw.data)" ]
	[ "$(our_stats conv.data)" = "$(perf_stats conv.data)" ]
}

@test "inject: every record but the samples passes unchanged, in order" {
	perf_record -q -F 1000 --call-graph dwarf -o raw.data -- "$W/parallel" -j 2 -t 1
	inject -i raw.data -o conv.data
	perf_ok report -D -i raw.data
	grep -E '^(0 )?0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_' "$PERF_OUT" |
		sed 's/^.*\]: //' | grep -v '^PERF_RECORD_SAMPLE' >raw.records
	perf_ok report -D -i conv.data
	grep -E '^(0 )?0x[0-9a-f]+ \[0x[0-9a-f]+\]: PERF_RECORD_' "$PERF_OUT" |
		sed 's/^.*\]: //' | grep -v '^PERF_RECORD_SAMPLE' >conv.records
	[ "$(wc -l <raw.records)" -gt 20 ]
	cmp raw.records conv.records
}

@test "inject: processes that fork and exec: the maps of each at its samples' time" {
	# Two programs in turn from one shell: the second's maps replace the
	# first's at its exec, and each sample must unwind with its own. perf
	# 6.1's own unwinding loses outer frames in processes that a shell
	# forked and exec'd (it keeps the shell's maps past the exec; see
	# bench/results/2026-12-04-unwind-fidelity/), so the oracle here is
	# the chain every sample of these programs has when perf records them
	# directly: through main to _start, or through start_thread.
	perf_record -q -F 2000 --call-graph dwarf,16384 -o raw.data -- \
		sh -c "'$W/parallel' -j 1 -t 1; '$W/phases' -j 1 -t 1 -d 4"
	inject -i raw.data -o conv.data
	chains conv.data
	awk 'BEGIN { RS = ""; FS = "\n" }
	     /^(parallel|phases) / && /(burn|shallow_burn|deep_burn)( |\n)/ {
		n++
		if ($0 ~ / _start\n?$/ || $0 ~ / clone3\n?$/) whole++
	     }
	     END { printf "%d burn samples, %d through to _start or clone3\n", n, whole
		   exit !(n > 500 && whole * 100 >= n * 99) }' "$PERF_OUT"
	grep -q ' burn$' "$PERF_OUT"
	grep -q 'shallow_burn' "$PERF_OUT"
}

@test "inject: chains through a signal handler: the trampoline's frame less one, the interrupted one as it is" {
	perf_record -q -F 2000 --call-graph dwarf -o raw.data -- "$W/sigburn" -t 1
	inject -i raw.data -o conv.data
	same_chains raw.data conv.data
	# Samples in the handler unwind through the trampoline (libc's
	# __restore_rt, which has no symbol perf finds) into the code it interrupted.
	awk 'BEGIN { RS = "" } / in_handler\n[^\n]* handler\n[^\n]*\n[^\n]* outside\n[^\n]* main\n/ { n++ }
	     END { print n + 0 " chains through the signal frame"; exit !(n > 20) }' conv.chains
}

@test "inject: perfcap's own DWARF recording, and with -z" {
	pc_record -F 2000 --call-graph dwarf -o raw.data -- "$W/parallel" -j 2 -t 1
	inject -i raw.data -o conv.data
	same_chains raw.data conv.data
	pc_record -z -F 2000 --call-graph dwarf -o z.data -- "$W/parallel" -j 2 -t 1
	inject -i z.data -o zconv.data
	same_chains z.data zconv.data
	# The output holds no compressed records and does not say it is compressed.
	[ "$(our_stats zconv.data | stat_of Aggregated COMPRESSED)" = 0 ]
	[ "$(our_stats z.data | stat_of Aggregated COMPRESSED)" -gt 0 ]
	perf_ok report --header-only -i zconv.data
	refute grep -q '^# compressed' "$PERF_OUT"
}

@test "inject: a pipe-format recording, from stdin to stdout" {
	set -o pipefail
	perf_record -q -F 2000 --call-graph dwarf -o - -- "$W/parallel" -j 2 -t 1
	mv "$BATS_TEST_TMPDIR/perf-record.out" raw.data
	"$P" inject --convert-callchain -i - -o - <raw.data 2>inject.err | cat >conv.data
	cat inject.err >&2
	[ "$(head -c 8 conv.data)" = PERFILE2 ]
	same_chains raw.data conv.data
	perf_ok script -i conv.data -F ip,sym --no-inline
	dwarf_chains_reach_main
}

@test "inject: the same bytes with one thread and with two" {
	perf_record -q -F 2000 --call-graph dwarf -o raw.data -- "$W/parallel" -j 2 -t 1
	inject -j 1 -i raw.data -o one.data
	inject -j 2 -i raw.data -o two.data
	cmp one.data two.data
}

@test "inject: hotspot's parser reads the converted file, every sample" {
	need_hotspot_perfparser
	perf_record -q -F 2000 --call-graph dwarf -o raw.data -- "$W/parallel" -j 2 -t 1
	inject -i raw.data -o conv.data
	"$HOTSPOT_PP" --print-stats --input conv.data 2>hs.err | strings >stats
	cat stats >&2
	[ "$(awk '/^samples:/ { print $2 }' stats)" = "$(perf_samples conv.data)" ]
}

# raw.data: a copy of the workload, recorded without the build-id cache,
# then deleted: nothing has its CFI any more. A HOME of its own: the other
# tests' perf record put the workload (the same build id) in theirs.
gone_recording() {
	export HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME"
	cp "$W/parallel" ./gone
	pc_record -N -F 2000 --call-graph dwarf -o raw.data -- ./gone -j 1 -t 1
	rm ./gone
}

@test "inject: a DSO whose file is gone stops its samples early, keeps what was found, and says so" {
	gone_recording
	inject -i raw.data -o conv.data
	grep -E '^  [0-9]+ \([0-9.]+%\) stopped: DSO file not found' inject.err
	grep -E "^    [0-9]+ in .*/gone \(file not found\)" inject.err
	# The sampled IP is kept: each sample still has its first frame, in gone.
	perf_ok script -i conv.data -F ip,dso --no-inline
	[ "$(grep -c '(.*/gone)$' "$PERF_OUT")" -gt 1000 ]
}

@test "loss --unwind: how many samples of a DWARF recording unwind whole, and why the others stop" {
	gone_recording
	run -0 "$P" loss --unwind raw.data
	echo "$output"
	# The loss table first, then the unwinding, the same numbers inject gives.
	[[ "$output" == *"Unwinding (perfcap inject --convert-callchain):"* ]]
	grep -E '^  [0-9]+ DWARF samples unwound by [0-9]+ threads? in [0-9.]+ s: 0 whole' <<<"$output"
	grep -E '^  [0-9]+ \([0-9.]+%\) stopped: DSO file not found' <<<"$output"
	grep -E '^    [0-9]+ in .*/gone \(file not found\)' <<<"$output"
	inject -i raw.data -o conv.data
	[ "$(grep -Eo '[0-9]+ DWARF samples' inject.err)" = "$(grep -Eo '[0-9]+ DWARF samples' <<<"$output")" ]
	# A recording without DWARF stacks has nothing to unwind, and says so.
	pc_record -F 1000 -g -o fp.data -- "$W/parallel" -j 1 -t 0.2
	run -0 "$P" loss --unwind fp.data
	[[ "$output" == *"nothing to unwind"* ]]
	run -2 "$P" loss --unwind --json raw.data
}

@test "inject: a recording without DWARF stacks, or not a recording, is refused clearly" {
	pc_record -F 1000 -g -o fp.data -- "$W/parallel" -j 1 -t 0.2
	run "$P" inject --convert-callchain -i fp.data -o out.data
	echo "$output"
	[ "$status" = 1 ]
	[[ "$output" == *"no DWARF stacks"*"--call-graph dwarf"* ]]
	head -c 4096 /dev/urandom >junk.data
	run "$P" inject --convert-callchain -i junk.data -o out.data
	echo "$output"
	[ "$status" = 1 ]
	[[ "$output" == *"junk.data"* ]]
}

@test "inject: usage errors exit 2" {
	run "$P" inject -i perf.data -o out.data
	[ "$status" = 2 ]
	[[ "$output" == *"--convert-callchain"* ]]
	run "$P" inject --convert-callchain -i perf.data
	[ "$status" = 2 ]
	[[ "$output" == *"-o OUT is required"* ]]
	run "$P" inject --convert-callchain -i a.data -o a.data
	[ "$status" = 2 ]
	run "$P" inject --convert-callchain -j 0 -i a.data -o b.data
	[ "$status" = 2 ]
	run "$P" inject --bogus
	[ "$status" = 2 ]
}

@test "inject: -o - of a perf.data file (not a pipe recording) is refused" {
	pc_record -F 1000 --call-graph dwarf -o raw.data -- "$W/parallel" -j 1 -t 0.2
	run "$P" inject --convert-callchain -i raw.data -o -
	[ "$status" = 1 ]
	[[ "$output" == *"pipe-format"* ]]
}
