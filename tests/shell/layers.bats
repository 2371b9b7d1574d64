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
