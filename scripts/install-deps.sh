#!/bin/sh
# Install everything perfcap needs to build, run and test on Debian 12.
# Idempotent: a no-op when every package is already there.
#
#   scripts/install-deps.sh          install what is missing (as root)
#   scripts/install-deps.sh --tools  print the packages and the commands
#                                    they give, a word a line, and install
#                                    nothing: tests/run fails a test that
#                                    skips for one of them
set -eu

PKGS="build-essential pkg-config
      libelf-dev libdw-dev libzstd-dev liburing-dev
      libtraceevent-dev libtracefs-dev
      libcmocka-dev bats linux-perf
      procps util-linux time python3 python3-zstandard
      hotspot
      librsvg2-bin chromium clang
      dpkg-dev debhelper lintian git man-db
      pv libbpf-dev bpftool libfuse3-dev fuse3 libunwind-dev
      qemu-user gcc-aarch64-linux-gnu libc6-dev-arm64-cross
      protobuf-c-compiler libprotobuf-c-dev golang-github-google-pprof-dev
      zlib1g-dev libiberty-dev golang-go g++ xz-utils"

# The aarch64 build links against Debian's arm64 -dev packages (multiarch);
# its unit tests run under qemu-aarch64.
ARM64_PKGS="libelf-dev:arm64 libdw-dev:arm64 libzstd-dev:arm64
      liburing-dev:arm64 libtraceevent-dev:arm64 libtracefs-dev:arm64
      libcmocka-dev:arm64 libbpf-dev:arm64 libprotobuf-c-dev:arm64
      zlib1g-dev:arm64 libiberty-dev:arm64"

# The commands the tests look for, beyond the packages' own names.
TOOLS="perf hotspot-perfparser setpriv go pprof man rsvg-convert fusermount3
      qemu-aarch64 aarch64-linux-gnu-gcc dpkg-buildpackage objcopy xz
      zstandard"

if [ "${1:-}" = --tools ]; then
	# shellcheck disable=SC2086
	printf '%s\n' $PKGS $TOOLS
	exit 0
fi

missing=""
for p in $PKGS $ARM64_PKGS; do
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
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
apt-get update -qq
# shellcheck disable=SC2086
apt-get install -y -qq --no-install-recommends $missing >/dev/null
