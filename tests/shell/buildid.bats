#!/usr/bin/env bats
# SPDX-License-Identifier: GPL-2.0
# Build ids after the recording (issue 24, item 1): the BUILD_ID section
# lists the DSOs with samples, as perf's file of the same command does;
# the build-id cache is filled as perf record fills it, so that perf
# archive packs what perf report needs on a machine without the binaries;
# -N, -B, --buildid-all and $PERF_BUILDID_DIR as perf 6.1 has them.

load helpers

# A program and a library of its own, built here, each with a function
# that burns: both DSOs get samples in every run.
setup_file() {
	local d=$BATS_FILE_TMPDIR/src
	mkdir -p "$d"
	cat >"$d/lib.c" <<-'EOF'
		volatile unsigned long bidw_sink;
		__attribute__((noinline)) void bidw_lib_spin(unsigned long n)
		{
			for (unsigned long i = 0; i < n; i++)
				bidw_sink += i * i;
		}
	EOF
	cat >"$d/main.c" <<-'EOF'
		void bidw_lib_spin(unsigned long n);
		volatile unsigned long bidw_main_sink;
		__attribute__((noinline)) static void bidw_main_spin(unsigned long n)
		{
			for (unsigned long i = 0; i < n; i++)
				bidw_main_sink += i ^ (i >> 3);
		}
		int main(void)
		{
			bidw_main_sink = OTHER;
			bidw_main_spin(150000000UL);
			bidw_lib_spin(150000000UL);
			return 0;
		}
	EOF
	gcc -O1 -g -fPIC -shared -Wl,--build-id -o "$d/libbidw.so" "$d/lib.c"
	gcc -O1 -g -Wl,--build-id -Wl,-rpath,'$ORIGIN' -DOTHER=0 -o "$d/bidw" "$d/main.c" \
		-L"$d" -lbidw
	# The same program with other bytes, so another build id.
	gcc -O1 -g -Wl,--build-id -Wl,-rpath,'$ORIGIN' -DOTHER=1 -o "$d/bidw-other" "$d/main.c" \
		-L"$d" -lbidw
}

setup() {
	common_setup
	need_record
	# The workload at a path of this test's own, so that it can be moved away.
	mkdir -p bin
	cp "$BATS_FILE_TMPDIR/src/bidw" "$BATS_FILE_TMPDIR/src/libbidw.so" bin/
	# A HOME without a cache: what is in ~/.debug is this recording's.
	export HOME=$BATS_TEST_TMPDIR/home
	mkdir -p "$HOME"
	unset PERF_BUILDID_DIR PERF_CONFIG
}

# DSO names of `perf buildid-list -i FILE [more]`, sorted, one a line.
bid_names() { # FILE [more perf buildid-list options]
	perf_ok buildid-list -i "$@"
	awk '{ print $2 }' "$PERF_OUT" | sort
}

# The build id that FILE's BUILD_ID section gives the DSO NAME.
bid_of() { # FILE NAME
	perf_ok buildid-list -i "$1"
	awk -v n="$2" '$2 == n { print $1 }' "$PERF_OUT"
}

@test "perf archive, the binaries moved away, a fresh ~/.debug: perf report still names the workload's functions" {
	pc_record -e cpu-clock -o perf.data -- bin/bidw
	perf_ok archive perf.data
	# The archive holds the cache's link for the program and its file.
	tar tjf perf.data.tar.bz2 >archive.list
	id=$(bid_of perf.data "$PWD/bin/bidw")
	[[ -n "$id" ]]
	grep -qx ".build-id/${id:0:2}/${id:2}" archive.list
	grep -q "bin/bidw/$id/elf\$" archive.list

	mv bin gone
	export HOME=$BATS_TEST_TMPDIR/elsewhere
	mkdir -p "$HOME/.debug"
	tar xjf perf.data.tar.bz2 -C "$HOME/.debug"
	perf_ok report -i perf.data --stdio --sort sym
	grep -q 'bidw_main_spin' "$PERF_OUT"
	grep -q 'bidw_lib_spin' "$PERF_OUT"
}

