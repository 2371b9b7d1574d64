// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap pprof: a recording as a gzipped pprof profile (profile/pprof.h),
 * for go tool pprof and the continuous-profiling stores that take pprof.
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "profile/pprof.h"
#include "util.h"

static const char pprof_usage[] =
	"usage: perfcap pprof [-i IN] [-o OUT] [options]\n"
	"\n"
	"Write a recording (perf's or perfcap's: a file, a --threads directory or a\n"
	"pipe-format stream; -z or not; frame pointers, LBR-less callchains or DWARF\n"
	"stacks, which are unwound first) as a gzipped pprof profile\n"
	"(perftools.profiles.Profile), what go tool pprof, Pyroscope and Parca read.\n"
	"Samples with the same frames and labels become one, their counts and\n"
	"periods summed; functions come from the DSOs' symbol tables and kallsyms,\n"
	"and every mapping carries its file name and build id.\n"
	"\n"
	"  -i, --input IN        the recording (default perf.data; - for standard input)\n"
	"  -o, --output OUT      the profile (default profile.pb.gz; - for standard output)\n"
	"      --event NAME      only this event's samples (default: every event's,\n"
	"                        a sample type pair each)\n"
	"      --labels LIST     labels of each sample, of pid,tid,comm,cpu (default\n"
	"                        pid,tid,comm; an empty LIST: none)\n"
	"  -j, --jobs N          threads for unwinding a DWARF recording (default: one\n"
	"                        per online CPU)\n"
	"  -q, --quiet           no summary\n"
	"  -v, --verbose         also how the unwinding went, for a DWARF recording\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 written, 1 the recording cannot be read or the profile\n"
	"written, 2 usage error.\n";

int cmd_pprof(int argc, char **argv)
{
	enum { OPT_EVENT = 256, OPT_LABELS };
	static const struct option longopts[] = {
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "event", required_argument, NULL, OPT_EVENT },
		{ "labels", required_argument, NULL, OPT_LABELS },
		{ "jobs", required_argument, NULL, 'j' },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct pprof_opts o = {
		.input = "perf.data", .output = "profile.pb.gz", .labels = PPROF_LABELS_DEFAULT,
	};
	struct pprof_stats st;
	bool quiet = false;
	int opt, err;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "i:o:j:qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o.input = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case OPT_EVENT:
			o.event = optarg;
			break;
		case OPT_LABELS:
			if (pprof_parse_labels(optarg, &o.labels)) {
				fprintf(stderr, "perfcap pprof: --labels '%s': a list of pid, tid, comm "
					"and cpu\n", optarg);
				return 2;
			}
			break;
		case 'j':
			if (builtin__parse_count("pprof", "--jobs", optarg, 1, 64, &o.threads))
				return 2;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'h':
			fputs(pprof_usage, stdout);
			return 0;
		default:
			return builtin__bad_option("pprof", argv, pprof_usage);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfcap pprof: unexpected '%s'\n%s", argv[optind], pprof_usage);
		return 2;
	}
	verbose = o.verbose >= 2;
	err = pprof_write(&o, &st);
	if (err)
		return 1;
	if (!st.samples)
		fprintf(stderr, "perfcap pprof: %s has no samples%s: the profile is empty\n",
			o.input, o.event ? " of that event" : "");
	if (st.lost || st.lost_samples)
		fprintf(stderr, "perfcap pprof: the recording lost %" PRIu64 " events (LOST) and %"
			PRIu64 " samples (LOST_SAMPLES); the profile's comment says so\n",
			st.lost, st.lost_samples);
	if (!quiet)
		fprintf(stderr, "perfcap pprof: %" PRIu64 " samples of %d event%s%s as %" PRIu64
			" profile samples, %" PRIu64 " locations (%" PRIu64 " without a function), %"
			PRIu64 " functions, %" PRIu64 " mappings%s -> %s\n",
			st.samples, st.events, st.events == 1 ? "" : "s",
			st.unwound ? " (DWARF stacks unwound)" : "", st.stacks, st.locations,
			st.unsymbolized, st.functions, st.mappings,
			st.kernel_frames && !st.kernel_symbols ?
				"; no kallsyms for the recording's kernel" : "",
			o.output);
	return 0;
}
