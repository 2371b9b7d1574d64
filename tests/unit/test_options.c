// SPDX-License-Identifier: GPL-2.0
/*
 * options.c: every option of "perfcap record" with good and bad values,
 * the conflicts, and where the command starts. Each row parses a command
 * line and compares a rendering of every non-default field with the row's
 * expectation, so an option that sets more than it should fails too.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli/options.h"
#include "util.h"

#define MAX_ARGS 16

struct opt_case {
	const char *argv[MAX_ARGS];	/* after "record"; NULL-terminated */
	/*
	 * On success: the rendering of opts (see render()). On a usage
	 * error: "!" and the message, or "!=" and the exact message.
	 */
	const char *want;
};

static const struct opt_case cases[] = {
	/* targets */
	{ { "-a" },				"system_wide" },
	{ { "--all-cpus" },			"system_wide" },
	{ { "-C", "0-3,7" },			"system_wide cpu=0-3,7" },
	{ { "--cpu=1" },			"system_wide cpu=1" },
	{ { "-C1", "-a" },			"system_wide cpu=1" },
	{ { "-C", "a" },			"!=invalid -C value 'a': expected a CPU list like 0-3,7" },
	{ { "-C", "3-1" },			"!invalid -C value '3-1'" },
	{ { "-C", "" },				"!invalid -C value ''" },
	{ { "-C", "1,,2" },			"!invalid -C value '1,,2'" },
	{ { "-p", "123" },			"pid=123" },
	{ { "--pid", "1,2,3" },			"pid=1,2,3" },
	{ { "--pid=5" },			"pid=5" },
	{ { "-p", "abc" },			"!=invalid -p value 'abc': expected comma separated process ids" },
	{ { "-p", "0" },			"!invalid -p value '0'" },
	{ { "-p", "-1" },			"!invalid -p value '-1'" },
	{ { "-p", "1,,2" },			"!invalid -p value '1,,2'" },
	{ { "-p", "1," },			"!invalid -p value '1,'" },
	{ { "-p", "99999999999" },		"!invalid -p value '99999999999'" },
	{ { "-t", "7" },			"tid=7 no_inherit" },	/* perf: -t inherits nothing */
	{ { "-t", "7", "--inherit" },		"tid=7" },	/* ... unless asked */
	{ { "--inherit", "-t", "7", "-i" },	"tid=7 no_inherit" },
	{ { "--tid", "7,8" },			"tid=7,8 no_inherit" },
	{ { "-t", "x" },			"!=invalid -t value 'x': expected comma separated thread ids" },

	/* events */
	{ { "-e", "cs", "-a" },			"system_wide events=cs" },
	{ { "--event=cpu-clock", "-a" },	"system_wide events=cpu-clock" },
	{ { "-e", "cs", "-e", "faults", "-a" },	"system_wide events=cs,faults" },
	{ { "-e", "a,b", "--event", "c", "-e", "d", "-a" }, "system_wide events=a,b,c,d" },
	{ { "-e", "", "-a" },			"!invalid -e value ''" },
	{ { "-c", "1000", "-a" },		"system_wide period=1000" },
	{ { "--count=0x10", "-a" },		"system_wide period=16" },
	{ { "-c", "0", "-a" },			"!=invalid -c value '0': expected a positive number" },
	{ { "-c", "abc", "-a" },		"!invalid -c value 'abc'" },
	{ { "-c", "-5", "-a" },			"!invalid -c value '-5'" },
	{ { "-c", "5k", "-a" },			"!invalid -c value '5k'" },
	{ { "-c", "99999999999999999999", "-a" }, "!invalid -c value '99999999999999999999'" },
	{ { "-F", "1000", "-a" },		"system_wide freq=1000" },
	{ { "--freq=99", "-a" },		"system_wide freq=99" },
	{ { "-F", "max", "-a" },		"system_wide freq=max" },
	{ { "-F", "max", "-F", "10", "-a" },	"system_wide freq=10" },
	{ { "-F", "abc", "-a" },		"!=invalid -F value 'abc': expected a positive number or 'max'" },
	{ { "-F", "0", "-a" },			"!invalid -F value '0'" },
	{ { "-F", "10x", "-a" },		"!invalid -F value '10x'" },
	{ { "-F", "MAX", "-a" },		"!invalid -F value 'MAX'" },
	{ { "-F", " 10", "-a" },		"!invalid -F value ' 10'" },

	/* call graphs */
	{ { "-g", "-a" },			"system_wide callgraph=fp" },
	{ { "--call-graph", "fp", "-a" },	"system_wide callgraph=fp" },
	{ { "--call-graph=dwarf", "-a" },	"system_wide callgraph=dwarf" },
	{ { "--call-graph", "dwarf,4096", "-a" }, "system_wide callgraph=dwarf dwarf_size=4096" },
	{ { "--call-graph", "dwarf,0x1000", "-a" }, "system_wide callgraph=dwarf dwarf_size=4096" },
	{ { "--call-graph", "dwarf,13", "-a" },	"system_wide callgraph=dwarf dwarf_size=16" },
	{ { "--call-graph", "dwarf,65528", "-a" }, "system_wide callgraph=dwarf dwarf_size=65528" },
	{ { "--call-graph", "dwarf,65521", "-a" }, "system_wide callgraph=dwarf dwarf_size=65528" },
	{ { "--call-graph", "dwarf,65529", "-a" }, "!=invalid --call-graph value 'dwarf,65529': dwarf stack size must be 1..65528 bytes" },
	{ { "--call-graph", "dwarf,0", "-a" },	"!invalid --call-graph value 'dwarf,0'" },
	{ { "--call-graph", "dwarf,", "-a" },	"!invalid --call-graph value 'dwarf,'" },
	{ { "--call-graph", "dwarf,abc", "-a" }, "!invalid --call-graph value 'dwarf,abc'" },
	{ { "--call-graph", "dwarf,-8", "-a" },	"!invalid --call-graph value 'dwarf,-8'" },
	/* lbr is perf's too: the kernel refuses it where the PMU has no LBR */
	{ { "--call-graph", "lbr", "-a" },	"system_wide callgraph=lbr" },
	{ { "--call-graph", "fp,8", "-a" },	"!invalid --call-graph value 'fp,8'" },
	{ { "--call-graph", "xyz", "-a" },	"!=invalid --call-graph value 'xyz': expected fp, dwarf, dwarf,SIZE or lbr" },
	/* -g only switches call graphs on; it keeps a mode already chosen, as in perf. */
	{ { "--call-graph", "dwarf", "-g", "-a" }, "system_wide callgraph=dwarf" },
	{ { "--call-graph", "dwarf", "--unwind", "-a" }, "system_wide callgraph=dwarf unwind" },
	{ { "--unwind", "--call-graph", "dwarf,4096", "-a" }, "system_wide callgraph=dwarf dwarf_size=4096 unwind" },
	{ { "--unwind", "-g", "-a" },		"!--unwind unwinds DWARF stacks: it needs --call-graph dwarf" },
	{ { "--unwind", "-a" },			"!--unwind unwinds DWARF stacks" },
	{ { "--call-graph", "dwarf", "--unwind", "--user-buffer-size=0", "-a" }, "!--unwind works behind the triage stage" },
	{ { "--call-graph", "dwarf", "--unwind", "-zauto", "-a" }, "!--unwind works behind the triage stage" },
	{ { "--call-graph", "dwarf", "--unwind", "--overwrite", "-a" }, "!--unwind works behind the triage stage" },
	{ { "--call-graph", "dwarf", "--unwind", "-z", "-a" }, "system_wide callgraph=dwarf unwind comp_level=1" },
	{ { "-g", "--call-graph", "dwarf", "-a" }, "system_wide callgraph=dwarf" },

	/* buffers and output (sizes depend on the page size: see test_mmap_size) */
	{ { "-m", "8", "-a" },			"system_wide mmap_pages=8" },
	{ { "--mmap-pages=1", "-a" },		"system_wide mmap_pages=1" },
	/* perf rounds up to a power of two, with a notice (its size depends on the page size) */
	{ { "-m", "3", "-a" },			"system_wide mmap_pages=4 notice0" },
	{ { "-m", "8,3", "-a" },		"system_wide mmap_pages=8 aux_pages=4 notice1" },
	{ { "-m", ",16", "-a" },		"system_wide aux_pages=16" },
	{ { "-m", "8,", "-a" },			"!invalid -m value '8,'" },
	{ { "-m", "8,x", "-a" },		"!invalid -m value '8,x'" },
	{ { "-m", "0", "-a" },			"!=invalid -m value '0': need at least one page" },
	{ { "-m", "abc", "-a" },		"!=invalid -m value 'abc': expected a number of pages or a size with B, K, M or G suffix" },
	{ { "-m", "5X", "-a" },			"!invalid -m value '5X'" },
	{ { "-m", "K", "-a" },			"!invalid -m value 'K'" },
	{ { "-m", "", "-a" },			"!invalid -m value ''" },
	{ { "-m", "-4", "-a" },			"!invalid -m value '-4'" },
	{ { "-m", "8,8", "-a" },		"system_wide mmap_pages=8 aux_pages=8" },
	{ { "-m", "8,8,8", "-a" },		"!invalid -m value '8,8,8'" },
	{ { "-m", "4294967296", "-a" },		"!invalid -m value '4294967296'" },
	{ { "-o", "out.data", "-a" },		"system_wide output=out.data" },
	{ { "--output=x", "-a" },		"system_wide output=x" },
	{ { "--out", "y", "-a" },		"system_wide output=y" },	/* unique prefix */
	{ { "-o", "", "-a" },			"!invalid -o value ''" },
	{ { "-o", "-", "-a" },			"system_wide output=-" },
	{ { "-z", "-a" },			"system_wide comp_level=1" },
	{ { "-z5", "-a" },			"system_wide comp_level=5" },
	{ { "--compression-level=22", "-a" },	"system_wide comp_level=22" },
	{ { "--compression-level", "-a" },	"system_wide comp_level=1" },
	{ { "-z0", "-a" },			"system_wide comp_level=3" },	/* zstd's default */
	{ { "-z23", "-a" },			"!=invalid -z value '23': expected a zstd level 1..22, or auto" },
	{ { "-zauto", "-a" },			"system_wide comp_level=1 comp_auto" },
	{ { "--compression-level=auto", "-a" },	"system_wide comp_level=1 comp_auto" },
	{ { "-zauto", "-z5", "-a" },		"system_wide comp_level=5" },	/* the last one given */
	{ { "-zauto", "--user-buffer-size=0", "-a" }, "!-zauto compresses once the triage stage" },
	{ { "-zauto", "--user-buffer-size=1M", "-a" }, "system_wide comp_level=1 comp_auto" },
	{ { "-zx", "-a" },			"!invalid -z value 'x'" },
	{ { "-T", "-a" },			"system_wide sample_time" },
	{ { "--timestamp", "-a" },		"system_wide sample_time" },
	{ { "-R", "-a" },			"system_wide raw" },
	{ { "--raw-samples", "-a" },		"system_wide raw" },
	{ { "-N", "-a" },			"system_wide no_buildid_cache" },
	{ { "--no-buildid-cache", "-a" },	"system_wide no_buildid_cache" },
	{ { "-B", "-a" },			"system_wide no_buildid" },
	{ { "--no-buildid", "-a" },		"system_wide no_buildid" },
	{ { "--switch-events", "-a" },		"system_wide switch_events" },
	{ { "-i", "-a" },			"system_wide no_inherit" },
	{ { "--no-inherit", "-a" },		"system_wide no_inherit" },
	{ { "-q", "-a" },			"system_wide quiet" },
	{ { "--quiet", "-a" },			"system_wide quiet" },
	{ { "-v", "-a" },			"system_wide verbose=1" },
	{ { "-v", "-v", "--verbose", "-a" },	"system_wide verbose=3" },
	{ { "-vv", "-a" },			"system_wide verbose=2" },
	{ { "-aTRNBi" },			"system_wide sample_time raw no_inherit no_buildid_cache no_buildid" },
	{ { "-r", "10", "-a" },			"system_wide realtime=10" },
	{ { "--realtime=99", "-a" },		"system_wide realtime=99" },
	{ { "-r", "1", "-a" },			"system_wide realtime=1" },
	{ { "-r", "0", "-a" },			"!=invalid -r value '0': expected a SCHED_FIFO priority 1..99" },
	{ { "-r", "100", "-a" },		"!invalid -r value '100'" },
	{ { "-r", "x", "-a" },			"!invalid -r value 'x'" },

	/* writers */
	{ { "--aio", "-a" },			"system_wide aio=1 writer=aio" },
	{ { "--aio=4", "-a" },			"system_wide aio=4 writer=aio" },
	{ { "--aio=64", "-a" },			"system_wide aio=64 writer=aio" },
	/* optional values attach with '=' only, as in perf: "4" is the command */
	{ { "--aio", "4" },			"aio=1 writer=aio cmd=[4]" },
	{ { "--aio=0", "-a" },			"!=invalid --aio value '0': expected 1..64 buffers per ring" },
	{ { "--aio=65", "-a" },			"!invalid --aio value '65'" },
	{ { "--aio=x", "-a" },			"!invalid --aio value 'x'" },
	{ { "--aio=", "-a" },			"!invalid --aio value ''" },
	{ { "--writer=sync", "-a" },		"system_wide" },
	{ { "--writer", "aio", "-a" },		"system_wide aio=1 writer=aio" },
	{ { "--writer=uring", "-a" },		"system_wide aio=1 writer=uring" },
	{ { "--writer=uring", "--aio=8", "-a" }, "system_wide aio=8 writer=uring" },
	{ { "--aio=2", "--writer=aio", "-a" },	"system_wide aio=2 writer=aio" },
	{ { "--writer=sync", "--aio", "-a" },	"!=--aio asks for asynchronous writes; it conflicts with --writer=sync" },
	{ { "--writer=foo", "-a" },		"!=invalid --writer value 'foo': expected sync, aio or uring" },
	{ { "--reader-sched=nice", "-a" },	"system_wide readers_nice" },
	{ { "--reader-sched", "fifo", "-a" },	"system_wide" },
	{ { "--reader-sched=nice", "--reader-sched=fifo", "-a" }, "system_wide" },
	{ { "--reader-sched=rr", "-a" },	"!=invalid --reader-sched value 'rr': expected fifo or nice" },
	{ { "--status=0.5", "-a" },		"system_wide status_ns=500000000" },
	{ { "--status", "2", "-a" },		"system_wide status_ns=2000000000" },
	{ { "--status=0", "-a" },		"!=invalid --status value '0': expected seconds, 0.1 to 86400" },
	{ { "--status=x", "-a" },		"!invalid --status value 'x'" },
	/* --threads: perf's spellings; only the syntax is checked here. */
	{ { "--threads", "-a" },		"system_wide threads=cpu" },
	{ { "--threads=", "-a" },		"system_wide threads=cpu" },
	{ { "--threads=core", "-a" },		"system_wide threads=core" },
	{ { "--threads=package", "-a" },	"system_wide threads=package" },
	{ { "--threads=numa", "-a" },		"system_wide threads=numa" },
	{ { "--threads=0-1/0-1:2-3/2-3", "-a" }, "system_wide threads=0-1/0-1:2-3/2-3" },
	{ { "--threads", "sleep" },		"threads=cpu cmd=[sleep]" },
	{ { "--threads=socket", "-a" },		"!=invalid --threads value 'socket': expected cpu, core, package, numa or <cpus>/<affinity>:..." },
	{ { "--threads=0-1", "-a" },		"!--threads: '0-1' has no affinity mask" },
	{ { "--threads=0-1/x", "-a" },		"!--threads: invalid CPU list in '0-1/x'" },
	{ { "--writer=", "-a" },		"!invalid --writer value ''" },


	/* events: --filter belongs to the -e before it; --group */
	{ { "-e", "sched:*", "--filter", "prev_pid == 0", "-a" }, "system_wide events=sched:* ev[sched:*|prev_pid == 0]" },
	{ { "-e", "a", "--filter", "x", "-e", "b", "-a" }, "system_wide events=a,b ev[a|x]" },
	{ { "-e", "a", "--filter", "x", "--filter", "y", "-a" }, "system_wide events=a ev[a|(x) && (y)]" },
	{ { "--filter", "x", "-e", "a", "-a" },	"!=--filter 'x' must follow the -e tracepoint event it filters" },
	{ { "-e", "a", "--filter", "", "-a" },	"!invalid --filter value ''" },
	{ { "-e", "{cs,faults}:S", "--group", "-a" }, "system_wide events={cs,faults}:S group" },

	/* what a sample carries */
	/* registers: the build's architecture's names (events/arch-*.c) */
#if defined(__x86_64__)
	{ { "--user-regs=AX,sp", "-a" },	"system_wide user_regs=0x81" },
	{ { "--user-regs", "-a" },		"system_wide user_regs=0xff0fff" },
	{ { "--user-regs=ip,R15", "-a" },	"system_wide user_regs=0x800100" },
	{ { "--user-regs=ds", "-a" },		"!=invalid --user-regs value 'ds': unknown register 'ds' (registers: AX BX CX DX SI DI BP SP IP FLAGS CS SS R8 R9 R10 R11 R12 R13 R14 R15)" },
	{ { "--user-regs=AX,", "-a" },		"!unknown register ''" },
	{ { "-I", "-a" },			"system_wide intr_regs=0xff0fff" },
	{ { "-IAX,BX", "-a" },			"system_wide intr_regs=0x3" },
#elif defined(__aarch64__)
	{ { "--user-regs=x0,SP", "-a" },	"system_wide user_regs=0x80000001" },
	{ { "--user-regs", "-a" },		"system_wide user_regs=0x1ffffffff" },
	{ { "--user-regs=pc,lr", "-a" },	"system_wide user_regs=0x140000000" },
	{ { "--user-regs=x30", "-a" },		"!=invalid --user-regs value 'x30': unknown register 'x30' (registers: x0 x1 x2 x3 x4 x5 x6 x7 x8 x9 x10 x11 x12 x13 x14 x15 x16 x17 x18 x19 x20 x21 x22 x23 x24 x25 x26 x27 x28 x29 lr sp pc)" },
	{ { "--user-regs=AX", "-a" },		"!unknown register 'AX'" },
	{ { "--user-regs=x0,", "-a" },		"!unknown register ''" },
	{ { "-I", "-a" },			"system_wide intr_regs=0x1ffffffff" },
	{ { "-Ix0,x1", "-a" },			"system_wide intr_regs=0x3" },
#endif
	{ { "--user-regs=?" },			"list_user_regs" },
	{ { "-I?" },				"list_intr_regs" },
	{ { "--intr-regs=foo", "-a" },		"!unknown register 'foo'" },
	{ { "-d", "-W", "-P", "-a" },		"system_wide sample_addr sample_weight sample_period" },
	{ { "--data", "--weight", "--period", "-a" }, "system_wide sample_addr sample_weight sample_period" },
	{ { "--sample-cpu", "--phys-data", "--data-page-size", "--code-page-size", "-a" }, "system_wide sample_cpu phys_data data_page_size code_page_size" },
	{ { "-k", "mono", "-a" },		"system_wide clockid=1" },
	{ { "--clockid=CLOCK_MONOTONIC_RAW", "-a" }, "system_wide clockid=4" },
	{ { "-k", "realtime", "-a" },		"system_wide clockid=0" },
	{ { "-k", "boot", "-a" },		"system_wide clockid=7" },
	{ { "-k", "tai", "-a" },		"system_wide clockid=11" },
	{ { "-k", "7", "-a" },			"system_wide clockid=7" },
	{ { "-k", "foo", "-a" },		"!=invalid -k value 'foo': expected monotonic, monotonic_raw, realtime, boottime, tai or a clock number" },
	{ { "--all-user", "-a" },		"system_wide all_user" },
	{ { "--all-kernel", "-a" },		"system_wide all_kernel" },
	{ { "--all-user", "--all-kernel", "-a" }, "!=--all-user and --all-kernel are mutually exclusive" },
	{ { "-s", "-n", "-a" },			"system_wide inherit_stat no_samples" },
	{ { "-b", "-a" },			"system_wide branch=0x8" },
	{ { "-j", "any_call,u", "-a" },		"system_wide branch=0x11" },
	{ { "-j", "u,k", "-a" },		"system_wide branch=0xb" },	/* levels alone: any */
	{ { "--branch-filter=call,cond", "-a" }, "system_wide branch=0x2400" },
	{ { "-j", "bogus", "-a" },		"!invalid -j value 'bogus': unknown branch filter 'bogus'" },
	{ { "--no-bpf-event", "--buildid-mmap", "--no-buffering", "-a" }, "system_wide buildid_mmap no_bpf_event no_buffering" },

	/* control of the recording */
	{ { "-D", "500", "-a" },		"system_wide delay=500" },
	{ { "-D", "-1", "-a" },			"system_wide delay=-1" },
	{ { "--delay=10-20,30-40", "-a" },	"system_wide delay=10 ranges=10-20,30-40" },
	{ { "-D", "20-10", "-a" },		"!invalid -D value '20-10': ranges must be START-END" },
	{ { "-D", "10-20,15-30", "-a" },	"!invalid -D value '10-20,15-30'" },
	{ { "-D", "-2", "-a" },			"!invalid -D value '-2'" },
	{ { "-D", "x", "-a" },			"!=invalid -D value 'x': expected milliseconds, -1, or ranges like 10-20,30-40" },
	{ { "-D", "10-20", "--control", "fd:3", "-a" }, "!-D with time ranges and --control" },
	{ { "--control", "fifo:ctl,ack", "-a" }, "system_wide control=fifo:ctl,ack" },
	{ { "--control=fifo:ctl", "-a" },	"system_wide control=fifo:ctl" },
	{ { "--control", "fd:3,4", "-a" },	"system_wide control=fd:3,4" },
	{ { "--control", "fd:3", "-a" },	"system_wide control=fd:3" },
	{ { "--control", "fd:x", "-a" },	"!=invalid --control value 'fd:x': expected fifo:CTL-FIFO[,ACK-FIFO] or fd:CTL-FD[,ACK-FD]" },
	{ { "--control", "fifo:", "-a" },	"!invalid --control value 'fifo:'" },
	{ { "--control", "fifo:a,", "-a" },	"!invalid --control value 'fifo:a,'" },
	{ { "--control", "foo:1", "-a" },	"!invalid --control value 'foo:1'" },
	{ { "--max-size", "1M", "-a" },		"system_wide max_size=1048576" },
	{ { "--max-size=4096", "-a" },		"system_wide max_size=4096" },
	{ { "--max-size=1m", "-a" },		"!invalid --max-size value '1m'" },	/* perf's tags are upper case */
	{ { "--max-size", "1X", "-a" },		"!=invalid --max-size value '1X': expected a size in bytes, with B, K, M or G suffix" },
	{ { "--max-size", "0", "-a" },		"!invalid --max-size value '0'" },
	{ { "--switch-output", "-a" },		"system_wide switch=signal" },
	{ { "--switch-output=signal", "-a" },	"system_wide switch=signal" },
	{ { "--switch-output=10M", "-a" },	"system_wide switch=size:10485760" },
	{ { "--switch-output=30s", "-a" },	"system_wide switch=time:30000000000" },
	{ { "--switch-output=5m", "-a" },	"system_wide switch=time:300000000000" },
	{ { "--switch-output=100ms", "-a" },	"system_wide switch=time:100000000" },
	{ { "--switch-output=1d", "-a" },	"system_wide switch=time:86400000000000" },
	{ { "--switch-output=5x", "-a" },	"!=invalid --switch-output value '5x': expected signal, a size (10M, with B/K/M/G) or a time (30s, with s/m/h/d)" },
	{ { "--switch-output", "-o", "-", "-a" }, "!--switch-output needs files to switch" },
	{ { "--switch-max-files=3", "-a" },	"system_wide switch_max_files=3" },
	{ { "--switch-max-files=0", "-a" },	"!invalid --switch-max-files value '0'" },
	{ { "--timestamp-filename", "-a" },	"system_wide timestamp_filename" },
	{ { "--overwrite", "--switch-output", "-a" }, "system_wide overwrite switch=signal" },
	{ { "-S", "-a" },			"system_wide aux_snapshot" },
	{ { "-Se", "-a" },			"system_wide aux_snapshot on_exit" },
	{ { "-S0x1000", "-a" },			"system_wide aux_snapshot size=4096" },
	{ { "--snapshot=e8192", "-a" },		"system_wide aux_snapshot on_exit size=8192" },
	{ { "-Sx", "-a" },			"!=invalid -S value 'x': expected [e][size in bytes]" },
	{ { "--aux-sample", "-a" },		"system_wide aux_sample=4096" },
	{ { "--aux-sample=8192", "-a" },	"system_wide aux_sample=8192" },
	{ { "--aux-sample=0", "-a" },		"!=invalid --aux-sample value '0': expected a size in bytes, 1..61440" },
	{ { "--aux-sample=100000", "-a" },	"!invalid --aux-sample value '100000'" },
	{ { "--dry-run", "-a" },		"system_wide dry_run" },
	{ { "--list-options" },			"list_options" },
	{ { "--list-opts" },			"list_options" },

	/* help needs no target and wins over conflicts */
	{ { "-h" },				"help" },
	{ { "--help" },				"help" },
	{ { "-c", "1", "-F", "1", "-h" },	"period=1 freq=1 help" },

	/* the command: everything from the first non-option on */
	{ { "sleep", "1" },			"cmd=[sleep 1]" },
	{ { "sleep", "1", "-x" },		"cmd=[sleep 1 -x]" },
	{ { "-a", "sleep", "1", "-x" },		"system_wide cmd=[sleep 1 -x]" },
	{ { "-e", "cs", "--", "sleep", "1" },	"events=cs cmd=[sleep 1]" },
	{ { "--", "-x" },			"cmd=[-x]" },
	{ { "sleep", "-a" },			"cmd=[sleep -a]" },
	{ { "-C", "0", "sleep", "1" },		"system_wide cpu=0 cmd=[sleep 1]" },

	/* conflicts */
	{ { "-c", "100", "-F", "100", "-a" },	"!=-c and -F are mutually exclusive: -c samples every N events, -F N times a second" },
	{ { "-F", "max", "-c", "1", "-a" },	"!-c and -F are mutually exclusive" },
	/* with -p/-t a command only says how long to record, as in perf */
	{ { "-p", "1", "sleep", "1" },		"pid=1 cmd=[sleep 1]" },
	{ { "-t", "1", "--", "true" },		"tid=1 no_inherit cmd=[true]" },
	{ { "-p", "1", "-t", "2" },		"!=-p and -t are mutually exclusive" },
	/* no target: the whole system, as in perf */
	{ { NULL },				"system_wide" },
	{ { "-e", "cs", "-F", "10" },		"system_wide events=cs freq=10" },
	{ { "-a", "--" },			"system_wide" },
	/* perf: "PID/TID switch overriding SYSTEM/CPU", a warning, not an error */
	{ { "-p", "1", "-a" },			"pid=1 warning" },
	{ { "-C", "0", "-t", "2" },		"tid=2 no_inherit warning" },

	/* what getopt itself rejects, named the way the user spelled it */
	{ { "-x", "-a" },			"!=unknown option '-x' (see perfcap record --help)" },
	{ { "-aX" },				"!unknown option '-X'" },
	{ { "--foo", "-a" },			"!=unknown or ambiguous option '--foo' (see perfcap record --help)" },
	{ { "--foo=1", "-a" },			"!unknown or ambiguous option '--foo'" },
	{ { "--no", "-a" },			"!unknown or ambiguous option '--no'" },
	{ { "--quiet=3", "-a" },		"!=option '--quiet' does not take a value" },
	{ { "-a", "-e" },			"!=option '-e' requires a value" },
	{ { "-a", "--event" },			"!=option '--event' requires a value" },
	{ { "-a", "-C" },			"!option '-C' requires a value" },
	{ { "-a", "--writer" },			"!option '--writer' requires a value" },

	/* issue 23: perf's --no- forms, made from the table for every option without a value */
	{ { "-a", "-T", "--no-timestamp" },	"system_wide" },
	{ { "-a", "--no-timestamp", "-T" },	"system_wide sample_time" },
	{ { "-a", "-i", "--inherit" },		"system_wide" },
	{ { "-a", "--inherit", "-i" },		"system_wide no_inherit" },
	{ { "-a", "-B", "--buildid" },		"system_wide" },
	{ { "-a", "-N", "--buildid-cache" },	"system_wide" },
	{ { "-a", "-n", "--samples" },		"system_wide" },
	{ { "-a", "--no-bpf-event", "--bpf-event" }, "system_wide" },
	{ { "-a", "--no-buffering", "--buffering" }, "system_wide" },
	{ { "-a", "-v", "-v", "--no-verbose" },	"system_wide" },
	{ { "-a", "-q", "--no-quiet" },		"system_wide" },
	{ { "-a", "-b", "--no-branch-any" },	"system_wide" },
	{ { "-a", "--namespaces", "--no-namespaces" }, "system_wide" },
	{ { "-a", "--no-all-cpus" },		"system_wide" },	/* no target left: the whole system */
	{ { "-p", "1", "-a", "--no-all-cpus" },	"pid=1" },
	{ { "-a", "--no-dry-run" },		"system_wide" },
	{ { "-a", "-T", "--no-timest" },	"!unknown or ambiguous option '--no-timest'" },	/* three rows start so */
	{ { "-a", "--namespaces", "--no-namesp" }, "system_wide" },	/* a unique prefix, as getopt's */
	{ { "-a", "--no-timestamp=1" },		"!=option '--no-timestamp' does not take a value" },
	{ { "-a", "--no-freq" },		"!=option '--no-freq' isn't available: --freq takes a value (only options without one have a --no- form)" },
	{ { "-a", "--no-event" },		"!option '--no-event' isn't available" },
	{ { "-a", "--no-no-inherit" },		"!unknown or ambiguous option '--no-no-inherit'" },
	{ { "-a", "--no-bogus" },		"!=unknown or ambiguous option '--no-bogus' (see perfcap record --help)" },

	/* issue 23: the rest of perf 6.1's options */
	{ { "--per-thread", "--", "true" },	"per_thread cmd=[true]" },
	{ { "--per-thread", "-a" },		"system_wide warning" },	/* perf: SYSTEM/CPU overrides PER-THREAD */
	{ { "-u", "root" },			"uid=root" },
	{ { "--uid=1000", "--", "sleep", "1" },	"uid=1000 cmd=[sleep 1]" },
	{ { "-u", "" },				"!invalid -u value ''" },
	{ { "-u", "root", "-p", "1" },		"pid=1 warning" },
	{ { "-u", "root", "-a" },		"uid=root warning" },
	{ { "-a", "-e", "cs", "-G", "a,,b" },	"system_wide events=cs cgroup=a,,b@1" },
	{ { "-a", "-e", "cs", "-G", "a", "-e", "x", "--cgroup=b" }, "system_wide events=cs,x cgroup=a@1 cgroup=b@2" },
	{ { "-a", "-G", "a" },			"!=must define events before cgroups: -G follows the -e it applies to" },
	{ { "-e", "cs", "-G", "a" },		"!cgroup monitoring only available in system-wide mode" },
	{ { "-a", "-e", "sched:*", "--exclude-perf", "-e", "cs" }, "system_wide events=sched:*,cs exclude_perf@0" },
	{ { "-a", "--exclude-perf" },		"!=--exclude-perf option should follow a -e tracepoint option" },
	{ { "-a", "--all-cgroups", "--namespaces", "--sample-identifier" }, "system_wide all_cgroups namespaces sample_identifier" },
	{ { "-a", "-g", "--user-callchains" },	"system_wide callgraph=fp user_callchains" },
	{ { "-a", "-g", "--kernel-callchains" }, "system_wide callgraph=fp kernel_callchains" },
	{ { "-a", "--strict-freq", "--running-time", "--transaction" }, "system_wide strict_freq running_time transaction" },
	{ { "-a", "--tail-synthesize", "--timestamp-boundary", "--kcore" }, "system_wide tail_synthesize timestamp_boundary kcore" },
	{ { "-a", "--proc-map-timeout", "100" }, "system_wide proc_map_timeout=100" },
	{ { "-a", "--proc-map-timeout", "x" },	"!=option '--proc-map-timeout' expects a numerical value (milliseconds), not 'x'" },
	{ { "-a", "--num-thread-synthesize=4" }, "system_wide num_thread_synthesize=4" },
	{ { "-a", "--num-thread-synthesize=-1" }, "!option '--num-thread-synthesize' expects a numerical value" },
	{ { "-a", "--mmap-flush", "4K" },	"system_wide mmap_flush=4096" },
	{ { "-a", "--mmap-flush=100" },		"system_wide mmap_flush=100" },
	{ { "-a", "--mmap-flush", "x" },	"!=invalid --mmap-flush value 'x': expected a number of bytes, with B, K, M or G suffix" },
	{ { "-a", "--affinity=node" },		"system_wide affinity=node" },
	{ { "-a", "--affinity", "cpu" },	"system_wide affinity=cpu" },
	{ { "-a", "--affinity=sys" },		"!=invalid --affinity value 'sys': expected node or cpu" },
	{ { "-a", "--synth=no" },		"system_wide synth=0" },
	{ { "-a", "--synth", "task,mmap" },	"system_wide synth=0x3" },
	{ { "-a", "--synth=all" },		"system_wide" },
	{ { "-a", "--synth=cgroup" },		"system_wide synth=0x4" },
	{ { "-a", "--synth=foo" },		"!=Invalid synth option: foo (expected no, all, task, mmap, cgroup)" },
	{ { "-a", "--synth=task,,mmap" },	"!Invalid synth option: " },
	{ { "-a", "--vmlinux", "/boot/vmlinux" }, "system_wide vmlinux=/boot/vmlinux" },
	{ { "-a", "--debuginfod" },		"system_wide debuginfod=" },
	{ { "-a", "--debuginfod=https://d" },	"system_wide debuginfod=https://d" },
	{ { "-a", "--clang-path", "/c", "--clang-opt", "-O2" }, "system_wide clang_path=/c clang_opt=-O2" },
	{ { "-a", "--switch-output-event", "cs" }, "system_wide switch=signal switch_output_event=cs" },
	{ { "-a", "--switch-output=1M", "--switch-output-event", "cs" }, "system_wide switch=size:1048576 switch_output_event=cs" },
	{ { "-a", "--switch-output-event", "" }, "!invalid --switch-output-event value ''" },
	{ { "--switch-output-event", "cs", "-o", "-" }, "!--switch-output needs files to switch" },
};

