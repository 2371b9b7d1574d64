// SPDX-License-Identifier: GPL-2.0
/*
 * perfcap inject --convert-callchain: a DWARF recording with its user
 * stacks unwound into callchains (inject/convert.h), so that perf report
 * and perf script read callchains and unwind nothing. perf's own name
 * for it (perf inject --convert-callchain, which perf 6.1 lacks).
 */
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/builtin.h"
#include "inject/convert.h"
#include "util.h"

static const char inject_usage[] =
	"usage: perfcap inject --convert-callchain [-i IN] [-o OUT] [options]\n"
	"\n"
	"Unwind every DWARF sample of a recording (--call-graph dwarf; perf's or\n"
	"perfcap's, a file or a pipe-format stream) into its callchain, so that perf\n"
	"report and perf script read callchains and unwind nothing. The user stack\n"
	"copies and registers go; every other record is kept as it was.\n"
	"\n"
	"  --convert-callchain   what to do (the only conversion perfcap inject makes)\n"
	"  -i, --input IN        the recording (default perf.data; - for standard input)\n"
	"  -o, --output OUT      where to write it (required; - for standard output,\n"
	"                        for a pipe-format input)\n"
	"  -j, --jobs N          unwinding threads (default: one per online CPU)\n"
	"      --max-stack N     user frames per sample at most (default 127, perf's)\n"
	"  -q, --quiet           no summary\n"
	"  -v, --verbose         the summary with every DSO that stopped an unwinding;\n"
	"                        -vv: each sample that stopped early, where and why\n"
	"  -h, --help            this text\n"
	"\n"
	"Exit status: 0 converted, 1 the recording cannot be read or written (or has\n"
	"no DWARF stacks), 2 usage error.\n";

static void print_summary(const struct convert_opts *o, const struct convert_stats *st,
			  double secs)
{
	fputs("perfcap inject: ", stderr);
	convert_stats__print(stderr, st, secs, o->verbose > 0);
	fprintf(stderr, "perfcap inject: %.1f MB of records in, %.1f MB out (%.1f%%)\n",
		st->bytes_in / 1e6, st->bytes_out / 1e6,
		st->bytes_in ? 100.0 * st->bytes_out / st->bytes_in : 0.0);
	if (o->verbose)
		fprintf(stderr, "perfcap inject: %" PRIu64 " processes, %" PRIu64 " maps, %" PRIu64
			" DSOs in the recording\n", st->procs, st->maps, st->dsos);
}

int cmd_inject(int argc, char **argv)
{
	enum { OPT_CONVERT = 256, OPT_MAX_STACK };
	static const struct option longopts[] = {
		{ "convert-callchain", no_argument, NULL, OPT_CONVERT },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "max-stack", required_argument, NULL, OPT_MAX_STACK },
		{ "quiet", no_argument, NULL, 'q' },
		{ "verbose", no_argument, NULL, 'v' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct convert_opts o = { .input = "perf.data", .max_stack = 127 };
	struct convert_stats st;
	bool convert = false, quiet = false;
	uint64_t t0;
	int opt, err;

	opterr = 0;
	while ((opt = getopt_long(argc, argv, "i:o:j:qvh", longopts, NULL)) != -1) {
		switch (opt) {
		case OPT_CONVERT:
			convert = true;
			break;
		case 'i':
			o.input = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'j':
			if (builtin__parse_count("inject", "--jobs", optarg, 1, 64, &o.threads))
				return 2;
			break;
		case OPT_MAX_STACK:
			if (builtin__parse_count("inject", "--max-stack", optarg, 1, 1024,
						 &o.max_stack))
				return 2;
			break;
		case 'q':
			quiet = true;
			break;
		case 'v':
			o.verbose++;
			break;
		case 'h':
			fputs(inject_usage, stdout);
			return 0;
		default:
			return builtin__bad_option("inject", argv, inject_usage);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "perfcap inject: unexpected '%s'\n%s", argv[optind], inject_usage);
		return 2;
	}
	if (!convert) {
		fprintf(stderr, "perfcap inject: --convert-callchain is the only conversion perfcap "
			"makes; say it\n%s", inject_usage);
		return 2;
	}
	if (!o.output) {
		fprintf(stderr, "perfcap inject: -o OUT is required (- for standard output)\n");
		return 2;
	}
	if (strcmp(o.output, "-") && strcmp(o.input, "-") && !strcmp(o.output, o.input)) {
		fprintf(stderr, "perfcap inject: -o %s would overwrite its own input\n", o.output);
		return 2;
	}
	/* -vv: the unwinder says where each early stop happened (pr_debug). */
	verbose = o.verbose >= 2;
	t0 = mono_ns();
	err = convert_callchain(&o, &st);
	if (!err && !quiet)
		print_summary(&o, &st, (mono_ns() - t0) / 1e9);
	convert_stats__exit(&st);
	return err ? 1 : 0;
}
