#!/usr/bin/env python3
"""From bench/loss.sh's raw.csv, two Markdown tables: the median (and
min-max) of each metric per scenario and recorder; then each perfcap
recorder (perfcap-*, alt-*, alt2-*) against upstream perf record with the
same writer in the same run (sync against perf, aio against perf-aio,
aioN against perf-aioN, uring against perf-aio): the ratio of the medians
and, rep by rep, in how many reps perfcap lost less. The machine is
noisy; the rep-by-rep count says more than the medians, and the sign
test's p next to it says how often a count at least that far from even
comes by chance between two recorders that lose alike (two-sided, ties
left out): 6 of 9 is p = 0.51, 7 of 21 is p = 0.19. The same count is
made of LOST records, one per stretch in which a ring was full. The events
ratio (samples + lost) says how much faster the workload filled the
rings under perfcap: a recorder that takes less CPU from the workload
gets more events to keep, and its loss fraction is not adjusted for
that. CPU s/GB is the recorder's CPU seconds per GB written, row by row;
"reps it lost no more" counts the reps with perfcap's loss <= perf's."""
import csv
import math
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


def ok(rs):
    """The rows of runs that did not fail."""
    return [r for r in rs if not r.get("failed")]


def col(rs, key, f=float):
    out = []
    for r in rs:
        try:
            out.append(f(r[key]))
        except (ValueError, KeyError, TypeError):  # failed, or an older raw.csv
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


def per_gb(rs):
    """Per row, the recorder's CPU seconds per GB it wrote."""
    return [c / (b / 1e9) if c is not None and b else None
            for c, b in zip(col(rs, "cpu_s"), col(rs, "bytes"))]


print("| scenario | recorder | runs (failed) | samples | loss | lost time / elapsed | "
      "LOST records | recorder CPU s | vol. cs | invol. cs | slowdown | MB written | "
      "CPU s/GB |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (s, rec), all_rs in sorted(groups.items()):
    rs = ok(all_rs)
    nfail = len(all_rs) - len(rs)
    slow = [float(r["base_work"]) / float(r["work"]) if r["work"] and float(r["work"]) else None
            for r in rs]
    print(f"| {s} | {rec} | {len(all_rs)} ({nfail}) | {fmt(col(rs, 'samples'), digits=0)} | "
          f"{fmt(col(rs, 'loss_fraction'), pct=True)} | "
          f"{fmt(col(rs, 'lost_time_fraction'), pct=True)} | "
          f"{fmt(col(rs, 'lost_records'), digits=0)} | {fmt(col(rs, 'cpu_s'))} | "
          f"{fmt(col(rs, 'vcs'), digits=0)} | {fmt(col(rs, 'ivcs'), digits=0)} | "
          f"{fmt(slow, digits=3)} | {fmt([b / 1e6 for b in col(rs, 'bytes')], digits=1)} | "
          f"{fmt(per_gb(rs))} |")


def counterpart(rec):
    """The perf recorder that a perfcap recorder is measured against."""
    if rec == "perfcap":
        return "perf"
    for prefix in ("perfcap-", "alt-", "alt2-"):
        if rec.startswith(prefix):
            w = rec[len(prefix):]
            w = w.replace("uring", "aio")
            return "perf" if w == "sync" else "perf-" + w.replace("sync-", "")
    return None


def ratio(a, b):
    ma, mb = med(a), med(b)
    return "n/a" if ma is None or not mb else f"{ma / mb:.2f}"


def summed(rs, a, b):
    """Per row, column a + column b (None where either is missing)."""
    return [x + y if x is not None and y is not None else None
            for x, y in zip(col(rs, a), col(rs, b))]


def sign_p(pairs):
    """Two-sided exact sign test over (a, b) pairs, ties left out."""
    n = sum(1 for a, b in pairs if a != b)
    k = sum(1 for a, b in pairs if a < b)
    if not n:
        return "n/a"
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1)) / 2 ** n
    p = min(1.0, 2 * tail)
    return f"{p:.3f}" if p < 0.01 else f"{p:.2f}"


def by_rep(rs, ps, key):
    """(perfcap, perf) values of one column in the reps both have."""
    theirs = dict(zip((r["rep"] for r in ps), col(ps, key)))
    return [(a, theirs[r["rep"]]) for r, a in zip(rs, col(rs, key))
            if a is not None and theirs.get(r["rep"]) is not None]


def fewer(pairs):
    return f"{sum(1 for a, b in pairs if a < b)} of {len(pairs)}" if pairs else "n/a"


def no_more(pairs):
    return f"{sum(1 for a, b in pairs if a <= b)} of {len(pairs)}" if pairs else "n/a"


pairs_rows = []
for (s, rec), all_rs in sorted(groups.items()):
    other = counterpart(rec)
    if other is None or (s, other) not in groups:
        continue
    rs, ps = ok(all_rs), ok(groups[(s, other)])
    both = by_rep(rs, ps, "loss_fraction")
    episodes = by_rep(rs, ps, "lost_records")
    pairs_rows.append(f"| {s} | {rec} | {other} | {fewer(both)} | {sign_p(both)} | "
                      f"{fewer(episodes)} | {sign_p(episodes)} | "
                      f"{ratio(col(rs, 'loss_fraction'), col(ps, 'loss_fraction'))} | "
                      f"{ratio(col(rs, 'cpu_s'), col(ps, 'cpu_s'))} | "
                      f"{ratio(summed(rs, 'vcs', 'ivcs'), summed(ps, 'vcs', 'ivcs'))} | "
                      f"{ratio(summed(rs, 'samples', 'lost'), summed(ps, 'samples', 'lost'))} | "
                      f"{no_more(both)} | {ratio(per_gb(rs), per_gb(ps))} |")
if pairs_rows:
    print()
    print("| scenario | recorder | against | reps it lost less | sign test p | "
          "reps with fewer LOST records | sign test p | loss ratio | "
          "CPU ratio | switches ratio | events ratio | reps it lost no more | CPU s/GB ratio |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(pairs_rows))