/* Every field that differs from its default, in declaration order. */
static void render(const struct record_opts *o, char *buf, size_t size)
{
	struct strbuf sb;
	int i;

	strbuf__init(&sb);
	strbuf__add(&sb, "", 0);
	if (o->system_wide)
		strbuf__addf(&sb, " system_wide");
	if (o->cpu_list)
		strbuf__addf(&sb, " cpu=%s", o->cpu_list);
	if (o->pid_list)
		strbuf__addf(&sb, " pid=%s", o->pid_list);
	if (o->tid_list)
		strbuf__addf(&sb, " tid=%s", o->tid_list);
	if (o->events)
		strbuf__addf(&sb, " events=%s", o->events);
	if (o->period)
		strbuf__addf(&sb, " period=%llu", (unsigned long long)o->period);
	if (o->freq)
		strbuf__addf(&sb, " freq=%llu", (unsigned long long)o->freq);
	if (o->freq_max)
		strbuf__addf(&sb, " freq=max");
	if (o->callgraph == CALLGRAPH_FP)
		strbuf__addf(&sb, " callgraph=fp");
	if (o->callgraph == CALLGRAPH_DWARF)
		strbuf__addf(&sb, " callgraph=dwarf");
	if (o->callgraph == CALLGRAPH_LBR)
		strbuf__addf(&sb, " callgraph=lbr");
	if (o->dwarf_stack_size != OPTS_DEFAULT_DWARF_SIZE)
		strbuf__addf(&sb, " dwarf_size=%u", o->dwarf_stack_size);
	if (o->unwind)
		strbuf__addf(&sb, " unwind");
	if (o->sample_time)
		strbuf__addf(&sb, " sample_time");
	if (o->raw)
		strbuf__addf(&sb, " raw");
	if (o->switch_events)
		strbuf__addf(&sb, " switch_events");
	if (o->no_inherit)
		strbuf__addf(&sb, " no_inherit");
	/* event_args[] only where a --filter went: events= shows the rest. */
	for (i = 0; i < o->nr_event_args; i++)
		if (o->event_args[i].filter)
			strbuf__addf(&sb, " ev[%s|%s]", o->event_args[i].events,
				     o->event_args[i].filter);
	if (o->group)
		strbuf__addf(&sb, " group");
	if (o->user_regs)
		strbuf__addf(&sb, " user_regs=%#llx", (unsigned long long)o->user_regs);
	if (o->intr_regs)
		strbuf__addf(&sb, " intr_regs=%#llx", (unsigned long long)o->intr_regs);
	if (o->sample_addr)
		strbuf__addf(&sb, " sample_addr");
	if (o->sample_weight)
		strbuf__addf(&sb, " sample_weight");
	if (o->sample_period)
		strbuf__addf(&sb, " sample_period");
	if (o->sample_cpu)
		strbuf__addf(&sb, " sample_cpu");
	if (o->phys_data)
		strbuf__addf(&sb, " phys_data");
	if (o->data_page_size)
		strbuf__addf(&sb, " data_page_size");
	if (o->code_page_size)
		strbuf__addf(&sb, " code_page_size");
	if (o->use_clockid)
		strbuf__addf(&sb, " clockid=%d", o->clockid);
	if (o->all_user)
		strbuf__addf(&sb, " all_user");
	if (o->all_kernel)
		strbuf__addf(&sb, " all_kernel");
	if (o->inherit_stat)
		strbuf__addf(&sb, " inherit_stat");
	if (o->no_samples)
		strbuf__addf(&sb, " no_samples");
	if (o->branch_stack)
		strbuf__addf(&sb, " branch=%#llx", (unsigned long long)o->branch_stack);
	if (o->buildid_mmap)
		strbuf__addf(&sb, " buildid_mmap");
	if (o->no_bpf_event)
		strbuf__addf(&sb, " no_bpf_event");
	if (o->no_buffering)
		strbuf__addf(&sb, " no_buffering");
	if (o->mmap_pages)
		strbuf__addf(&sb, " mmap_pages=%u", o->mmap_pages);
	if (o->aux_pages)
		strbuf__addf(&sb, " aux_pages=%u", o->aux_pages);
	if (o->overwrite)
		strbuf__addf(&sb, " overwrite");
	if (o->aux_snapshot)
		strbuf__addf(&sb, " aux_snapshot%s", o->aux_snapshot_on_exit ? " on_exit" : "");
	if (o->aux_snapshot_size)
		strbuf__addf(&sb, " size=%llu", (unsigned long long)o->aux_snapshot_size);
	if (o->aux_sample)
		strbuf__addf(&sb, " aux_sample=%u", o->aux_sample_size);
	if (o->comp_level)
		strbuf__addf(&sb, " comp_level=%d", o->comp_level);
	if (o->comp_auto)
		strbuf__addf(&sb, " comp_auto");
	if (!o->output || strcmp(o->output, "perf.data"))
		strbuf__addf(&sb, " output=%s", o->output ? o->output : "(null)");
	if (o->no_buildid_cache)
		strbuf__addf(&sb, " no_buildid_cache");
	if (o->no_buildid)
		strbuf__addf(&sb, " no_buildid");
	if (o->aio)
		strbuf__addf(&sb, " aio=%d", o->aio);
	/* NULL only on --help, where nothing was settled */
	if (o->writer && strcmp(o->writer, "sync"))
		strbuf__addf(&sb, " writer=%s", o->writer);
	if (o->realtime)
		strbuf__addf(&sb, " realtime=%d", o->realtime);
	if (o->readers_nice)
		strbuf__addf(&sb, " readers_nice");
	if (o->threads)
		strbuf__addf(&sb, " threads=%s", o->threads_spec);
	if (o->status_ns)
		strbuf__addf(&sb, " status_ns=%llu", (unsigned long long)o->status_ns);
	if (o->quiet)
		strbuf__addf(&sb, " quiet");
	if (o->verbose)
		strbuf__addf(&sb, " verbose=%d", o->verbose);
	if (o->help)
		strbuf__addf(&sb, " help");
	if (o->list_options)
		strbuf__addf(&sb, " list_options");
	if (o->list_user_regs)
		strbuf__addf(&sb, " list_user_regs");
	if (o->list_intr_regs)
		strbuf__addf(&sb, " list_intr_regs");
	if (o->dry_run)
		strbuf__addf(&sb, " dry_run");
	if (o->delay_ms)
		strbuf__addf(&sb, " delay=%lld", (long long)o->delay_ms);
	for (i = 0; i < o->nr_delay_ranges; i++)
		strbuf__addf(&sb, "%s%llu-%llu", i ? "," : " ranges=",
			     (unsigned long long)o->delay_ranges[i].start_ms,
			     (unsigned long long)o->delay_ranges[i].end_ms);
	if (o->control.given && o->control.fifo)
		strbuf__addf(&sb, " control=fifo:%s%s%s", o->control.ctl_path,
			     o->control.ack_path ? "," : "",
			     o->control.ack_path ? o->control.ack_path : "");
	else if (o->control.given)
		strbuf__addf(&sb, " control=fd:%d", o->control.ctl_fd);
	if (o->control.given && !o->control.fifo && o->control.ack_fd >= 0)
		strbuf__addf(&sb, ",%d", o->control.ack_fd);
	if (o->max_size)
		strbuf__addf(&sb, " max_size=%llu", (unsigned long long)o->max_size);
	if (o->switch_output == SWITCH_OUTPUT_SIGNAL)
		strbuf__addf(&sb, " switch=signal");
	if (o->switch_output == SWITCH_OUTPUT_SIZE)
		strbuf__addf(&sb, " switch=size:%llu", (unsigned long long)o->switch_output_size);
	if (o->switch_output == SWITCH_OUTPUT_TIME)
		strbuf__addf(&sb, " switch=time:%llu", (unsigned long long)o->switch_output_ns);
	if (o->switch_max_files)
		strbuf__addf(&sb, " switch_max_files=%d", o->switch_max_files);
	if (o->timestamp_filename)
		strbuf__addf(&sb, " timestamp_filename");
	/* issue 23 */
	if (o->per_thread)
		strbuf__addf(&sb, " per_thread");
	if (o->uid)
		strbuf__addf(&sb, " uid=%s", o->uid);
	for (i = 0; i < o->nr_cgroup_args; i++)
		strbuf__addf(&sb, " cgroup=%s@%d", o->cgroup_args[i].names,
			     o->cgroup_args[i].nr_event_args);
	for (i = 0; i < o->nr_event_args; i++)
		if (o->event_args[i].exclude_perf)
			strbuf__addf(&sb, " exclude_perf@%d", i);
	if (o->all_cgroups)
		strbuf__addf(&sb, " all_cgroups");
	if (o->namespaces)
		strbuf__addf(&sb, " namespaces");
	if (o->sample_identifier)
		strbuf__addf(&sb, " sample_identifier");
	if (o->user_callchains)
		strbuf__addf(&sb, " user_callchains");
	if (o->kernel_callchains)
		strbuf__addf(&sb, " kernel_callchains");
	if (o->strict_freq)
		strbuf__addf(&sb, " strict_freq");
	if (o->running_time)
		strbuf__addf(&sb, " running_time");
	if (o->sample_transaction)
		strbuf__addf(&sb, " transaction");
	if (o->tail_synthesize)
		strbuf__addf(&sb, " tail_synthesize");
	if (o->timestamp_boundary)
		strbuf__addf(&sb, " timestamp_boundary");
	if (o->kcore)
		strbuf__addf(&sb, " kcore");
	/* 0 only where the parse failed or stopped early (--help) */
	if (o->proc_map_timeout_ms && o->proc_map_timeout_ms != OPTS_DEFAULT_PROC_MAP_TIMEOUT)
		strbuf__addf(&sb, " proc_map_timeout=%d", o->proc_map_timeout_ms);
	if (o->num_thread_synthesize)
		strbuf__addf(&sb, " num_thread_synthesize=%d", o->num_thread_synthesize);
	if (o->mmap_flush)
		strbuf__addf(&sb, " mmap_flush=%llu", (unsigned long long)o->mmap_flush);
	if (o->affinity == AFFINITY_NODE)
		strbuf__addf(&sb, " affinity=node");
	if (o->affinity == AFFINITY_CPU)
		strbuf__addf(&sb, " affinity=cpu");
	if (o->synth != SYNTH_ALL)
		strbuf__addf(&sb, " synth=%#x", o->synth);
	if (o->vmlinux)
		strbuf__addf(&sb, " vmlinux=%s", o->vmlinux);
	if (o->debuginfod)
		strbuf__addf(&sb, " debuginfod=%s", o->debuginfod);
	if (o->clang_path)
		strbuf__addf(&sb, " clang_path=%s", o->clang_path);
	if (o->clang_opt)
		strbuf__addf(&sb, " clang_opt=%s", o->clang_opt);
	if (o->switch_output_event)
		strbuf__addf(&sb, " switch_output_event=%s", o->switch_output_event);
	if (o->warning)
		strbuf__addf(&sb, " warning");
	if (o->notice[0][0])
		strbuf__addf(&sb, " notice0");
	if (o->notice[1][0])
		strbuf__addf(&sb, " notice1");
	if (o->argc || o->argv) {
		strbuf__addf(&sb, " cmd=[");
		for (i = 0; i < o->argc; i++)
			strbuf__addf(&sb, "%s%s", i ? " " : "", o->argv[i]);
		strbuf__addf(&sb, "]");
		/* execvp needs the NULL that ends argv. */
		if (o->argv[o->argc])
			strbuf__addf(&sb, " UNTERMINATED");
	}
	snprintf(buf, size, "%s", sb.len ? sb.data + 1 : "");
	strbuf__exit(&sb);
}

