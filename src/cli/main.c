// SPDX-License-Identifier: GPL-2.0
/* argv -> command -> exit code, nothing else. */
#include <stdio.h>
#include <string.h>

#include "cli/builtin.h"
#include "version.h"

static const char usage[] =
	"usage: perfcap <command> [options]\n"
	"\n"
	"  record   record a profile into perf.data (perf record's options)\n"
	"  loss     report what the kernel lost in a perf.data file or directory\n"
	"  dump     print a perf.data file's header and records (debugging)\n"
	"  test     check that perfcap records correctly on this machine\n"
	"  trim     cut a pipe-format recording's DWARF stacks to what was filled\n"
	"  inject   --convert-callchain: unwind a DWARF recording into callchains\n"
	"  pprof    write a recording as a pprof profile (go tool pprof, Pyroscope, Parca)\n"
	"\n"
	"perfcap <command> --help for a command's options.\n"
	"Exit status: 0 success, 1 runtime failure, 2 usage error.\n";

int main(int argc, char **argv)
{
	const char *cmd = argc > 1 ? argv[1] : NULL;

	if (!cmd || !strcmp(cmd, "-h") || !strcmp(cmd, "--help") || !strcmp(cmd, "help")) {
		fputs(usage, cmd ? stdout : stderr);
		return cmd ? 0 : 2;
	}
	/* As perf answers "perf -v", "perf --version" and "perf version". */
	if (!strcmp(cmd, "-v") || !strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
		printf("perfcap version %s\n", PERFCAP_VERSION);
		return 0;
	}
	if (!strcmp(cmd, "record"))
		return cmd_record(argc - 1, argv + 1);
	if (!strcmp(cmd, "loss"))
		return cmd_loss(argc - 1, argv + 1);
	if (!strcmp(cmd, "dump"))
		return cmd_dump(argc - 1, argv + 1);
	if (!strcmp(cmd, "test"))
		return cmd_test(argc - 1, argv + 1);
	if (!strcmp(cmd, "trim"))
		return cmd_trim(argc - 1, argv + 1);
	if (!strcmp(cmd, "inject"))
		return cmd_inject(argc - 1, argv + 1);
	if (!strcmp(cmd, "pprof"))
		return cmd_pprof(argc - 1, argv + 1);
	fprintf(stderr, "perfcap: unknown command '%s'\n\n%s", cmd, usage);
	return 2;
}
