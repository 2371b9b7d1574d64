#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The output slower than the data (issue 21) on a regular file: a FUSE
# mount whose writes are capped (bench/fixtures/slowfs.c), as a slow disk
# or a network filesystem would be. capped.bats does the same for a pipe.

load helpers

setup() {
	common_setup
	need_record
}

teardown() {
	unmount_slowfs
}

@test "slowfile: slowfs holds a file's writes to its rate and keeps every byte" {
	mount_slowfs 1m
	SECONDS=0
	dd if=/dev/urandom of="$BATS_TEST_TMPDIR/src" bs=1M count=3 status=none
	t0=$(date +%s.%N)
	cp "$BATS_TEST_TMPDIR/src" "$SLOW/f"
	t1=$(date +%s.%N)
	echo "3 MiB in $(awk "BEGIN { print $t1 - $t0 }") s; $(cat "$SLOW/.slowfs-stats")"
	# No faster than the link: 3 MiB at 1 MiB/s.
	awk -v a="$t0" -v b="$t1" 'BEGIN { exit !(b - a >= 2.9) }'
	[ "$(slowfs_stat bytes)" = 3145728 ]
	[ "$(slowfs_stat busy_ns)" -ge 2999000000 ]
	cmp "$BATS_TEST_TMPDIR/src" "$SLOW_BACKING/f"
	# Writing to the stats file resets them.
	echo > "$SLOW/.slowfs-stats"
	[ "$(slowfs_stat bytes)" = 0 ]
}

# capped_file WRITER...: phases for 2 s with DWARF stacks into a file
# capped at 3 MiB/s, an 8 MiB budget; then what perf and perfcap see.
capped_file() {
	mount_slowfs 3m
	pc_record "$@" --user-buffer-size=8M -F 10000 --call-graph dwarf,4096 -o "$SLOW/f.data" -- "$W/phases" -t 2
	cat "$BATS_TEST_TMPDIR/record.err"
	f=$SLOW_BACKING/f.data
	# What the link carried is the file (the header rewritten at the end is in both).
	echo "file $(stat -c %s "$f") bytes; $(cat "$SLOW/.slowfs-stats")"
	[ "$(slowfs_stat bytes)" -ge "$(stat -c %s "$f")" ]
	# perf reads it all; its one warning is the dropped samples' (LOST_SAMPLES).
	run --separate-stderr perf script -i "$f" -F tid,ip,sym
	[ "$status" = 0 ]
	[ "${#lines[@]}" -gt 1000 ]
	echo "perf script: ${#lines[@]} lines; stderr: $stderr"
	[ -z "$(grep -vE '^ *(Warning:|Processed [0-9]+ samples and lost [0-9.]+%!)? *$' <<<"$stderr")" ]
	"$P" loss --json "$f" >loss.json
	cat loss.json
	# The kernel lost nothing: no reader waited for the slow file.
	python3 -c 'import json, sys; j = json.load(open("loss.json")); sys.exit(not (j["lost"] == 0 and j["triage_dropped"] > 0))'
	run -0 --separate-stderr perf report -i "$f" --stdio --sort sym
	[[ $output =~ "Total Lost Samples: "[1-9] ]]
	[[ $output =~ deep_burn ]]
}

@test "slowfile: the sync writer on a slow file: the kernel drops nothing, perfcap thins and says so" {
	capped_file
}

@test "slowfile: --aio on a slow file: the kernel drops nothing, perfcap thins and says so" {
	capped_file --aio
}

@test "slowfile: io_uring on a slow file: the kernel drops nothing, perfcap thins and says so" {
	need_io_uring
	capped_file --writer=uring
}