/* argv as main() gets it: "record" first, a NULL last, writable strings. */
static int make_argv(const char *const *args, char **argv)
{
	int argc = 0;

	argv[argc++] = strdup("record");
	while (argc <= MAX_ARGS && args[argc - 1]) {
		argv[argc] = strdup(args[argc - 1]);
		argc++;
	}
	argv[argc] = NULL;
	return argc;
}

static void free_argv(char **argv, int argc)
{
	int i;

	for (i = 0; i < argc; i++)
		free(argv[i]);
}

static void test_case(void **state)
{
	const struct opt_case *c = *state;
	char *argv[MAX_ARGS + 2], *copy[MAX_ARGS + 2];
	struct record_opts opts;
	char err[256], got[512];
	int argc, ret;

	argc = make_argv(c->argv, argv);
	/* getopt may permute argv; keep the pointers to free them. */
	memcpy(copy, argv, sizeof(argv));
	memset(err, 'X', sizeof(err));
	ret = record_opts__parse(&opts, argc, argv, err, sizeof(err));

	if (c->want[0] == '!') {
		const char *msg = c->want + 1;

		if (ret != -EINVAL)
			fail_msg("expected -EINVAL, got %d", ret);
		if (msg[0] == '=' ? strcmp(err, msg + 1) : !strstr(err, msg))
			fail_msg("error '%s' %s '%s'", err,
				 msg[0] == '=' ? "is not" : "does not contain",
				 msg[0] == '=' ? msg + 1 : msg);
		/* One line: the caller adds "perfcap: " and the newline. */
		assert_null(strchr(err, '\n'));
		/* A failed parse leaves nothing to free. */
		assert_null(opts.owned);
		assert_null(opts.event_args);
		assert_null(opts.cgroup_args);
	} else {
		if (ret != 0)
			fail_msg("expected success, got %d: %s", ret, err);
		assert_string_equal(err, "");
		render(&opts, got, sizeof(got));
		assert_string_equal(got, c->want);
		/* Help and the lists stop before the writer is settled. */
		if (!opts.help && !opts.list_options && !opts.list_user_regs &&
		    !opts.list_intr_regs)
			assert_non_null(opts.writer);
		/* perf's overrides say which switch won */
		if (opts.warning)
			assert_true(strstr(opts.warning, "-p/-t given") ||
				    strstr(opts.warning, "-u given") ||
				    strstr(opts.warning, "ignoring --per-thread"));
		record_opts__exit(&opts);
		assert_null(opts.owned);
		assert_null(opts.event_args);
		assert_null(opts.cgroup_args);
	}
	free_argv(copy, argc);
}

