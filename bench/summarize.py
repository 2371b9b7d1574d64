#!/usr/bin/env python3
"""Median (and min..max) of each metric per scenario and recorder, from
bench/loss.sh's raw.csv, as a Markdown table. Ratios are against upstream
perf record's default writer in the same scenario."""
import csv
import statistics
import sys
from collections import defaultdict

rows = list(csv.DictReader(open(sys.argv[1])))
groups = defaultdict(list)
for r in rows:
    groups[(r["scenario"], r["recorder"])].append(r)


def med(vals):
    vals = [v for v in vals if v is not None]
    return statistics.median(vals) if vals else None


def col(rs, key, f=float):
    out = []
    for r in rs:
        try:
            out.append(f(r[key]))
        except (ValueError, KeyError):
            out.append(None)
    return out


def fmt(vals, pct=False, digits=2):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "n/a"
    m, lo, hi = statistics.median(vals), min(vals), max(vals)
    if pct:
        return f"{100*m:.{digits}f}% ({100*lo:.{digits}f}–{100*hi:.{digits}f})"
    return f"{m:.{digits}f} ({lo:.{digits}f}–{hi:.{digits}f})"


print("| scenario | recorder | runs (failed) | samples | loss | lost time / elapsed | "
      "recorder CPU s | vol. cs | invol. cs | slowdown | MB written |")
print("|---|---|---|---|---|---|---|---|---|---|---|")
for (s, rec), all_rs in sorted(groups.items()):
    rs = [r for r in all_rs if not r.get("failed")]
    nfail = len(all_rs) - len(rs)
    slow = [float(r["base_work"]) / float(r["work"]) if r["work"] and float(r["work"]) else None
            for r in rs]
    print(f"| {s} | {rec} | {len(all_rs)} ({nfail}) | {fmt(col(rs, 'samples'), digits=0)} | "
          f"{fmt(col(rs, 'loss_fraction'), pct=True)} | "
          f"{fmt(col(rs, 'lost_time_fraction'), pct=True)} | {fmt(col(rs, 'cpu_s'))} | "
          f"{fmt(col(rs, 'vcs'), digits=0)} | {fmt(col(rs, 'ivcs'), digits=0)} | "
          f"{fmt(slow, digits=3)} | {fmt([b / 1e6 for b in col(rs, 'bytes')], digits=1)} |")
