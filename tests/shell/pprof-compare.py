#!/usr/bin/env python3
"""perf against go tool pprof on the same recording (tests/shell/pprof.bats,
bench/pprof.sh).

  pprof-compare.py top PERF_REPORT PPROF_TOP [--min 1.0] [--tol 0.5]
      PERF_REPORT: `perf report --no-children --sort sym --stdio -g none`,
      PPROF_TOP: `go tool pprof -top -nodecount=100000 -sample_index=I`.
      Every symbol over --min percent in perf's report has the same flat
      share in pprof's, within --tol points. Prints one line a symbol.

  pprof-compare.py traces PERF_SCRIPT PPROF_TRACES
      PERF_SCRIPT: `perf script -F comm,tid,ip,sym --no-inline`,
      PPROF_TRACES: `go tool pprof -traces -sample_index=samples`.
      The same stacks (function names, leaf first) for the same threads
      (comm, tid), sample for sample: prints how many agree.

Exit 0 when they agree, 1 when not, 2 on bad input. Names perf or pprof
could not resolve ("[unknown]", pprof's "<unknown>" or "[dso]") read as
"?" on both sides.
"""
import re
import sys
from collections import Counter


def norm(name):
    name = name.strip()
    if name in ("[unknown]", "<unknown>") or re.fullmatch(r"\[.*\]", name):
        return "?"
    if re.fullmatch(r"0x[0-9a-f]+", name):
        return "?"
    return name


def perf_report(path):
    shares = {}
    for line in open(path, errors="replace"):
        m = re.match(r"\s*([0-9.]+)%\s+\[[.kgu]\]\s+(.*\S)\s*$", line)
        if m:
            name = norm(m.group(2))
            shares[name] = shares.get(name, 0.0) + float(m.group(1))
    return shares


def pprof_top(path):
    shares = {}
    for line in open(path, errors="replace"):
        # flat flat% sum% cum cum% name
        m = re.match(r"\s*\S+\s+([0-9.]+)%\s+[0-9.]+%\s+\S+\s+[0-9.]+%\s+(.*\S)\s*$", line)
        if m:
            name = norm(m.group(2))
            shares[name] = shares.get(name, 0.0) + float(m.group(1))
    return shares


def top(argv):
    perf_path, pprof_path = argv[0], argv[1]
    lo = float(argv[argv.index("--min") + 1]) if "--min" in argv else 1.0
    tol = float(argv[argv.index("--tol") + 1]) if "--tol" in argv else 0.5
    perf, pp = perf_report(perf_path), pprof_top(pprof_path)
    if not perf or not pp:
        print("no shares read (perf: %d, pprof: %d)" % (len(perf), len(pp)))
        return 2
    bad = 0
    for name, share in sorted(perf.items(), key=lambda kv: -kv[1]):
        if share < lo or name == "?":
            continue
        other = pp.get(name, 0.0)
        ok = abs(share - other) <= tol
        bad += not ok
        print("%-6s %6.2f%% perf %6.2f%% pprof  %s" % ("ok" if ok else "DIFF", share, other, name))
    return 1 if bad else 0


def perf_script(path):
    """(comm, tid, (frames...)) for each sample: a header line "comm tid"
    with its frames on tab-indented lines after it, or, without
    callchains, "comm tid ip sym" on one line."""
    out = Counter()
    cur = None

    def flush():
        if cur:
            out[(cur[0], cur[1], tuple(cur[2]))] += 1

    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("\t"):
            m = re.match(r"^\s*[0-9a-f]+\s+(.*)$", line)
            if m is None or cur is None:
                raise ValueError("perf script: cannot read %r" % line)
            cur[2].append(norm(m.group(1)))
            continue
        flush()
        cur = None
        if not line.strip():
            continue
        m = re.match(r"^\s*(.+?)\s+(\d+)\s*(?:\s([0-9a-f]+)\s+(.*))?$", line)
        if not m:
            raise ValueError("perf script: cannot read %r" % line)
        cur = (m.group(1), m.group(2), [norm(m.group(4))] if m.group(3) else [])
    flush()
    return out


def pprof_traces(path):
    out = Counter()
    labels, frames, count = {}, [], 0

    def flush():
        if frames:
            out[(labels.get("comm", ""), labels.get("tid", ""), tuple(frames))] += count

    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if line.startswith("-----------+"):
            flush()
            labels, frames, count = {}, [], 0
            continue
        m = re.match(r"^\s+(\w+):\s+(.*\S)\s*$", line)
        if m and not frames:
            labels[m.group(1)] = m.group(2)
            continue
        m = re.match(r"^\s+(\d+)\s+(.*\S)\s*$", line)
        if m and not frames:
            count = int(m.group(1))
            frames.append(norm(m.group(2)))
            continue
        if frames and line.strip():
            frames.append(norm(line))
    flush()
    return out


def traces(argv):
    perf, pp = perf_script(argv[0]), pprof_traces(argv[1])
    n_perf, n_pp = sum(perf.values()), sum(pp.values())
    same = sum((perf & pp).values())
    print("samples: perf %d, pprof %d, the same stack and thread: %d" % (n_perf, n_pp, same))
    if n_perf == 0:
        return 2
    if same != n_perf or n_pp != n_perf:
        for key, n in list((perf - pp).items())[:5]:
            print("perf only (%d): %s" % (n, key))
        for key, n in list((pp - perf).items())[:5]:
            print("pprof only (%d): %s" % (n, key))
        return 1
    return 0


def main():
    if len(sys.argv) < 4 or sys.argv[1] not in ("top", "traces"):
        print(__doc__, file=sys.stderr)
        return 2
    return (top if sys.argv[1] == "top" else traces)(sys.argv[2:])


if __name__ == "__main__":
    sys.exit(main())
