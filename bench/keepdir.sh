# SPDX-License-Identifier: GPL-2.0
# shellcheck shell=bash
# Sourced by bench/loss.sh, bench/capped.sh and bench/realprog.sh.

# keep_dir NAME DIR: where a run's raw.csv and table.md go: DIR, or with
# -n NAME a new experiment folder RESULTS/YYYY-MM-DD-NAME (RESULTS:
# bench/results). Prints it; a NAME that is not a-z, 0-9 and '-', or a
# folder that exists already, is said on stderr and returns 2.
keep_dir() {
	local me d
	me=bench/$(basename "$0")
	if [ -z "$1" ]; then
		echo "$2"
		return 0
	fi
	[[ $1 =~ ^[a-z0-9][a-z0-9-]*$ ]] || { echo "$me: -n '$1': use a-z, 0-9 and '-'" >&2; return 2; }
	d=${RESULTS:-bench/results}/$(date +%F)-$1
	[ ! -e "$d" ] || { echo "$me: $d exists: pick another -n NAME" >&2; return 2; }
	echo "$d"
}