/* The sizes of -m, for whatever page size this machine has. */
static void test_mmap_size(void **state)
{
	long ps = sysconf(_SC_PAGESIZE);
	char *argv[] = { "record", "-m", "512K", "-a", NULL };
	char *argv2[] = { "record", "-m", "1G", "-a", NULL };
	struct record_opts opts;
	char err[256];

	assert_int_equal(record_opts__parse(&opts, 4, argv, err, sizeof(err)), 0);
	assert_int_equal(opts.mmap_pages, (512 << 10) / ps);
	assert_int_equal(record_opts__parse(&opts, 4, argv2, err, sizeof(err)), 0);
	assert_int_equal(opts.mmap_pages, (1L << 30) / ps);
}

struct mmap_case {
	const char *str;
	unsigned int page_size;
	int ret;
	unsigned int pages;
};

static const struct mmap_case mmap_cases[] = {
	{ "512K",	4096,	0, 128 },
	{ "512k",	4096,	0, 128 },
	{ "512K",	65536,	0, 8 },
	{ "1",		4096,	0, 1 },
	{ "8",		4096,	0, 8 },
	{ "2M",		4096,	0, 512 },
	{ "1G",		4096,	0, 262144 },
	{ "4K",		4096,	0, 1 },
	{ "4096B",	4096,	0, 1 },
	{ "1000B",	4096,	0, 1 },		/* sizes round up to whole pages */
	{ "4097B",	4096,	0, 2 },
	{ "2147483648",	4096,	0, 2147483648U },
	{ "3",		4096,	-EINVAL, 0 },
	{ "12K",	4096,	-EINVAL, 0 },	/* 3 pages */
	{ "0",		4096,	-EINVAL, 0 },
	{ "0K",		4096,	-EINVAL, 0 },
	{ "",		4096,	-EINVAL, 0 },
	{ "K",		4096,	-EINVAL, 0 },
	{ "5X",		4096,	-EINVAL, 0 },
	{ "-4",		4096,	-EINVAL, 0 },
	{ " 4",		4096,	-EINVAL, 0 },
	{ "4 ",		4096,	-EINVAL, 0 },
	{ "4294967296",	4096,	-EINVAL, 0 },
	{ "99999999999999999999G", 4096, -EINVAL, 0 },
	{ "8",		0,	-EINVAL, 0 },
};

