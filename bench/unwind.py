#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""The table of bench/unwind.sh: python3 bench/unwind.py DIR (or DIR/raw.csv).

From DIR/raw.csv (times, RSS), DIR/sizes.csv and the perf outputs the
script left in DIR (WL.perf-script-{raw,conv}.out, WL.perf-report-{raw,conv}.out),
whose fidelity numbers it writes to DIR/fidelity.csv; in a results
folder, where those outputs are not kept, it reads fidelity.csv instead.
per workload the ratios issue 31 sets targets for, and the fidelity:
samples whose frames are the same (perf's trailing ffffffffffffffff frame,
an artifact of its access_mem reading 0 past the stack copy, left out),
and the largest difference of a --children share among the symbols over
1% on either side. Writes DIR/fidelity.txt with the first differences.
"""
import csv
import os
import re
import sys

TRAILING = re.compile(r"\n\s*ffffffffffffffff \[unknown\]$")
SHARE = re.compile(r"^\s+([0-9.]+)%\s+([0-9.]+)%\s+\[.\]\s+(.*\S)\s*$")


def samples(path):
    with open(path, errors="replace") as f:
        text = f.read().strip()
    return [TRAILING.sub("", p) for p in text.split("\n\n")] if text else []


OUTER = ("_start", "clone3", "__clone3", "clone", "__clone")


def whole(samples_):
    """Of the samples with user frames, the share whose chain ends at an outermost function."""
    n = w = 0
    for p in samples_:
        user = [l.split(None, 1) for l in p.split("\n")[1:] if l.strip() and not l.strip().startswith("ffffffff")]
        if not user:
            continue
        n += 1
        w += len(user[-1]) > 1 and user[-1][1] in OUTER
    return 100.0 * w / max(n, 1)


def shares(path):
    out = {}
    with open(path, errors="replace") as f:
        for line in f:
            m = SHARE.match(line)
            if m:
                out[m.group(3)] = out.get(m.group(3), 0.0) + float(m.group(1))
    return out


def fidelity(d, wl, fid):
    """(samples, same, whole perf, whole perfcap, max share diff, its symbol) of workload wl."""
    raw = samples(os.path.join(d, f"{wl}.perf-script-raw.out"))
    conv = samples(os.path.join(d, f"{wl}.perf-script-conv.out"))
    same = sum(1 for a, b in zip(raw, conv) if a == b)
    shown = 0
    for a, b in zip(raw, conv):
        if a != b and shown < 5:
            fid.write(f"== {wl}: perf\n{a}\n-- perfcap\n{b}\n\n")
            shown += 1
    sr = shares(os.path.join(d, f"{wl}.perf-report-raw.out"))
    sc = shares(os.path.join(d, f"{wl}.perf-report-conv.out"))
    # perf's trailing frame at -1 (see the module's text) is no symbol of the program.
    big = {s for s, v in sr.items() if v > 1.0 and not s.startswith("0xffffffffffffffff")} | \
        {s for s, v in sc.items() if v > 1.0}
    diff, worst = 0.0, "-"
    for s in big:
        dd = abs(sr.get(s, 0.0) - sc.get(s, 0.0))
        if dd > diff:
            diff, worst = dd, s
    fid.write(f"== {wl}: largest share difference {diff:.2f} points ({worst})\n\n")
    return len(raw), same, whole(raw), whole(conv), diff, worst


def main():
    d = sys.argv[1]
    if d.endswith(".csv"):
        d = os.path.dirname(d) or "."
    rows = {}
    with open(os.path.join(d, "raw.csv")) as f:
        for r in csv.DictReader(f):
            rows.setdefault(r["workload"], {})[r["what"]] = r
    sizes = {}
    with open(os.path.join(d, "sizes.csv")) as f:
        for r in csv.DictReader(f):
            sizes.setdefault(r["workload"], {})[r["file"]] = int(r["bytes"])
    fcsv = os.path.join(d, "fidelity.csv")
    fids = {}
    if any(os.path.exists(os.path.join(d, f"{wl}.perf-script-raw.out")) for wl in rows):
        with open(os.path.join(d, "fidelity.txt"), "w") as fid, open(fcsv, "w") as fc:
            fc.write("workload,samples,same,whole_perf,whole_perfcap,max_share_diff,symbol\n")
            for wl in rows:
                fids[wl] = fidelity(d, wl, fid)
                n, same, wp, wc, diff, worst = fids[wl]
                fc.write(f"{wl},{n},{same},{wp:.2f},{wc:.2f},{diff:.2f},\"{worst}\"\n")
    else:
        with open(fcsv) as f:
            for r in csv.DictReader(f):
                fids[r["workload"]] = (int(r["samples"]), int(r["same"]), float(r["whole_perf"]),
                                       float(r["whole_perfcap"]), float(r["max_share_diff"]), r["symbol"])
    print("| workload | samples | same frames | whole: perf | whole: perfcap | max share diff, sym > 1% (points) "
          "| raw MB | conv/raw bytes | perf report raw s | inject s | inject / report | report conv s | "
          "conv/raw report time | conv/raw report RSS | perf report --no-inline raw s | conv s | perf script raw s | conv s |")
    print("|" + "---|" * 18)
    for wl, r in rows.items():
        def f(what, col):
            return float(r[what][col]) if what in r else float("nan")

        n, same, wp, wc, diff, worst = fids[wl]
        rb, cb = sizes[wl]["raw"], sizes[wl]["conv"]
        dflt = "perf-report-default-raw" if "perf-report-default-raw" in r else "perf-report-raw"
        dfltc = "perf-report-default-conv" if "perf-report-default-conv" in r else "perf-report-conv"
        rep_raw, inj, rep_conv = f(dflt, "wall_s"), f("inject", "wall_s"), f(dfltc, "wall_s")
        print(f"| {wl} | {n} | {100.0 * same / max(n, 1):.2f}% | {wp:.1f}% | {wc:.1f}% "
              f"| {diff:.2f} ({worst}) | {rb / 1e6:.1f} | {cb / rb:.3f} "
              f"| {rep_raw:.2f} | {inj:.2f} | {inj / rep_raw:.4f} | {rep_conv:.2f} | {rep_conv / rep_raw:.3f} "
              f"| {f(dfltc, 'maxrss_kib') / f(dflt, 'maxrss_kib'):.3f} "
              f"| {f('perf-report-raw', 'wall_s'):.2f} | {f('perf-report-conv', 'wall_s'):.2f} "
              f"| {f('perf-script-raw', 'wall_s'):.2f} | {f('perf-script-conv', 'wall_s'):.2f} |")


if __name__ == "__main__":
    main()
