#!/usr/bin/env bash
# The wings of src/ call each other in the order they include each other
# (layers.sh): an object of one wing uses functions and data of its own
# wing, of the root and of lower wings only, and record/ and read/ none
# of each other's. layers.sh reads the #includes; this reads the built
# objects (nm), so a call up through a declaration put in a lower wing's
# header, or an extern written by hand, is caught too. Prints
# "OBJ: wing/ uses SYMBOL of wing/, which is not below it" for each and
# exits 1 if any; 2 when OBJDIR holds no object of src/.
#
#   tests/lint/calls.sh [OBJDIR]     (default build: the objects of make)
set -u
out=${1:-build}
mapfile -t objs < <(cd "$out" 2>/dev/null &&
	find . -name '*.o' | sed 's|^\./||' | grep -E '^([^/]*|(io|format|events|unwind|record|read|inject|profile|cli)/.*)\.o$' | sort)
if [ ${#objs[@]} = 0 ]; then
	echo "calls: no objects of src/ under $out/ (run make first)"
	exit 2
fi
# nm -A: "OBJ:VALUE TYPE NAME" for a definition, "OBJ:  U NAME" for a use.
(cd "$out" && nm -A -g "${objs[@]}") | awk -v out="$out" '
function wing(obj) { return obj ~ /\// ? substr(obj, 1, index(obj, "/") - 1) : "root" }
BEGIN {
	split("root io format events unwind record read inject profile cli", w, " ")
	split("0 1 2 3 4 5 5 6 7 8", r, " ")
	for (i in w) rank[w[i]] = r[i]
}
{
	obj = substr($0, 1, index($0, ":") - 1)
	if ($(NF - 1) == "U") { use[++n] = obj SUBSEP $NF; next }
	owner[$NF] = wing(obj)
}
END {
	bad = 0
	for (i = 1; i <= n; i++) {
		split(use[i], u, SUBSEP)
		ow = owner[u[2]]; uw = wing(u[1])
		if (ow == "" || ow == uw || rank[ow] < rank[uw]) continue
		printf "%s/%s: %s/ uses %s of %s/, which is not below it\n", out, u[1], uw, u[2], ow
		bad = 1
	}
	if (!bad)
		printf "calls: %d objects under %s/ use only their own wing, the root and wings below\n", nobj, out
	exit bad
}' nobj=${#objs[@]}