static void test_parse_mmap_pages(void **state)
{
	const struct mmap_case *c = *state;
	unsigned int pages = 12345;

	assert_int_equal(parse_mmap_pages(c->str, c->page_size, &pages), c->ret);
	/* On failure the output is untouched. */
	assert_int_equal(pages, c->ret ? 12345 : c->pages);
}

/* getopt keeps state between calls; a failure mid-cluster must not leak into the next parse. */
static void test_reparse(void **state)
{
	char *bad[] = { "record", "-aXT", NULL };
	char *good[] = { "record", "-T", "sleep", "1", NULL };
	char *good2[] = { "record", "-e", "a", "-e", "b", "-a", NULL };
	struct record_opts opts;
	char err[256];

	assert_int_equal(record_opts__parse(&opts, 2, bad, err, sizeof(err)), -EINVAL);
	assert_int_equal(record_opts__parse(&opts, 4, good, err, sizeof(err)), 0);
	assert_true(opts.sample_time);
	assert_false(opts.system_wide);
	assert_int_equal(opts.argc, 2);
	assert_string_equal(opts.argv[0], "sleep");
	assert_int_equal(record_opts__parse(&opts, 6, good2, err, sizeof(err)), 0);
	assert_string_equal(opts.events, "a,b");
	record_opts__exit(&opts);
	assert_int_equal(record_opts__parse(&opts, 6, good2, err, sizeof(err)), 0);
	assert_string_equal(opts.events, "a,b");
	record_opts__exit(&opts);
}

