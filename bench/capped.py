#!/usr/bin/env python3
"""The table of a bench/capped.sh run: medians over the reps, each
recorder capped against its own uncapped recordings of the same command.

    python3 bench/capped.py DIR/raw.csv

Reads DIR/raw.csv and the shares-REC-MODE-REP.txt files beside it.
Columns: kernel LOST records; the COMM, MMAP2, FORK and EXIT records as
a percentage of the same recorder's uncapped median; the event count
against uncapped; the largest difference, in points, between a capped
file's share and the uncapped median share over the uncapped top-20
symbols; deep_burn's share (phases: 50% when true); samples perf leaves
in [unknown]; bytes delivered against cap x the time the capped link was
in use (link_s; rows from before it was measured: the wall time); the
share of the burn functions' samples whose chain reaches thread_main
(root_pct; rows from before it was measured: n/a). "events kept"
is the event count against the periods of every sample the kernel
made, kept or lost ((samples + kernel lost + triage dropped) x the
uncapped recordings' mean period): on this shared machine the CPU the
command gets, and so its event count, differs from run to run, so the
event count against uncapped runs says more about the machine than the
recorder.
"""
import csv
import os
import statistics
import sys


def shares(path):
    out = {}
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) < 2 or not parts[0].endswith('%'):
                    continue
                sym = ' '.join(parts[1:])
                out[sym] = out.get(sym, 0.0) + float(parts[0][:-1])
    except OSError:
        pass
    return out


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else float('nan')


def main():
    raw = sys.argv[1]
    d = os.path.dirname(raw)
    rows = list(csv.DictReader(open(raw)))
    recs = []
    for r in rows:
        if r['recorder'] not in recs:
            recs.append(r['recorder'])
    print('| recorder | mode | kernel LOST records | triage dropped | COMM | MMAP2 | FORK | EXIT '
          '| event count | events kept | top-20 max diff (pts) | deep_burn % | [unknown] % | delivered / cap x link time | burn chains to thread_main % |')
    print('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|---|')
    for rec in recs:
        unc = [r for r in rows if r['recorder'] == rec and r['mode'] == 'uncapped']
        base = {k: med([float(r[k]) for r in unc]) for k in
                ('comm', 'mmap2', 'fork', 'exit', 'event_count')}
        ushares = [shares(os.path.join(d, 'shares-%s-uncapped-%s.txt' % (rec, r['rep'])))
                   for r in unc]
        syms = {}
        for s in ushares:
            for k, v in s.items():
                syms.setdefault(k, []).append(v)
        mean_period = med([float(r['event_count']) / float(r['samples'])
                           for r in unc if float(r['samples'])])
        umed = {k: statistics.median(v + [0.0] * (len(ushares) - len(v))) for k, v in syms.items()}
        top = sorted(umed, key=lambda k: -umed[k])[:20]
        for mode in ('uncapped', 'capped'):
            sel = [r for r in rows if r['recorder'] == rec and r['mode'] == mode]
            if not sel:
                continue

            def pct(k):
                return '%.1f%%' % (100.0 * med([float(r[k]) for r in sel]) / base[k]) \
                    if base[k] else 'n/a'
            diffs, deep, deliv, kept = [], [], [], []
            for r in sel:
                s = shares(os.path.join(d, 'shares-%s-%s-%s.txt' % (rec, mode, r['rep'])))
                diffs.append(max([abs(s.get(k, 0.0) - umed[k]) for k in top] or [0.0]))
                deep.append(s.get('[.] deep_burn', 0.0))
                made = (float(r['samples']) + float(r['kernel_lost'] or 0) +
                        float(r['triage_dropped'] or 0)) * mean_period
                if made and float(r['event_count']):
                    kept.append(float(r['event_count']) / made)
                if mode == 'capped':
                    # The link's time in use where the fixture says (link_s), else the wall.
                    t = float(r.get('link_s') or 0) or float(r['wall_s'])
                    deliv.append(float(r['bytes']) / (float(r['cap_bps']) * t))
            roots = [float(r['root_pct']) for r in sel if r.get('root_pct')]
            print('| %s | %s | %g | %g | %s | %s | %s | %s | %s | %.1f%% | %.2f | %.1f | %.2f | %s | %s |' % (
                rec, mode, med([float(r['lost_records']) for r in sel]),
                med([float(r['triage_dropped'] or 0) for r in sel]),
                pct('comm'), pct('mmap2'), pct('fork'), pct('exit'), pct('event_count'),
                100 * med(kept),
                med(diffs), med(deep), med([float(r['unknown_pct']) for r in sel]),
                '%.1f%%' % (100 * med(deliv)) if deliv else '-',
                '%.1f' % med(roots) if roots else 'n/a'))
    print()
    print('Medians over %d reps; cap %s bytes/s.' % (
        max(int(r['rep']) for r in rows), rows[0]['cap_bps']))


if __name__ == '__main__':
    main()
