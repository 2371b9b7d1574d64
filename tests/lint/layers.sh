#!/usr/bin/env bash
# The wings of src/ stand on each other in one order (src/README.md):
#
#   root (util, sys, perf-file.h, record-opts.h, version.h)
#     < io < format < events < unwind < record, read < inject < profile < cli
#
# A file of one wing includes headers of its own wing, of the root and of
# lower wings only; record/ and read/ know nothing of each other. This
# checks every quoted #include under src/ (or the folder given) and prints
# file:line for each that goes the wrong way. Exit 1 if any does.
#
#   tests/lint/layers.sh [SRC]
set -u
src=${1:-src}
declare -A rank=([root]=0 [io]=1 [format]=2 [events]=3 [unwind]=4 [record]=5 [read]=5 [inject]=6 [profile]=7 [cli]=8)
bad=0 files=0
while IFS= read -r f; do
	rel=${f#"$src"/}
	case $rel in */*) wing=${rel%%/*} ;; *) wing=root ;; esac
	[ -n "${rank[$wing]:-}" ] || { echo "$f: not in a known wing (${!rank[*]})"; bad=1; continue; }
	files=$((files + 1))
	while IFS=: read -r line inc; do
		inc=${inc#*\"}; inc=${inc%%\"*}
		case $inc in */*) iw=${inc%%/*} ;; *) iw=root ;; esac
		# Generated or system-quoted headers beside the root ones (perfcap-version.h).
		[ -n "${rank[$iw]:-}" ] || continue
		[ "$iw" = "$wing" ] && continue
		if [ "${rank[$iw]}" -ge "${rank[$wing]}" ]; then
			echo "$f:$line: $wing/ includes \"$inc\" of $iw/, which is not below it"
			bad=1
		fi
	done < <(grep -n '^#include "' "$f")
done < <(find "$src" -name '*.[ch]' | sort)
if [ "$bad" = 0 ]; then
	echo "layers: $files files under $src/ include only their own wing, the root and wings below"
fi
exit $bad