/* A tiny err buffer still gets a terminated, truncated message. */
static void test_small_err(void **state)
{
	char *argv[] = { "record", "-F", "abc", NULL };
	struct record_opts opts;
	char err[8];

	memset(err, 'X', sizeof(err));
	assert_int_equal(record_opts__parse(&opts, 3, argv, err, 6), -EINVAL);
	assert_string_equal(err, "inval");
	assert_int_equal(err[6], 'X');
	assert_int_equal(record_opts__parse(&opts, 3, argv, NULL, 0), -EINVAL);
}

static void test_usage(void **state)
{
	static const char *const must[] = {
		"-a, --all-cpus", "-C, --cpu", "-e, --event", "-g ", "--call-graph",
		"-I, --intr-regs[=<regs>]", "--aio[=<n>]", "--threads[=<spec>]",
		"-z, --compression-level[=<n>]", "--switch-output[=<when>]", "-h, --help",
		"0 success", "1 runtime failure", "2 usage error",
	};
	const char *u = record_opts__usage();
	const char *line;
	char *list, *name;
	size_t i, len;
	FILE *f;
	int nr = 0;

	(void)state;
	assert_non_null(u);
	for (i = 0; i < ARRAY_SIZE(must); i++)
		if (!strstr(u, must[i]))
			fail_msg("usage lacks '%s'", must[i]);
	/* Every option --list-options names is in --help (but perf's alias --list-opts). */
	f = open_memstream(&list, &len);
	assert_non_null(f);
	record_opts__list_options(f);
	fclose(f);
	for (name = strtok(list, "\n"); name; name = strtok(NULL, "\n")) {
		char want[64];

		snprintf(want, sizeof(want), "%.*s", (int)strcspn(name, "="), name);
		if (!strcmp(want, "--list-opts"))
			continue;
		nr++;
		/* "-x" as "  -x" at a line start; "--name" followed by a space, '[' or newline. */
		if (want[1] != '-') {
			char at[8];

			snprintf(at, sizeof(at), "\n  %s", want);
			if (!strstr(u, at))
				fail_msg("usage lacks option %s", want);
			continue;
		}
		for (line = u; (line = strstr(line, want)); line++)
			if (strchr(" [\n", line[strlen(want)]))
				break;
		if (!line)
			fail_msg("usage lacks option %s", want);
	}
	free(list);
	/* 77 long names and 32 short ones today, less the alias: a table that lost rows would show. */
	assert_true(nr >= 105);
	/* --list-options names no --no- form that the table made (perf's lists only the rows) */
	f = open_memstream(&list, &len);
	assert_non_null(f);
	record_opts__list_options(f);
	fclose(f);
	assert_null(strstr(list, "--no-timestamp\n"));
	assert_null(strstr(list, "--inherit\n"));
	assert_non_null(strstr(list, "--no-inherit\n"));
	free(list);
	/* Fits an 80-column terminal. */
	for (line = u; *line; ) {
		len = strcspn(line, "\n");
		if (len > 80)
			fail_msg("usage line longer than 80: %.*s", (int)len, line);
		line += len + (line[len] == '\n');
	}
	assert_int_equal(u[strlen(u) - 1], '\n');
}

