/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFCAP_VERSION_H
#define PERFCAP_VERSION_H

/*
 * The release: the one place it is written down (scripts/version.sh reads
 * it; debian/changelog names the same release for the package).
 */
#define PERFCAP_BASE_VERSION "0.1"

/*
 * The build's version, also what perf report prints as "# perf version :"
 * for our files. The Makefile writes perfcap-version.h into the build
 * directory from scripts/version.sh (git describe in a checkout, the
 * VERSION file of a release tarball); a compile without it gets the base.
 */
#if defined(__has_include)
#if __has_include("perfcap-version.h")
#include "perfcap-version.h"
#endif
#endif
#ifndef PERFCAP_VERSION
#define PERFCAP_VERSION PERFCAP_BASE_VERSION
#endif

#endif
