#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# perfcap loss, and the loss perfcap record reports: the numbers must be the
# ones upstream perf counts in the same file (perfcap-loss(1)).
#
# Loss is forced with a one-page ring and a high fixed rate with call
# graphs. (-c 10000, a sample every 10 us, costs this 2-CPU VM minutes of
# system time and soft lockups; -c 50000 loses data as reliably.)

load helpers

setup() {
	common_setup
	need_record
	need_python
}

LOSSY_OPTS=(-e cpu-clock -c 50000 -m 1 -g -a)

# A field of the JSON object on stdin: a path like "samples", "events.0.name"
# or "cpus.length".
json() { # PATH
	python3 -c '
import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1].split("."):
    v = len(v) if k == "length" else v[int(k)] if isinstance(v, list) else v[k]
print("null" if v is None else v)' "$1"
}

# perf record with forced loss into $1 (a file, or a directory with
# --threads in $2; $2 holds any more options, split at spaces).
upstream_lossy() { # OUT [OPTIONS]
	rm -rf "$1"
	perf_record ${2:-} "${LOSSY_OPTS[@]}" -o "$1" -- "$W/parallel" -t 1
}

# Upstream perf warns about loss, as it should: here its stderr is not checked.
raw_stats() { perf report --stats -i "$1" 2>/dev/null | stats_norm; }

# The numbers perfcap loss --json gives agree with perf's for FILE|DIR.
loss_agrees_with_perf() { # FILE|DIR
	local f=$1 stats j n total=0 i name ls sum
	stats=$(raw_stats "$f")
	echo "perf report --stats:"; echo "$stats"
	run -0 "$P" loss --json "$f"
	j=$output
	echo "perfcap loss --json:"; echo "$j"
	[ "$(json samples <<<"$j")" = "$(stat_of Aggregated SAMPLE <<<"$stats")" ]
	[ "$(json lost_records <<<"$j")" = "$(stat_of Aggregated LOST <<<"$stats")" ]
	[ "$(json lost_samples_records <<<"$j")" = "$(stat_of Aggregated LOST_SAMPLES <<<"$stats")" ]
	# Per event: samples and LOST_SAMPLES as perf report --stats prints them.
	n=$(json events.length <<<"$j")
	for ((i = 0; i < n; i++)); do
		name=$(json events.$i.name <<<"$j")
		ls=$(json events.$i.lost_samples <<<"$j")
		[ "$(json events.$i.samples <<<"$j")" = "$(stat_of "$name" SAMPLE <<<"$stats")" ]
		[ "$ls" = "$(stat_of "$name" LOST_SAMPLES <<<"$stats")" ]
		total=$((total + ls))
	done
	[ "$(json lost_samples <<<"$j")" = "$total" ]
	# lost_events is the sum of the LOST records' lost fields, as
	# perf report -D prints them: "PERF_RECORD_LOST: id:1219: lost:1630".
	sum=$(perf report -D -i "$f" 2>/dev/null |
		awk '/: PERF_RECORD_LOST: / { sub(/.*lost:/, ""); s += $1 } END { print s + 0 }')
	[ "$(json lost_events <<<"$j")" = "$sum" ]
}

@test "perfcap loss agrees with perf report --stats on an upstream recording that lost data" {
	upstream_lossy lossy.data
	lost=$(raw_stats lossy.data | stat_of Aggregated LOST)
	[ "$lost" -gt 0 ] || skip "perf record lost nothing this time"
	loss_agrees_with_perf lossy.data
	# perf report's "Total Lost Samples" is lost_samples.
	perf report -i lossy.data --stdio >report.out 2>/dev/null
	tls=$(sed -n 's/^# Total Lost Samples: //p' report.out | head -1)
	[ "$(perfcap_json lossy.data lost_samples)" = "$tls" ]
	# The table says the same.
	run -0 "$P" loss lossy.data
	echo "$output"
	grep -qE "^ *LOST records +$lost " <<<"$output"
	# The warning detector of the other tests sees perf's loss warning.
	run perf_ok report -i lossy.data --stdio
	[ "$status" = 1 ]
	grep -q 'lost' <<<"$output"
}

@test "perf record -z (a file and a --threads directory): loss and dump count inside COMPRESSED as perf does" {
	perf version --build-options 2>/dev/null | grep -qE 'zstd: \[ on' ||
		skip "this perf was built without zstd"
	for opts in -z "--threads -z"; do
		upstream_lossy z.data "$opts"
		stats=$(raw_stats z.data)
		echo "perf record $opts:"; echo "$stats"
		compressed=$(stat_of Aggregated COMPRESSED <<<"$stats")
		[ "$compressed" -gt 0 ]
		[ "$(stat_of Aggregated SAMPLE <<<"$stats")" -gt 100 ]
		# Every count, record type by record type, COMPRESSED included.
		[ "$(our_stats z.data)" = "$stats" ]
		loss_agrees_with_perf z.data
		[ "$(perfcap_json z.data compressed_records)" = "$compressed" ]
		run -0 "$P" loss z.data
		[[ $output != *"not counted"* ]]
	done
}

