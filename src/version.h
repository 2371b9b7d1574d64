/* SPDX-License-Identifier: GPL-2.0 */
#ifndef PERFCAP_VERSION_H
#define PERFCAP_VERSION_H

/* Also what perf report prints as "# perf version :" for our files. */
#define PERFCAP_VERSION "0.1"

#endif
