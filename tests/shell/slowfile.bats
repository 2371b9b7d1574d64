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