perfcap_json() { # FILE KEY
	"$P" loss --json "$1" | json "$2"
}

@test "perfcap loss --json parses and has every key perfcap-loss(1) documents" {
	pc_record -o clean.data -e cpu-clock -a -- sleep 0.3
	run -0 "$P" loss --json clean.data
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
ints = ["samples", "samples_unknown_event", "lost_records", "lost_events",
        "lost_samples_records", "lost_samples", "lost_samples_final", "lost",
        "throttle", "unthrottle", "compressed_records"]
opt_ints = ["first_time_ns", "last_time_ns", "elapsed_time_ns", "lost_time_ns"]
opt_nums = ["loss_fraction", "lost_time_fraction"]
doc = {"file", "events", "cpus"} | set(ints) | set(opt_ints) | set(opt_nums)
missing = doc - set(d)
assert not missing, "missing keys: %s" % sorted(missing)
assert d["file"] == "clean.data", d["file"]
for k in ints:
    assert type(d[k]) is int, (k, d[k])
for k in opt_ints:
    assert d[k] is None or type(d[k]) is int, (k, d[k])
for k in opt_nums:
    assert d[k] is None or type(d[k]) in (int, float), (k, d[k])
assert isinstance(d["events"], list) and d["events"], d["events"]
for e in d["events"]:
    assert {"name", "samples", "lost_samples"} <= set(e), e
assert [e["name"] for e in d["events"]] == ["cpu-clock"], d["events"]
assert isinstance(d["cpus"], list) and d["cpus"], d["cpus"]
for c in d["cpus"]:
    assert {"cpu", "samples", "lost_records", "lost_events", "lost_time_ns"} <= set(c), c
    assert type(c["cpu"]) is int or c["cpu"] == "unknown", c
# A clean recording: nothing lost, the times defined.
assert d["samples"] > 100 and d["lost"] == 0 and d["lost_records"] == 0, d
assert d["loss_fraction"] == 0, d["loss_fraction"]
assert d["elapsed_time_ns"] == d["last_time_ns"] - d["first_time_ns"] > 0, d
assert 0.2e9 < d["elapsed_time_ns"] < 5e9, d["elapsed_time_ns"]
assert sum(c["samples"] for c in d["cpus"]) == d["samples"]
assert sum(e["samples"] for e in d["events"]) == d["samples"]
' "$output"
	[ "$(perfcap_json clean.data samples)" = "$(perf_samples clean.data)" ]
}

@test "perfcap record with tiny rings: lost > 0, said on stderr, the same in perfcap loss and perf" {
	# 2 KiB dwarf stacks in 4 KiB rings: with -g alone perfcap kept up,
	# and the test skipped, in up to 3 of some 15 full runs on 2026-11-30.
	run -0 "$P" record "${LOSSY_OPTS[@]}" --call-graph dwarf,2048 -o tiny.data -- "$W/parallel" -t 1
	echo "$output"
	summary=$(grep 'perfcap record: .* lost ' <<<"$output")
	read -r lost records <<<"$(sed -nE 's/.*lost ([0-9]+) samples \([0-9.]+%, ([0-9]+) LOST records\).*/\1 \2/p' <<<"$summary")"
	echo "summary: lost $lost samples, $records LOST records"
	[ -n "$lost" ]
	[ "$lost" -gt 0 ] || skip "perfcap kept up with -m 1 -c 50000 and dwarf stacks this time"
	run -0 "$P" loss --json tiny.data
	j=$output
	python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["lost"] > 0 and 0 < d["loss_fraction"] < 1, d
# perfcap-loss(1): lost = (lost_samples - final) + max(lost_events, final)
f = d["lost_samples_final"]
assert d["lost"] == d["lost_samples"] - f + max(d["lost_events"], f), d
assert abs(d["loss_fraction"] - d["lost"] / (d["lost"] + d["samples"])) < 1e-5, d
assert sum(c["lost_records"] for c in d["cpus"]) == d["lost_records"], d
assert sum(c["lost_events"] for c in d["cpus"]) == d["lost_events"], d
assert d["lost_time_ns"] is not None and 0 < d["lost_time_ns"] <= d["elapsed_time_ns"], d
' "$j"
	# The recorder's summary and perfcap loss say the same.
	[ "$(json lost <<<"$j")" = "$lost" ]
	[ "$(json lost_records <<<"$j")" = "$records" ]
	loss_agrees_with_perf tiny.data
}

@test "perfcap loss reads a perf record --threads directory" {
	upstream_lossy thr.data --threads
	[ -d thr.data ] || skip "perf record --threads wrote no directory"
	ls thr.data
	[ -e thr.data/data.0 ]
	loss_agrees_with_perf thr.data
	[ "$(perfcap_json thr.data file)" = thr.data ]
	[ "$(perfcap_json thr.data samples)" -gt 1000 ]
	# CPUs come from the per-thread streams: each one recorded samples.
	[ "$("$P" loss --json thr.data | python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["cpus"] if c["samples"] > 0))')" = "$(nproc)" ]
	run -0 "$P" loss thr.data
	grep -qE '^ *samples +[0-9]+' <<<"$output"
}