int main(void)
{
	static const struct CMUnitTest fixed[] = {
		cmocka_unit_test(test_mmap_size),
		cmocka_unit_test(test_reparse),
		cmocka_unit_test(test_small_err),
		cmocka_unit_test(test_usage),
	};
	size_t nr = ARRAY_SIZE(fixed) + ARRAY_SIZE(cases) + ARRAY_SIZE(mmap_cases);
	struct CMUnitTest *tests = calloc(nr, sizeof(*tests));
	char **names = calloc(nr, sizeof(*names));
	size_t i, n = 0;
	int ret, j;

	if (!tests || !names)
		return 1;
	for (i = 0; i < ARRAY_SIZE(fixed); i++)
		tests[n++] = fixed[i];
	for (i = 0; i < ARRAY_SIZE(cases); i++, n++) {
		struct strbuf sb;

		strbuf__init(&sb);
		strbuf__addf(&sb, "record");
		for (j = 0; j < MAX_ARGS && cases[i].argv[j]; j++)
			strbuf__addf(&sb, " %s", *cases[i].argv[j] ? cases[i].argv[j] : "''");
		names[n] = sb.data;
		tests[n].name = names[n];
		tests[n].test_func = test_case;
		tests[n].initial_state = (void *)&cases[i];
	}
	for (i = 0; i < ARRAY_SIZE(mmap_cases); i++, n++) {
		if (asprintf(&names[n], "parse_mmap_pages('%s', %u)", mmap_cases[i].str,
			     mmap_cases[i].page_size) < 0)
			return 1;
		tests[n].name = names[n];
		tests[n].test_func = test_parse_mmap_pages;
		tests[n].initial_state = (void *)&mmap_cases[i];
	}
	ret = _cmocka_run_group_tests("options", tests, n, NULL, NULL);
	for (i = 0; i < n; i++)
		free(names[i]);
	free(names);
	free(tests);
	return ret;
}
