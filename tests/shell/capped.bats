#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# The output slower than the data (issue 21): `-o -` into a consumer
# capped at a set rate (pv -q -L RATE), as bench/capped.sh does at scale.

load helpers

setup() {
	common_setup
	need_record
	command -v pv >/dev/null || skip "pv is not installed (scripts/install-deps.sh)"
}

# capped_record CAP FILE RECORD_ARGS... -- COMMAND: perfcap record -o -
# into pv -q -L CAP, saved in FILE; its wall time in seconds in $WALL.
# Fails unless both exit 0.
capped_record() {
	local cap=$1 f=$2 t0 t1
	shift 2
	t0=$(date +%s.%N)
	set -o pipefail
	"$P" record -q -o - "$@" 2>"$BATS_TEST_TMPDIR/record.err" | pv -q -L "$cap" >"$f" || {
		echo "capped pipeline failed: ${PIPESTATUS[*]}" >&2
		sed 's/^/  record: /' "$BATS_TEST_TMPDIR/record.err" >&2
		return 1
	}
	set +o pipefail
	t1=$(date +%s.%N)
	WALL=$(awk "BEGIN { print $t1 - $t0 }")
}

@test "capped: pv -L holds the stream to its rate, and perf reads what came through" {
	capped_record 1m capped.data -F 10000 --call-graph dwarf,4096 -- "$W/phases" -t 2
	bytes=$(stat -c %s capped.data)
	# 1 MiB/s: no more than the cap (pv's first burst aside), and not idle either.
	awk -v b="$bytes" -v w="$WALL" 'BEGIN { exit !(b <= 1048576 * (w + 0.5) && b >= 1048576 * w * 0.5) }' || {
		echo "$bytes bytes in $WALL s through a 1 MiB/s cap" >&2
		return 1
	}
	# Loss is expected here (perf warns of it); the file must still read.
	run --separate-stderr perf report -i - --stdio --sort sym -g none <capped.data
	[ "$status" = 0 ]
	[[ $output =~ deep_burn ]]
}

# uncapped FILE: the same recording as capped_record's, through cat.
uncapped_record() {
	local f=$1
	shift
	set -o pipefail
	"$P" record -q -o - "$@" 2>"$BATS_TEST_TMPDIR/record.err" | cat >"$f"
	set +o pipefail
}

# A recording's counts, as perf report --stats gives them: TYPE N lines.
counts() { # FILE
	perf report --stats -i - <"$1" 2>/dev/null |
		awk '/^Aggregated/ { a = 1; next } / stats:/ { a = 0 } a && $2 == "events:" { print $1, $3 }'
}

count_of() { # TYPE < counts
	awk -v t="$1" '$1 == t { n = $2 } END { print n + 0 }'
}

# The share perf report --sort sym gives SYMBOL in FILE.
share_of() { # FILE SYMBOL
	perf report -i - --stdio --sort sym -g none --no-children <"$1" 2>/dev/null |
		awk -v s="$2" '$3 == s { sub("%", "", $1); print $1; f = 1; exit } END { if (!f) print 0 }'
}

event_count() { # FILE
	perf report -i - --stdio --sort sym -g none <"$1" 2>/dev/null |
		sed -n 's/^# Event count (approx.): //p'
}

# The command: phases (3 s of CPU a thread, half in each phase: -c) while
# 30 short programs start and exit.
WORK_CMD='$W/phases -c -t 3 >/dev/null & for i in $(seq 30); do /bin/true; sleep 0.08; done; wait'

@test "capped: perfcap drains the rings into its budget, drops samples evenly, keeps every task and map record" {
	local cmd=${WORK_CMD//\$W/$W}
	uncapped_record full.data -F 10000 --call-graph dwarf,4096 -- sh -c "$cmd"
	capped_record 3m capped.data --user-buffer-size=8M -F 10000 --call-graph dwarf,4096 -- sh -c "$cmd"
	counts full.data >full.counts
	counts capped.data >capped.counts
	cat full.counts capped.counts
	# The kernel lost nothing: the output was slow, not the readers.
	[ "$(count_of LOST <capped.counts)" = 0 ]
	# perfcap dropped samples and said so, in perf's "Total Lost Samples".
	[ "$(count_of LOST_SAMPLES <capped.counts)" -gt 0 ]
	run -0 --separate-stderr perf report -i - --stdio --sort sym <capped.data
	[[ $output =~ "Total Lost Samples: "[1-9] ]]
	# perfcap loss tells the recorder's drops from the kernel's loss.
	"$P" loss --json - <capped.data >loss.json
	python3 -c 'import json, sys; j = json.load(open("loss.json")); sys.exit(not (j["lost"] == 0 and j["triage_dropped"] > 0 and j["triage_records"] > 0))'
	# Every task and map record of the command is there (+-2: two runs of one command).
	for t in COMM MMAP2 FORK EXIT; do
		full=$(count_of $t <full.counts)
		capped=$(count_of $t <capped.counts)
		echo "$t: $capped of $full" >&2
		[ "$full" -gt 0 ]
		[ "$capped" -ge $((full - 2)) ]
	done
	# Thinned evenly, weighted: each phase keeps its share (within 5 points
	# of the uncapped recording's), the event count its total.
	for sym in deep_burn shallow_burn; do
		a=$(share_of full.data $sym)
		b=$(share_of capped.data $sym)
		echo "$sym: $b% capped, $a% uncapped" >&2
		awk -v a="$a" -v b="$b" 'BEGIN { exit !(a > 20 && a - b < 5 && b - a < 5) }'
	done
	# The event count stands for every sample the kernel gave, kept or dropped
	# (the two runs' counts differ with the CPU the shared machine gave them):
	# within 5% of (kept + dropped) x the uncapped run's mean period.
	kept=$(count_of SAMPLE <capped.counts)
	lost=$(perf report -i - --stdio --sort sym <capped.data 2>/dev/null |
		sed -n 's/^# Total Lost Samples: //p')
	mean=$(awk -v e="$(event_count full.data)" -v n="$(count_of SAMPLE <full.counts)" 'BEGIN { print e / n }')
	echo "event count $(event_count capped.data) for $kept kept + $lost dropped at $mean" >&2
	within_factor "$(event_count capped.data)" "$(awk -v k="$kept" -v l="$lost" -v m="$mean" 'BEGIN { printf "%.0f", (k + l) * m }')" 1.05
}

@test "capped: with --user-buffer-size=0 the readers wait for the output, and the kernel drops (as perf)" {
	capped_record 3m nobudget.data --user-buffer-size=0 -F 10000 --call-graph dwarf,4096 -- "$W/phases" -t 3
	counts nobudget.data >c
	cat c
	[ "$(count_of LOST <c)" -gt 0 ]
}
