#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# perfcap loss, and the loss perfcap record reports: the numbers must be the
# ones upstream perf counts in the same file (perfcap-loss(1)).
#
# Loss is forced: one-page rings, a high fixed rate with call graphs, and
# the recorder stopped for half a second while the workload runs (STALLED
# in helpers.bash), so that the kernel loses samples on every run, not only on
# a busy day: a recording that lost nothing would check nothing, and a
# loss count that says 0 must fail. (-c 10000, a sample every 10 us, costs
# this 2-CPU VM minutes of system time and soft lockups; -c 50000 is
# enough.)

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
# --threads in $2; $2 holds any more options, split at spaces). perf 6.1
# sometimes aborts in its build-id pass on a busy machine: tried three
# times, then skipped, as perf_record does (perf is the oracle here).
upstream_lossy() { # OUT [OPTIONS]
	local try rc rec
	for try in 1 2 3; do
		rm -rf "$1"
		# shellcheck disable=SC2086
		rc=0
		perf record ${2:-} "${LOSSY_OPTS[@]}" -o "$1" -- "${STALLED[@]}" \
			>"$BATS_TEST_TMPDIR/perf-record.out" 2>"$BATS_TEST_TMPDIR/perf-record.err" || rc=$?
		[ "$rc" = 0 ] && return 0
		echo "perf record exited $rc (try $try):" >&2
		tail -3 "$BATS_TEST_TMPDIR/perf-record.err" >&2
	done
	skip "upstream perf record failed $try times"
}

# Upstream perf warns about loss, as it should: here its stderr is not checked.
raw_stats() { perf report --stats -i "$1" 2>/dev/null | stats_norm; }

# The numbers perfcap loss --json gives agree with perf's for FILE|DIR.
loss_agrees_with_perf() { # FILE|DIR
	local f=$1 stats j n total=0 i name ls sum try rc
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
	# perf 6.1 may crash on a busy machine (helpers.bash, perf_ok): a
	# dump it did not finish is no sum; tried three times.
	for try in 1 2 3; do
		rc=0
		perf report -D -i "$f" >dump.out 2>dump.err || rc=$?
		[ "$rc" = 0 ] && break
		echo "perf report -D exited $rc (try $try): $(tail -2 dump.err)"
	done
	[ "$rc" = 0 ]
	sum=$(awk '/: PERF_RECORD_LOST: / { sub(/.*lost:/, ""); s += $1 } END { print s + 0 }' dump.out)
	echo "LOST records' lost fields in perf report -D: $sum"
	[ "$(json lost_events <<<"$j")" = "$sum" ]
}

@test "perfcap loss agrees with perf report --stats on an upstream recording that lost data" {
	upstream_lossy lossy.data
	lost=$(raw_stats lossy.data | stat_of Aggregated LOST)
	[ "$lost" -gt 0 ]
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
		# The picture reads inside COMPRESSED too: a rate for every CPU.
		"$P" loss --svg z.data >z.svg
		[ "$(svg_facts z.svg | python3 -c 'import json,sys; print(json.load(sys.stdin)["panels"][0]["rates"])')" = \
			"$(("$(perfcap_json z.data cpus.length)" + 1))" ]
	done
}

perfcap_json() { # FILE KEY
	local j
	j=$("$P" loss --json "$1")
	json "$2" <<<"$j"
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
# -a: the tracking event perf 6.1 adds follows the one asked for, sampling nothing
assert [e["name"] for e in d["events"]] == ["cpu-clock", "dummy:HG"], d["events"]
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
	# 2 KiB dwarf stacks in 4 KiB rings, and the recorder stopped for half
	# a second: without the stop perfcap kept up, and the test skipped, in
	# up to 3 of some 15 full runs on 2026-11-30.
	rc=0
	"$P" record "${LOSSY_OPTS[@]}" --call-graph dwarf,2048 -o tiny.data -- "${STALLED[@]}" \
		>tiny.out 2>tiny.err || rc=$?
	output=$(cat tiny.out tiny.err)
	echo "$output"
	[ "$rc" = 0 ]
	summary=$(grep 'perfcap record: .* lost ' <<<"$output")
	read -r lost records <<<"$(sed -nE 's/.*lost ([0-9]+) samples \([0-9.]+%, ([0-9]+) LOST records\).*/\1 \2/p' <<<"$summary")"
	echo "summary: lost $lost samples, $records LOST records"
	[ -n "$lost" ]
	[ "$lost" -gt 0 ]
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
	j=$("$P" loss --json thr.data)
	[ "$(python3 -c 'import json,sys; print(sum(1 for c in json.load(sys.stdin)["cpus"] if c["samples"] > 0))' <<<"$j")" = "$(nproc)" ]
	run -0 "$P" loss thr.data
	grep -qE '^ *samples +[0-9]+' <<<"$output"
}