@test "perf buildid-list -i and --with-hits list what they list for perf's own file of the same command" {
	perf_record -e cpu-clock -o perf.data -- bin/bidw
	pc_record -e cpu-clock -o pc.data -- bin/bidw
	for f in perf.data pc.data; do
		bid_names "$f" >"$f.table"
		bid_names "$f" --with-hits >"$f.hits"
		# The section holds the DSOs with samples, and the vdso (perf's rule).
		{ cat "$f.hits"; echo '[vdso]'; } | sort -u >"$f.want"
		diff -u "$f.want" "$f.table"
		grep -qx "$PWD/bin/bidw" "$f.hits"
		grep -qx "$PWD/bin/libbidw.so" "$f.hits"
	done
	# Every DSO with a share of perf's samples in perf's file is in ours,
	# with the same id (rare hits, such as ld.so's, may differ run to run).
	perf_ok script -i perf.data -F ip,dso
	awk '{ n[$2]++; t++ } END { for (d in n) if (n[d] * 100 >= t) print substr(d, 2, length(d) - 2) }' \
		"$PERF_OUT" | sort >perf.big
	[[ -s perf.big ]]
	while read -r dso; do
		grep -qxF "$dso" perf.data.hits || continue	# no build id: not listed
		grep -qxF "$dso" pc.data.table
		[[ "$(bid_of pc.data "$dso")" == "$(bid_of perf.data "$dso")" ]]
	done <perf.big
}

@test "the cache holds what perf record puts there: the DSOs, kallsyms and the vdso, linked by id" {
	pc_record -e cpu-clock -o pc.data -- bin/bidw
	perf_ok buildid-list -i pc.data
	cp "$PERF_OUT" ids
	[[ -s ids ]]
	while read -r id name; do
		link=$HOME/.debug/.build-id/${id:0:2}/${id:2}
		[[ -L "$link" ]]
		case $name in
		'[kernel.kallsyms]')
			[[ "$(readlink "$link")" == "../../[kernel.kallsyms]/$id" ]]
			[[ -s "$link/kallsyms" ]] ;;
		'[vdso]')
			[[ "$(readlink "$link")" == "../../[vdso]/$id" ]]
			[[ -s "$link/vdso" ]] ;;
		*)
			[[ "$(readlink "$link")" == "../..$(realpath "$name")/$id" ]]
			cmp "$link/elf" "$name" ;;
		esac
	done <ids
	grep -q " $PWD/bin/bidw\$" ids
	grep -q ' \[vdso\]$' ids
	# perf's SDT probe cache beside them: empty, as neither has SDT probes.
	for id in $(awk -v p="$PWD/bin/bidw" '$2 == p || $2 == "[vdso]" { print $1 }' ids); do
		probes=$HOME/.debug/.build-id/${id:0:2}/${id:2}/probes
		[[ -f "$probes" ]]
		[[ ! -s "$probes" ]]
	done
	# perf buildid-cache reads the same cache: each id is there (it lists
	# files and the kernel, never the vdso, perf's own too).
	perf_ok buildid-cache --list
	while read -r id name; do
		[[ "$name" == '[vdso]' ]] || grep -qxF "$id $name" "$PERF_OUT"
	done <ids
}

@test "-p and --threads: a running process's maps from /proc, its samples through two readers, listed and cached" {
	cp "$W/parallel" bin/
	bin/parallel -t 4 >/dev/null &
	pid=$!
	wait_for tasks_at_least "$pid" 2
	pc_record -p "$pid" --threads=cpu -e cpu-clock -o pc.data -- sleep 1
	kill "$pid"
	wait "$pid" || true
	bid_names pc.data >table
	bid_names pc.data --with-hits >hits
	{ cat hits; echo '[vdso]'; } | sort -u | diff -u - table
	grep -qx "$PWD/bin/parallel" table
	id=$(bid_of pc.data "$PWD/bin/parallel")
	cmp "$HOME/.debug/.build-id/${id:0:2}/${id:2}/elf" bin/parallel
}

