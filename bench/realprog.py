#!/usr/bin/env python3
"""From bench/realprog.sh's raw.csv, Markdown tables: per recorder the
median (min-max) of xz's wall time, its system time and voluntary
switches, the recorder's CPU and switches, the loss; then each perfcap
recorder (perfcap*, alt*) against perf's with the same writer, rep by
rep: xz's wall time over perf's, its largest ratio, and in how many reps
it stayed within 10 % of perf's (issue 22's target: every rep); with
the recorder none (xz alone), each recorder's slowdown over it, rep by
rep, in points, and its CPU per sample."""
import csv
import statistics
import sys
from collections import defaultdict

rows = [r for r in csv.DictReader(open(sys.argv[1]))]
by = defaultdict(dict)
for r in rows:
    by[r["recorder"]][r["rep"]] = r


def num(r, k):
    try:
        return float(r[k])
    except (KeyError, TypeError, ValueError):
        return None


def fmt(vals, digits=2, pct=False):
    vals = [v for v in vals if v is not None]
    if not vals:
        return "n/a"
    m, lo, hi = statistics.median(vals), min(vals), max(vals)
    if pct:
        return f"{100*m:.{digits}f}% ({100*lo:.{digits}f}–{100*hi:.{digits}f})"
    return f"{m:.{digits}f} ({lo:.{digits}f}–{hi:.{digits}f})"


def loss(r):
    s, lost = num(r, "samples"), num(r, "lost")
    return None if s is None or lost is None or not s + lost else lost / (s + lost)


print("| recorder | runs (failed) | xz wall s | xz system s | xz vol. cs | "
      "recorder CPU s | recorder vol. cs | loss | MB written |")
print("|---|---|---|---|---|---|---|---|---|")
for rec in sorted(by):
    rs = list(by[rec].values())
    failed = sum(1 for r in rs if r["failed"])
    ok = [r for r in rs if not r["failed"]]
    print(f"| {rec} | {len(rs)} ({failed}) | {fmt([num(r, 'wall_s') for r in rs])} | "
          f"{fmt([num(r, 'xz_sys_s') for r in rs])} | "
          f"{fmt([num(r, 'xz_vcs') for r in rs], digits=0)} | "
          f"{fmt([num(r, 'rec_cpu_s') for r in ok])} | "
          f"{fmt([num(r, 'rec_vcs') for r in ok], digits=0)} | "
          f"{fmt([loss(r) for r in ok], pct=True)} | "
          f"{fmt([num(r, 'bytes') / 1e6 for r in ok if num(r, 'bytes')], digits=0)} |")


def counterpart(rec):
    for p in ("perfcap", "alt", "perf2"):
        if rec == p or rec.startswith(p + "-"):
            return "perf" + rec[len(p):]
    return None


lines = []
for rec in sorted(by):
    other = counterpart(rec)
    if other not in by:
        continue
    ratios = [num(r, "wall_s") / num(by[other][rep], "wall_s")
              for rep, r in by[rec].items()
              if rep in by[other] and num(r, "wall_s") and num(by[other][rep], "wall_s")]
    if not ratios:
        continue
    within = sum(1 for x in ratios if x <= 1.10)
    lines.append(f"| {rec} | {other} | {len(ratios)} | {statistics.median(ratios):.3f} | "
                 f"{max(ratios):.3f} | {within} of {len(ratios)} |")
if lines:
    print()
    print("| recorder | against | reps | xz wall ratio (median) | largest | "
          "reps within 10% |")
    print("|---|---|---|---|---|---|")
    print("\n".join(lines))


if "none" in by:
    print()
    print("| recorder | reps | xz slowdown over none, points (median, min-max) | "
          "recorder CPU per sample, us (median) |")
    print("|---|---|---|---|")
    for rec in sorted(by):
        if rec == "none":
            continue
        pts = [100 * (num(r, "wall_s") / num(by["none"][rep], "wall_s") - 1)
               for rep, r in by[rec].items()
               if rep in by["none"] and num(r, "wall_s") and num(by["none"][rep], "wall_s")
               and not r["failed"]]
        cps = [1e6 * num(r, "rec_cpu_s") / num(r, "samples") for r in by[rec].values()
               if not r["failed"] and num(r, "samples")]
        if pts:
            print(f"| {rec} | {len(pts)} | {fmt(pts, digits=1)} | "
                  f"{statistics.median(cps):.1f} |")