# ---- the picture, two files, the live status line ----------------------

# FILE.svg is well-formed XML with an <svg> root; prints what the test needs
# to know of it as JSON: the title text, the panels (file, t0) and the
# shaded intervals (row, start, end, x, width) of each.
svg_facts() { # SVG
	python3 - "$1" <<'PY'
import json, sys
import xml.etree.ElementTree as ET
ns = "{http://www.w3.org/2000/svg}"
root = ET.parse(sys.argv[1]).getroot()
assert root.tag == ns + "svg", root.tag
w, h = float(root.get("width")), float(root.get("height"))
assert root.get("viewBox") == "0 0 %g %g" % (w, h), root.get("viewBox")
panels = []
for g in root.iter(ns + "g"):
    if g.get("class") != "panel":
        continue
    texts = ["".join(t.itertext()) for t in g.iter(ns + "text")]
    x0, nspp, t0 = float(g.get("data-x0")), float(g.get("data-ns-per-px")), int(g.get("data-t0-ns"))
    shades = []
    for r in g.iter(ns + "rect"):
        if r.get("class") != "lost":
            continue
        s, e = int(r.get("data-start-ns")), int(r.get("data-end-ns"))
        x, wd = float(r.get("x")), float(r.get("width"))
        # each shade sits where the axis puts its times
        assert abs(x - (x0 + (s - t0) / nspp)) < 0.01, (x, s)
        assert x + wd >= x0 + (e - t0) / nspp - 0.01, (x, wd, e)
        assert r.find(ns + "title") is not None
        shades.append({"row": r.get("data-cpu"), "start": s, "end": e})
    rows = sum(1 for p in g.iter(ns + "path"))
    panels.append({"file": g.get("data-file"), "t0": t0, "head": texts[:3],
                   "rates": rows, "shades": shades})
print(json.dumps({"title": root.find(ns + "title").text, "panels": panels}))
PY
}

@test "perfcap loss --svg and --html: well-formed, the command line and the numbers in the title, one row per CPU" {
	pc_record -o clean.data -e cpu-clock -a -- sleep 0.3
	run -0 "$P" loss --svg clean.data
	printf '%s\n' "$output" >clean.svg
	facts=$(svg_facts clean.svg)
	echo "$facts"
	j=$("$P" loss --json clean.data)
	python3 - "$facts" "$j" <<'PY'
import json, sys
f, j = json.loads(sys.argv[1]), json.loads(sys.argv[2])
assert f["title"] == "perfcap loss: clean.data", f["title"]
[p] = f["panels"]
assert p["file"] == "clean.data" and p["t0"] == j["first_time_ns"], p
head = p["head"]
assert head[0] == "clean.data", head
# CMDLINE: the recording's own command line
assert " record -o clean.data -e cpu-clock -a -- sleep 0.3" in head[1], head[1]
assert head[2].startswith("%d samples, lost 0 (0.00%%) in 0 LOST records" % j["samples"]), head[2]
# "all", then one rate per CPU that the numbers list
assert p["rates"] == 1 + len(j["cpus"]), (p["rates"], j["cpus"])
assert p["shades"] == [], p["shades"]
PY
	# The HTML page: the same picture inline, a legend, the numbers.
	run -0 "$P" loss --html clean.data
	printf '%s\n' "$output" >clean.html
	python3 - clean.html "$(json samples <<<"$j")" <<'PY'
import sys
import xml.etree.ElementTree as ET
from html.parser import HTMLParser
text = open(sys.argv[1]).read()
assert text.startswith("<!DOCTYPE html>"), text[:40]
class P(HTMLParser):
    def __init__(self):
        super().__init__(); self.tags = []; self.cells = []; self.cur = None
    def handle_starttag(self, t, a):
        self.tags.append(t)
        if t in ("td", "th"): self.cur = ""
    def handle_data(self, d):
        if self.cur is not None: self.cur += d
    def handle_endtag(self, t):
        if t in ("td", "th"): self.cells.append(self.cur); self.cur = None
p = P(); p.feed(text)
for t in ("svg", "table", "ul", "details"):
    assert t in p.tags, t
i = p.cells.index("samples")
assert p.cells[i + 1] == sys.argv[2], p.cells[i:i + 2]
svg = text[text.index("<svg "):text.index("</svg>") + 6]
ET.fromstring(svg)
PY
	# An image viewer's library draws it at its size (librsvg, when installed).
	if command -v rsvg-convert >/dev/null; then
		rsvg-convert -o clean.png clean.svg
		python3 -c '
import struct, sys
d = open(sys.argv[1], "rb").read(24)
assert d[:8] == b"\x89PNG\r\n\x1a\n", d[:8]
w, h = struct.unpack(">II", d[16:24])
assert w == 1200 and 200 < h < 1100, (w, h)' clean.png
	fi
	# Nothing else: usage errors.
	run -2 "$P" loss --svg --html clean.data
	run -1 "$P" loss --svg nope.data
	[ ! -s nope.data ]
}

