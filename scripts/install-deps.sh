#!/bin/sh
# Install everything perfcap needs to build, run and test on Debian 12.
# Idempotent: a no-op when every package is already there.
set -eu

PKGS="build-essential pkg-config
      libelf-dev libdw-dev libzstd-dev liburing-dev
      libtraceevent-dev libtracefs-dev
      libcmocka-dev bats linux-perf
      procps util-linux time python3 python3-zstandard
      hotspot
      librsvg2-bin chromium clang
      dpkg-dev debhelper lintian git man-db"

missing=""
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

if [ "$(id -u)" != 0 ]; then
	echo "install-deps: missing packages:$missing" >&2
	echo "install-deps: run this script as root (or: sudo $0)" >&2
	exit 1
fi
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