@test "--switch-output: each file lists the DSOs of its own samples" {
	# The program, then a second of sleep: the last files see only the sleep.
	pc_record -e cpu-clock --switch-output=200ms -o sw.data -- sh -c 'bin/bidw; sleep 1'
	files=(sw.data.*)
	echo "${#files[@]} files"
	[[ ${#files[@]} -ge 3 ]]
	for f in "${files[@]}"; do
		bid_names "$f" >"$f.table"
		bid_names "$f" --with-hits >"$f.hits"
		{ cat "$f.hits"; echo '[vdso]'; } | sort -u | diff -u - "$f.table"
	done
	cat "${files[@]/%/.table}" | grep -qx "$PWD/bin/bidw"
	# A list carried over from the files before would name the program here.
	refute grep -qx "$PWD/bin/bidw" "${files[-1]}.table"
}

@test "a program replaced on disk while it ran: its id from the MMAP2 record, and no other file cached under it" {
	cp "$BATS_FILE_TMPDIR/src/bidw-other" other
	old=$(readelf -n bin/bidw | awk '/Build ID/ { print $3 }')
	new=$(readelf -n other | awk '/Build ID/ { print $3 }')
	[[ -n "$old" && -n "$new" && "$old" != "$new" ]]
	pc_record -e cpu-clock -o pc.data -- sh -c "bin/bidw & sleep 0.2; cp other bin/bidw.new; mv bin/bidw.new bin/bidw; wait"
	# The section names the program that ran.
	[[ "$(bid_of pc.data "$PWD/bin/bidw")" == "$old" ]]
	# The path now holds the other file: it is not cached as the old id.
	refute test -e "$HOME/.debug/.build-id/${old:0:2}/${old:2}"
	refute test -e "$HOME/.debug/.build-id/${new:0:2}/${new:2}"
}

@test "-N: the BUILD_ID section is written, ~/.debug is left alone" {
	pc_record -N -e cpu-clock -o pc.data -- bin/bidw
	refute test -e "$HOME/.debug"
	bid_names pc.data >names
	grep -qx "$PWD/bin/bidw" names
	# Without -N the same recording fills it.
	pc_record -e cpu-clock -o pc2.data -- bin/bidw
	[[ -d "$HOME/.debug/.build-id" ]]
}

@test "-B: no BUILD_ID section and no cache" {
	pc_record -B -e cpu-clock -o pc.data -- bin/bidw
	refute test -e "$HOME/.debug"
	missing_features pc.data >missing
	grep -qx BUILD_ID missing
}

@test "\$PERF_BUILDID_DIR is where the cache goes, not ~/.debug" {
	export PERF_BUILDID_DIR=$BATS_TEST_TMPDIR/ids
	pc_record -e cpu-clock -o pc.data -- bin/bidw
	refute test -e "$HOME/.debug"
	id=$(bid_of pc.data "$PWD/bin/bidw")
	[[ -n "$id" ]]
	cmp "$PERF_BUILDID_DIR/.build-id/${id:0:2}/${id:2}/elf" bin/bidw
}

@test "perf's buildid.dir (~/.perfconfig): perfcap fills the cache there, and perf archive packs it from there" {
	printf '[buildid]\n\tdir = %s\n' "$BATS_TEST_TMPDIR/ids" >"$HOME/.perfconfig"
	pc_record -e cpu-clock -o pc.data -- bin/bidw
	refute test -e "$HOME/.debug"
	id=$(bid_of pc.data "$PWD/bin/bidw")
	[[ -n "$id" ]]
	cmp "$BATS_TEST_TMPDIR/ids/.build-id/${id:0:2}/${id:2}/elf" bin/bidw
	perf_ok archive pc.data
	tar tjf pc.data.tar.bz2 | grep -q "bin/bidw/$id/elf\$"
}

@test "--buildid-all: every DSO mapped, as perf record --buildid-all lists them" {
	perf_record --buildid-all -e cpu-clock -o perf.data -- bin/bidw
	pc_record --buildid-all -e cpu-clock -o pc.data -- bin/bidw
	bid_names perf.data >perf.names
	bid_names pc.data >pc.names
	diff -u perf.names pc.names
	# More than the hits: libc is mapped, and this workload spends nothing there.
	grep -q '/libc\.so\.6$' pc.names
}