@test "perfcap loss --svg of a lossy --threads directory shades the lost intervals within the recording" {
	upstream_lossy thr.data --threads
	[ -d thr.data ] || skip "perf record --threads wrote no directory"
	j=$("$P" loss --json thr.data)
	[ "$(json lost_records <<<"$j")" -gt 0 ]
	run -0 "$P" loss --svg thr.data
	printf '%s\n' "$output" >thr.svg
	facts=$(svg_facts thr.svg)
	python3 - "$facts" "$j" <<'PY'
import json, sys
f, j = json.loads(sys.argv[1]), json.loads(sys.argv[2])
[p] = f["panels"]
assert " record " in p["head"][1] and "--threads" in p["head"][1], p["head"]
assert p["rates"] == 1 + len(j["cpus"]), p["rates"]
rows = {}
for s in p["shades"]:
    assert j["first_time_ns"] <= s["start"] < s["end"] <= j["last_time_ns"], s
    rows.setdefault(s["row"], []).append(s)
# Shades on each CPU that has LOST records with a gap, and none elsewhere;
# the "all" row covers at least the lost time (it merges sub-pixel gaps).
for c in j["cpus"]:
    name = "cpu %s" % c["cpu"]
    assert (name in rows) == (c["lost_time_ns"] > 0), (name, c)
assert sum(s["end"] - s["start"] for s in rows["all"]) >= j["lost_time_ns"], rows["all"]
PY
}

@test "perfcap loss A B: side by side, --json an array of two, --svg two panels on one axis" {
	pc_record -o a.data -e cpu-clock -a -- sleep 0.2
	pc_record -o b.data -e cpu-clock -a -- sleep 0.4
	run -0 "$P" loss a.data b.data
	echo "$output"
	[ "${lines[0]}" = "A  a.data" ]
	[ "${lines[1]}" = "B  b.data" ]
	sa=$(perfcap_json a.data samples)
	sb=$(perfcap_json b.data samples)
	grep -qE "^  samples +$sa +$sb\$" <<<"$output"
	grep -qE '^  loss fraction +0\.000% +0\.000%$' <<<"$output"
	run -0 "$P" loss --json a.data b.data
	python3 -c '
import json, sys
a, b = json.loads(sys.argv[1])
assert (a["file"], b["file"]) == ("a.data", "b.data")
assert (a["samples"], b["samples"]) == (int(sys.argv[2]), int(sys.argv[3]))' "$output" "$sa" "$sb"
	run -0 "$P" loss --svg a.data b.data
	printf '%s\n' "$output" >ab.svg
	svg_facts ab.svg | python3 -c '
import json, sys
f = json.load(sys.stdin)
assert f["title"] == "perfcap loss: a.data vs b.data", f["title"]
assert [p["file"] for p in f["panels"]] == ["a.data", "b.data"], f["panels"]
assert [p["head"][0] for p in f["panels"]] == ["A: a.data", "B: b.data"]'
	run -2 "$P" loss a.data b.data a.data
}

@test "perfcap record: the status line under a terminal, not without one" {
	command -v script >/dev/null || skip "no script(1) for a pseudo-terminal"
	script -q -e -c "'$P' record -e cpu-clock -a -o tty.data -- sleep 1.3" /dev/null >tty.out
	grep -q $'\rperfcap [0-9.]* s  .* samples  lost ' tty.out
	pc_record -e cpu-clock -a -o pipe.data -- sleep 1.3
	refute grep -q 'samples  lost ' "$BATS_TEST_TMPDIR/record.err"
	# Forced: one line per interval into a file.
	"$P" record --status=0.5 -e cpu-clock -a -o forced.data -- sleep 1.3 2>forced.err
	[ "$(grep -c '^perfcap [0-9.]* s  .* samples  lost ' forced.err)" -ge 2 ]
}

