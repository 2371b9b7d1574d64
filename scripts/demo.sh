#!/bin/sh
# The main job on a fresh Debian 12 machine: install what is needed, build,
# record the bundled parallel CPU-bound workload on all CPUs with call
# graphs, and show what upstream perf report and perfcap loss say about it.
# Run as root (recording every CPU needs it): scripts/demo.sh
set -eu
cd "$(dirname "$0")/.."
scripts/install-deps.sh
make -s -j"$(nproc)"
out=${OUT:-/tmp/perfcap-demo.data}
echo "== perfcap record -a -g -o $out -- build/workloads/parallel -t 3"
./perfcap record -a -g -o "$out" -- build/workloads/parallel -t 3
echo "== perf report (upstream perf reading perfcap's file)"
perf report -i "$out" --stdio --sort comm,dso,sym 2>&1 | head -n 40
echo "== perfcap loss"
./perfcap loss "$out"
