#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
# Print perfcap's version: the one the binary reports, writes into
# perf.data (HEADER_VERSION) and `make dist` names its tarball after.
#
#   1. A release tarball (`make dist`) carries a VERSION file: that.
#   2. A git checkout: `git describe` of a tag "vX.Y" ("0.2", or
#      "0.2-3-gabc1234" three commits later); without such a tag, the
#      base release from src/version.h and the commit ("0.1-gabc1234").
#      "-dirty" when tracked files differ from the commit.
#   3. Neither: the base release.
# The base release lives in one place, PERFCAP_BASE_VERSION in src/version.h.
set -eu
cd "$(dirname "$0")/.."

if [ -s VERSION ]; then
	head -n1 VERSION
	exit 0
fi
base=$(sed -n 's/^#define PERFCAP_BASE_VERSION "\(.*\)"$/\1/p' src/version.h)
# Only this tree's own .git: a tarball unpacked inside another repository
# must not take that repository's version.
if [ -e .git ] && command -v git >/dev/null 2>&1; then
	# No --dirty: it refreshes the index under index.lock, which would
	# race with a commit in the same tree; diff-index takes no lock.
	export GIT_OPTIONAL_LOCKS=0
	dirty=
	git diff-index --quiet HEAD -- 2>/dev/null || dirty=-dirty
	if v=$(git describe --tags --match 'v[0-9]*' 2>/dev/null); then
		echo "${v#v}$dirty"
		exit 0
	fi
	if h=$(git rev-parse --short=7 HEAD 2>/dev/null); then
		echo "$base-g$h$dirty"
		exit 0
	fi
fi
echo "$base"