# A browser draws what a browser is given: headless Chromium renders the
# page and the bare SVG, and the screenshot holds the rate bars and, only
# for a file that lost data, the shaded lost interval.
screenshot() { # FILE PNG
	timeout 120 chromium --headless --no-sandbox --disable-gpu --hide-scrollbars \
		--window-size=1200,900 --screenshot="$PWD/$2" "file://$PWD/$1" >/dev/null 2>&1
	[ -s "$2" ]
	python3 "$BATS_TEST_DIRNAME/png-colors.py" "$2"
}

@test "perfcap loss --html and --svg open in a browser: Chromium draws the rates, and the lost interval only where data was lost" {
	command -v chromium >/dev/null || skip "chromium is not installed (scripts/install-deps.sh installs it)"
	pc_record -o clean.data -e cpu-clock -a -- sleep 0.3
	"$P" loss --html clean.data >clean.html
	"$P" loss --html "$BATS_TEST_DIRNAME/../fuzz/corpus/pc-lost.data" >lost.html
	"$P" loss --svg "$BATS_TEST_DIRNAME/../fuzz/corpus/pc-lost.data" >lost.svg
	read -r w h rate red < <(screenshot clean.html clean.png)
	echo "clean.html: ${w}x$h, $rate rate pixels, $red red"
	[ "$w" = 1200 ]
	[ "$rate" -gt 300 ]
	# No shaded interval: none in the page, and Chromium drew only the
	# legend's two swatches (593-609 red pixels, with the text around them
	# laid out a pixel this way or that); an interval adds a rect 36 px high
	# for all CPUs and one 56 px high per CPU, each pixel of its width (one
	# too narrow to draw is still in the page, which the grep sees).
	refute grep -q 'class="lost"' clean.html
	[ "$red" -lt 750 ]
	read -r w h rate red < <(screenshot lost.html lost.png)
	echo "lost.html: ${w}x$h, $rate rate pixels, $red red"
	[ "$rate" -gt 3000 ]
	[ "$red" -gt 10000 ]
	read -r w h rate red < <(screenshot lost.svg lost-svg.png)
	echo "lost.svg: ${w}x$h, $rate rate pixels, $red red"
	[ "$rate" -gt 3000 ]
	[ "$red" -gt 10000 ]
}

@test "loss --json and --svg of a file whose name is not UTF-8 are valid JSON and XML: such bytes are U+FFFD (or ?), UTF-8 stays" {
	need_record
	pc_record -e cpu-clock -o a.data -- sleep 0.1
	name=$'bad\xff\xfe-\xe2\x82\xac-\xed\xa0\x80.data'
	cp a.data "$name"
	"$P" loss --json "$name" >bad.json
	"$P" loss --json a.data >a.json
	python3 - <<'PY'
import json
# Strict: invalid UTF-8 in the output fails here.
bad = json.loads(open("bad.json", "rb").read().decode("utf-8"))
good = json.loads(open("a.json", "rb").read().decode("utf-8"))
assert bad["file"] == "bad\ufffd\ufffd-\u20ac-\ufffd\ufffd\ufffd.data", repr(bad["file"])
assert bad["samples"] == good["samples"] > 0, (bad["samples"], good["samples"])
PY
	# The picture names the file too: a surrogate there is no XML character.
	"$P" loss --svg "$name" >bad.svg
	python3 -c 'import sys, xml.dom.minidom as m; m.parseString(open("bad.svg", "rb").read())'
}

@test "every key perfcap loss --json prints, at every level, is named in perfcap-loss(1)'s JSON OUTPUT" {
	need_record
	pc_record -o k.data -e cpu-clock -a -- sleep 0.2
	"$P" loss --json k.data >k.json
	"$P" loss --json k.data k.data >two.json
	python3 - "$BATS_TEST_DIRNAME/../../doc/perfcap-loss.1" <<'PY'
import json, re, sys
man = open(sys.argv[1]).read()
sec = man[man.index(".SH JSON OUTPUT"):]
sec = sec[:sec.index("\n.SH ", 5)]
text = re.sub(r"\\f[BIRP]", "", sec.replace("\\-", "-"))
words = set(re.findall(r"[a-z_]+", text))

def keys(v, out):
    if isinstance(v, dict):
        for k, x in v.items():
            out.add(k)
            keys(x, out)
    elif isinstance(v, list):
        for x in v:
            keys(x, out)
    return out

found = keys(json.load(open("k.json")), set()) | keys(json.load(open("two.json")), set())
assert len(found) > 20, sorted(found)
missing = found - words
assert not missing, "not in perfcap-loss(1): %s" % sorted(missing)
PY
}
