#!/usr/bin/env bats
# tests/lint/layers.sh: the wings of src/ include only downwards (src/README.md).

load helpers

TOP=$(cd "$BATS_TEST_DIRNAME/../.." && pwd)

@test "src/ includes only its own wing, the root and the wings below" {
	run "$TOP/tests/lint/layers.sh" "$TOP/src"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == layers:* ]]
}

@test "the layer lint refuses an io/ header that includes record/, and read/ including record/" {
	mkdir -p "$BATS_TEST_TMPDIR/src/io" "$BATS_TEST_TMPDIR/src/read" "$BATS_TEST_TMPDIR/src/record"
	printf '#include "util.h"\n#include "record/mmap.h"\n' >"$BATS_TEST_TMPDIR/src/io/x.h"
	printf '#include "record/rounds.h"\n' >"$BATS_TEST_TMPDIR/src/read/y.c"
	printf '#include "io/output.h"\n#include "perf-file.h"\n' >"$BATS_TEST_TMPDIR/src/record/ok.c"
	run "$TOP/tests/lint/layers.sh" "$BATS_TEST_TMPDIR/src"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"io/x.h:2: io/ includes \"record/mmap.h\""* ]]
	[[ $output == *"read/y.c:1: read/ includes \"record/rounds.h\""* ]]
	[[ $output != *ok.c* ]]
}

# The objects, not the includes: a lower wing that calls up through a
# declaration of its own (as record-control.c once called record__finish
# of cli/builtin-record.c) includes nothing wrong.
@test "the objects of src/ use only their own wing, the root and the wings below" {
	run "$TOP/tests/lint/calls.sh" "$(dirname "$WORKLOADS")"
	echo "$output"
	[ "$status" -eq 0 ]
	[[ $output == calls:*" objects under "* ]]
}

@test "the call lint refuses record/ calling into cli/ and read/ using record/" {
	local d=$BATS_TEST_TMPDIR/obj
	mkdir -p "$d/record" "$d/cli" "$d/read" "$d/io"
	printf 'int cmd_up(void) { return 1; }\n' >"$d/cli/up.c"
	printf 'int cmd_up(void);\nint io_down(void);\nint rec_f(void) { return cmd_up() + io_down(); }\n' >"$d/record/a.c"
	printf 'int rec_f(void);\nint rd_g(void) { return rec_f(); }\n' >"$d/read/b.c"
	printf 'int io_down(void) { return 0; }\n' >"$d/io/down.c"
	printf 'int rec_f(void);\nint cli_h(void) { return rec_f(); }\n' >"$d/cli/ok.c"
	for c in "$d"/*/*.c; do
		cc -c -o "${c%.c}.o" "$c"
	done
	run "$TOP/tests/lint/calls.sh" "$d"
	echo "$output"
	[ "$status" -eq 1 ]
	[[ $output == *"record/a.o: record/ uses cmd_up of cli/, which is not below it"* ]]
	[[ $output == *"read/b.o: read/ uses rec_f of record/, which is not below it"* ]]
	[[ $output != *io_down* ]]
	[[ $output != *ok.o* ]]
}

# A file over this holds two ideas (issue 34: options.c had the option
# engine, record's handlers and the value parsers in 1,725 lines).
@test "no .c under src/ is over 1,300 lines" {
	local big
	big=$(find "$TOP/src" -name '*.c' -exec wc -l {} + | awk '$2 != "total" && $1 > 1300')
	echo "$big"
	[ -z "$big" ]
	# The check reads every file: it found the largest one.
	[ "$(find "$TOP/src" -name '*.c' | wc -l)" -gt 50 ]
}
