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
#include <sys/stat.h>

#include "cli/builtin.h"
#include "profile/pprof.h"
#include "util.h"

static const char pprof_usage[] =
	"usage: perfcap pprof [-i IN] [-o OUT] [options]\n"
	"       perfcap pprof [-o DIR] [options] FILE...\n"
	"\n"
	"Write a recording (perf's or perfcap's: a file, a --threads directory or a\n"
	"pipe-format stream; -z or not; frame pointers, LBR-less callchains or DWARF\n"
	"stacks, which are unwound first) as a gzipped pprof profile\n"
	"(perftools.profiles.Profile), what go tool pprof, Pyroscope and Parca read.\n"
	"Several FILEs (a --switch-output set: perf.data.2026*) give one profile\n"
	"each, FILE.pb.gz beside it or in DIR.\n"
	"Samples with the same frames and labels become one, their counts and\n"
	"periods summed; functions come from the DSOs' symbol tables and kallsyms,\n"
	"and every mapping carries its file name and build id.\n"
	"\n"
	"  -i, --input IN        the recording (default perf.data; - for standard input)\n"
	"  -o, --output OUT      the profile (default profile.pb.gz; - for standard output);\n"
	"                        with several FILEs, a directory for their profiles\n"
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
	"Exit status: 0 written, 1 a recording cannot be read or a profile written\n"
	"(the others are still written), 2 usage error.\n";

/* One recording into one profile, and what it says of it; 0 or 1. */
static int one(struct pprof_opts *o, bool quiet)
{
	struct pprof_stats st;

	if (pprof_write(o, &st))
		return 1;
	if (!st.samples)
		fprintf(stderr, "perfcap pprof: %s has no samples%s: the profile is empty\n",
			o->input, o->event ? " of that event" : "");
	if (st.lost || st.lost_samples)
		fprintf(stderr, "perfcap pprof: %s lost %" PRIu64 " events (LOST) and %" PRIu64
			" samples (LOST_SAMPLES); the profile's comment says so\n",
			o->input, st.lost, st.lost_samples);
	if (!quiet)
		fprintf(stderr, "perfcap pprof: %" PRIu64 " samples of %d event%s%s as %" PRIu64
			" profile samples, %" PRIu64 " locations (%" PRIu64 " without a function), %"
			PRIu64 " functions, %" PRIu64 " mappings%s -> %s\n",
			st.samples, st.events, st.events == 1 ? "" : "s",
			st.unwound ? " (DWARF stacks unwound)" : "", st.stacks, st.locations,
			st.unsymbolized, st.functions, st.mappings,
			st.kernel_frames && !st.kernel_symbols ?
				"; no kallsyms for the recording's kernel" : "",
			o->output);
	return 0;
}

/* Several recordings: each FILE into FILE.pb.gz, or into DIR/BASENAME.pb.gz. */
static int each(struct pprof_opts *o, bool quiet, const char *dir, char **files, int n)
{
	int rc = 0;

	for (int i = 0; i < n; i++) {
		const char *base = strrchr(files[i], '/');
		char *out;

		if (!strcmp(files[i], "-")) {
			fprintf(stderr, "perfcap pprof: standard input is one recording: -i -\n");
			rc = 1;
			continue;
		}
		base = base ? base + 1 : files[i];
		if (dir && asprintf(&out, "%s/%s.pb.gz", dir, base) < 0)
			out = NULL;
		else if (!dir && asprintf(&out, "%s.pb.gz", files[i]) < 0)
			out = NULL;
		if (!out) {
			fprintf(stderr, "perfcap pprof: out of memory\n");
			return 1;
		}
		o->input = files[i];
		o->output = out;
		rc |= one(o, quiet);
		free(out);
	}
	return rc;
}

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
	bool quiet = false, have_input = false, have_output = false;
	struct stat sb;
	int opt;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "i:o:j:qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'i':
			o.input = optarg;
			have_input = true;
			break;
		case 'o':
			o.output = optarg;
			have_output = true;
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
	verbose = o.verbose >= 2;
	if (optind == argc)
		return one(&o, quiet);
	if (have_input) {
		fprintf(stderr, "perfcap pprof: -i %s and FILE '%s': one or the other\n%s", o.input,
			argv[optind], pprof_usage);
		return 2;
	}
	if (argc - optind == 1 && !(have_output && !stat(o.output, &sb) && S_ISDIR(sb.st_mode))) {
		/* One FILE: as -i FILE (its profile where -o says, else FILE.pb.gz). */
		if (have_output) {
			o.input = argv[optind];
			return one(&o, quiet);
		}
		return each(&o, quiet, NULL, argv + optind, 1);
	}
	if (have_output && (stat(o.output, &sb) || !S_ISDIR(sb.st_mode))) {
		fprintf(stderr, "perfcap pprof: -o %s: with several FILEs, a directory that exists\n",
			o.output);
		return 2;
	}
	return each(&o, quiet, have_output ? o.output : NULL, argv + optind, argc - optind);
}
