#!/usr/bin/env bash
# Gather here what bench/device/run.sh needs on the 16-core device machine
# (Ubuntu 24.04, no perf, no network): perfcap, Debian's perf 6.1 and GNU
# time with the shared libraries ldd lists and Debian's loader, and static
# workloads, all under .carry/ (git-ignored; name it in the run's carry).
#
#   sudo bench/device/prepare.sh        # then: device run, carry [".carry"]
set -euo pipefail
cd "$(dirname "$0")/../.."
C=.carry
make -s
rm -rf "$C"
mkdir -p "$C/bin" "$C/lib" "$C/workloads"
for b in ./perfcap "$(readlink -f "$(command -v perf)")" /usr/bin/time build/bench/capcat; do
	[ -x "$b" ] || { echo "prepare.sh: $b is missing (apt-get install linux-perf time; make)" >&2; exit 1; }
	cp -L "$b" "$C/bin/$(basename "$b" | sed 's/_[0-9.]*$//')"
	ldd "$b" | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r l; do
		cp -Ln "$l" "$C/lib/"
	done
done
cp -L /lib64/ld-linux-x86-64.so.2 "$C/lib/"
for w in parallel sysflood phases; do
	gcc -O1 -g -fno-omit-frame-pointer -fno-inline -pthread -static \
		-o "$C/workloads/$w" "tests/workloads/$w.c"
done
# The drain benchmark needs no kernel events: the carried loader runs it too.
cp -L build/bench/drain "$C/bin/drain"
ldd build/bench/drain | awk '$2 == "=>" && $3 ~ /^\// { print $3 }' | while read -r l; do
	cp -Ln "$l" "$C/lib/"
done
git rev-parse --short HEAD >"$C/commit"
du -sh "$C"
ls "$C/bin"
