# perfcap — hand-written Makefile.
#   make              build ./perfcap
#   make check        build, lint the tests, then run every test (unit + end-to-end)
#   make SANITIZE=address,undefined   sanitizer build
#   make V=1          show commands
#   make CROSS=aarch64        cross-build ./perfcap-aarch64 in build-aarch64/
#   make unit-aarch64         its unit tests, run under qemu-aarch64
#   make check AARCH64=no     leave the aarch64 unit tests out of make check
#   make install      PREFIX=/usr/local DESTDIR= (staging); make uninstall
#   make dist         $(OUT)/perfcap-VERSION.tar.gz, which builds without git
# Build outputs live in build/ (or build-san/ for a sanitizer build).

CC      ?= cc
PKG_CONFIG ?= pkg-config

# ---- aarch64: cross-built with Debian's gcc-aarch64-linux-gnu against the
# arm64 -dev packages (multiarch), its tests run under qemu-user. Only the
# compiler, pkg-config's search path and the output names change.
AARCH64_CC   ?= aarch64-linux-gnu-gcc
AARCH64_OUT  ?= build-aarch64
AARCH64_QEMU ?= qemu-aarch64
ifeq ($(CROSS),aarch64)
  CC         := $(AARCH64_CC)
  PKG_CONFIG := PKG_CONFIG_LIBDIR=/usr/lib/aarch64-linux-gnu/pkgconfig:/usr/share/pkgconfig pkg-config
  OUT        ?= $(AARCH64_OUT)
  BIN        ?= perfcap-aarch64
else ifneq ($(CROSS),)
  $(error CROSS=$(CROSS): this Makefile cross-builds for aarch64 only (CROSS=aarch64))
endif

PKGS    := libelf libdw libzstd liburing libtracefs libbpf libprotobuf-c zlib
CFLAGS  ?= -O2 -g
CFLAGS  += -std=gnu11 -Wall -Wextra -Wno-unused-parameter -Wshadow \
           -Wmissing-prototypes -D_GNU_SOURCE -iquote src \
           $(shell $(PKG_CONFIG) --cflags $(PKGS) 2>/dev/null)
LDLIBS  += $(shell $(PKG_CONFIG) --libs $(PKGS) 2>/dev/null) -liberty -lrt -lpthread

# OUT and BIN may be set on the command line, so that several builds of
# one tree (two engineers, or a sanitizer build) never share objects.
ifneq ($(SANITIZE),)
  CFLAGS  += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer
  LDFLAGS += -fsanitize=$(SANITIZE)
  # UBSan only prints and goes on by default: make a finding fail the test.
  ifneq ($(findstring undefined,$(SANITIZE)),)
    CFLAGS  += -fno-sanitize-recover=undefined
    LDFLAGS += -fno-sanitize-recover=undefined
  endif
  OUT     ?= build-san
else
  OUT     ?= build
endif

ifeq ($(V),1)
  Q :=
  QUIET_CC =
  QUIET_LD =
else
  Q := @
  QUIET_CC = @echo '  CC      '$@;
  QUIET_LD = @echo '  LD      '$@;
endif

# src/ is in wings (src/README.md): every .c of every wing goes into the library.
SRCS      := $(wildcard src/*.c src/*/*.c)
LIB_OBJS  := $(patsubst src/%.c,$(OUT)/%.o,$(filter-out src/cli/main.c,$(SRCS))) \
             $(OUT)/gen/profile.pb-c.o
MAIN_OBJ  := $(OUT)/cli/main.o
UNIT_SRCS := $(wildcard tests/unit/test_*.c)
UNIT_BINS := $(patsubst tests/unit/%.c,$(OUT)/tests/%,$(UNIT_SRCS))
WORKLOADS := $(patsubst tests/workloads/%.c,$(OUT)/workloads/%,$(wildcard tests/workloads/*.c))
BENCHES   := $(patsubst bench/%.c,$(OUT)/bench/%,$(wildcard bench/*.c))
# bench/unwind-compare.c links libunwind (libunwind-dev), which perfcap does
# not need: not in all; `make unwind-compare` builds it.
UNWIND_COMPARE := $(OUT)/bench/unwind-compare
BENCHES   := $(filter-out $(UNWIND_COMPARE),$(BENCHES))
# The output-bound fixtures (bench/fixtures/): capcat in all, slowfs (FUSE) apart.
CAPCAT    := $(OUT)/bench/capcat
SLOWFS    := $(OUT)/bench/slowfs

ifeq ($(SANITIZE),)
BIN ?= perfcap
else
BIN ?= perfcap-san
endif

all: $(BIN) $(WORKLOADS) $(BENCHES) $(CAPCAT)

$(BIN): $(MAIN_OBJ) $(OUT)/libperfcap.a
	$(QUIET_LD)$(CC) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(OUT)/libperfcap.a: $(LIB_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUT)/%.o: src/%.c | $(OUT)
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(CFLAGS) -iquote $(OUT) -MMD -MP -c -o $@ $<

$(OUT)/tests/%: tests/unit/%.c $(OUT)/libperfcap.a | $(OUT)/tests
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(CFLAGS) -iquote $(OUT) -MMD -MP $(LDFLAGS) -o $@ $< \
		$(OUT)/libperfcap.a $(LDLIBS) -lcmocka

# ---- version: scripts/version.sh (git describe, or a tarball's VERSION) ----
# Rewritten only when the version changes, so that only what includes
# version.h is rebuilt, and only then.
VERSION := $(shell scripts/version.sh)
VERSION_USERS := $(OUT)/cli/main.o $(OUT)/format/features.o $(OUT)/tests/test_features
$(VERSION_USERS): $(OUT)/perfcap-version.h
$(OUT)/perfcap-version.h: FORCE | $(OUT)
	$(Q)echo '#define PERFCAP_VERSION "$(VERSION)"' >$@.tmp && \
		if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# ---- pprof's profile.proto, as Debian ships it (golang-github-google-pprof-dev),
# compiled by protoc-c (protobuf-c-compiler) into $(OUT)/gen/: perfcap pprof
# encodes with protobuf-c what go tool pprof decodes with the same .proto.
PPROF_PROTO ?= /usr/share/gocode/src/github.com/google/pprof/proto/profile.proto
PROTOC_C    ?= protoc-c
PROTO_NEEDS = perfcap pprof's profile.proto; apt-get install protobuf-c-compiler libprotobuf-c-dev golang-github-google-pprof-dev (scripts/install-deps.sh)

$(OUT)/gen/profile.pb-c.c $(OUT)/gen/profile.pb-c.h &: $(PPROF_PROTO)
	$(Q)test -f $(PPROF_PROTO) || { echo "make: $(PPROF_PROTO) not found: $(PROTO_NEEDS)" >&2; exit 1; }
	$(Q)command -v $(PROTOC_C) >/dev/null || { echo "make: $(PROTOC_C) not found: $(PROTO_NEEDS)" >&2; exit 1; }
	$(Q)mkdir -p $(OUT)/gen
	@echo '  PROTOC  '$@
	$(Q)$(PROTOC_C) --proto_path=$(dir $(PPROF_PROTO)) --c_out=$(OUT)/gen $(PPROF_PROTO)

$(OUT)/gen/profile.pb-c.o: $(OUT)/gen/profile.pb-c.c
	$(QUIET_CC)$(CC) $(CPPFLAGS) $(CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(OUT)/profile/pprof.o: $(OUT)/gen/profile.pb-c.h

# ---- --off-cpu's BPF program (src/record/bpf/) ---------------------------------
# clang -target bpf against a vmlinux.h that bpftool makes from the running
# kernel's BTF, then a libbpf skeleton (the object inside a header) that
# record/off-cpu.c includes. CO-RE: the object loads on other kernels too.
# -g is for BTF, which libbpf needs; the DWARF does not go into the skeleton.
CLANG       ?= clang
BPFTOOL     ?= $(shell command -v bpftool 2>/dev/null || echo /usr/sbin/bpftool)
VMLINUX_BTF ?= /sys/kernel/btf/vmlinux
BPF_ARCH    := $(shell uname -m | sed -e 's/x86_64/x86/' -e 's/aarch64/arm64/')
ifeq ($(CROSS),aarch64)
  BPF_ARCH  := arm64
endif
BPF_NEEDS = perfcap's --off-cpu BPF program; apt-get install clang bpftool libbpf-dev (scripts/install-deps.sh)

$(OUT)/bpf/vmlinux.h: | $(OUT)/bpf
	$(Q)test -x "$(BPFTOOL)" || { echo "make: bpftool is needed to build $(BPF_NEEDS)" >&2; exit 1; }
	$(Q)test -r "$(VMLINUX_BTF)" || { echo "make: $(VMLINUX_BTF) is missing: perfcap's --off-cpu BPF program is built against a kernel's BTF (CONFIG_DEBUG_INFO_BTF); give one with VMLINUX_BTF=FILE" >&2; exit 1; }
	@echo '  BTF     '$@
	$(Q)"$(BPFTOOL)" btf dump file "$(VMLINUX_BTF)" format c >$@.tmp && mv $@.tmp $@

$(OUT)/bpf/off-cpu.bpf.o: src/record/bpf/off-cpu.bpf.c src/record/bpf/off-cpu-key.h $(OUT)/bpf/vmlinux.h
	$(Q)command -v "$(CLANG)" >/dev/null || { echo "make: $(CLANG) is needed to build $(BPF_NEEDS)" >&2; exit 1; }
	$(Q)pkg-config --exists libbpf || { echo "make: libbpf (libbpf-dev) is needed to build $(BPF_NEEDS)" >&2; exit 1; }
	@echo '  BPF     '$@
	$(Q)"$(CLANG)" -g -O2 -target bpf -D__TARGET_ARCH_$(BPF_ARCH) -Wall -iquote src -I$(OUT)/bpf \
		-c -o $(@:.o=.dbg.o) $<
	$(Q)"$(BPFTOOL)" gen object $@ $(@:.o=.dbg.o)

$(OUT)/record/off-cpu.skel.h: $(OUT)/bpf/off-cpu.bpf.o
	$(Q)mkdir -p $(@D)
	@echo '  SKEL    '$@
	$(Q)"$(BPFTOOL)" gen skeleton $< name off_cpu_bpf >$@.tmp && mv $@.tmp $@

$(OUT)/record/off-cpu.o $(OUT)/fuzz/obj/record/off-cpu.o: $(OUT)/record/off-cpu.skel.h

# Benchmarks that drive the recorder's code without the kernel (bench/drain.c).
$(OUT)/bench/%: bench/%.c $(OUT)/libperfcap.a | $(OUT)/bench
	$(QUIET_CC)$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< $(OUT)/libperfcap.a $(LDLIBS)

# perfcap's unwinder against libunwind's remote API and libdw's Dwfl frames
# (bench/unwind-compare.c): its own rule, as the generic bench rule links no libunwind.
unwind-compare: $(UNWIND_COMPARE)
$(UNWIND_COMPARE): bench/unwind-compare.c $(OUT)/libperfcap.a | $(OUT)/bench
	$(Q)$(PKG_CONFIG) --exists libunwind-generic || { echo "make: libunwind-dev is needed to build $@ (scripts/install-deps.sh installs it)" >&2; exit 1; }
	$(QUIET_CC)$(CC) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags libunwind-generic 2>/dev/null) -MMD -MP $(LDFLAGS) \
		-o $@ $< $(OUT)/libperfcap.a $(LDLIBS) $(shell $(PKG_CONFIG) --libs libunwind-generic 2>/dev/null)

# The capped-file fixture (bench/fixtures/slowfs.c): FUSE, so libfuse3-dev;
# not part of `all` (a package build needs no FUSE), built by make check.
slowfs: $(SLOWFS)
$(SLOWFS): bench/fixtures/slowfs.c bench/fixtures/link.h | $(OUT)/bench
	$(Q)$(PKG_CONFIG) --exists fuse3 || { echo "make: libfuse3-dev is needed to build $@ (scripts/install-deps.sh installs it)" >&2; exit 1; }
	$(QUIET_CC)$(CC) $(CFLAGS) $(shell $(PKG_CONFIG) --cflags fuse3 2>/dev/null) -MMD -MP $(LDFLAGS) \
		-o $@ $< $(shell $(PKG_CONFIG) --libs fuse3 2>/dev/null) -lpthread

# capcat, the pipe's capped link (bench/fixtures/capcat.c): plain C, built by make all.
$(CAPCAT): bench/fixtures/capcat.c bench/fixtures/link.h | $(OUT)/bench
	$(QUIET_CC)$(CC) $(CFLAGS) -MMD -MP $(LDFLAGS) -o $@ $< -lpthread

# Workloads keep frame pointers and symbols so call graphs can be checked.
$(OUT)/workloads/%: tests/workloads/%.c | $(OUT)/workloads
	$(QUIET_CC)$(CC) -O1 -g -fno-omit-frame-pointer -fno-inline -pthread -o $@ $<

$(OUT) $(OUT)/tests $(OUT)/workloads $(OUT)/bench $(OUT)/bpf:
	$(Q)mkdir -p $@

unit: $(UNIT_BINS)

# libFuzzer targets (tests/fuzz/README.md), built with clang into $(OUT)/fuzz/:
# the library's sources again, instrumented for coverage and sanitizers; a
# fuzzer links from the archive only the objects it reaches.
FUZZ_CC     ?= clang
FUZZ_CFLAGS := $(CFLAGS) -O1 -g -fno-omit-frame-pointer -iquote tests/fuzz -iquote $(OUT) \
               -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=undefined
FUZZ_OBJS   := $(patsubst $(OUT)/%.o,$(OUT)/fuzz/obj/%.o,$(LIB_OBJS))
FUZZERS     := $(patsubst tests/fuzz/%.c,$(OUT)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))

fuzz: $(FUZZERS)

$(OUT)/fuzz/obj/%.o: src/%.c | $(OUT)/fuzz/obj
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -MMD -MP -c -o $@ $<

$(OUT)/fuzz/obj/gen/profile.pb-c.o: $(OUT)/gen/profile.pb-c.c | $(OUT)/fuzz/obj
	$(Q)mkdir -p $(@D)
	$(QUIET_CC)$(FUZZ_CC) $(FUZZ_CFLAGS) -Wno-missing-prototypes -c -o $@ $<

$(OUT)/fuzz/obj/profile/pprof.o: $(OUT)/gen/profile.pb-c.h

$(OUT)/fuzz/libperfcap.a: $(FUZZ_OBJS)
	$(Q)rm -f $@ && ar rcs $@ $^

$(OUT)/fuzz/%: tests/fuzz/%.c $(OUT)/fuzz/libperfcap.a
	$(QUIET_LD)$(FUZZ_CC) $(FUZZ_CFLAGS) -fsanitize=fuzzer -MMD -MP -o $@ $< \
		$(OUT)/fuzz/libperfcap.a $(LDLIBS)

$(OUT)/fuzz/obj:
	$(Q)mkdir -p $@

# make check runs the fuzzers briefly; without a clang that links libFuzzer
# they are not built and tests/run says why it skips them.
fuzz-if-possible:
	$(Q)if echo 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }' | \
		$(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null; then \
		$(MAKE) --no-print-directory fuzz; \
	else echo "  SKIP    fuzz: $(FUZZ_CC) cannot build libFuzzer targets"; fi

# The checks bats would never fail on are refused before any test runs.
lint:
	$(Q)tests/lint-bats.py

# The aarch64 unit tests: the cross build's binaries, each under qemu-user,
# counted as tests/run counts the native ones (UNIT_ONLY: no fuzzers, no bats).
# qemu finds the arm64 libraries where multiarch put them (/lib/aarch64-linux-gnu);
# -L /usr/aarch64-linux-gnu, the cross libc, hangs in pthread_create here.
unit-aarch64: aarch64-unit-build
	$(Q)OUT=$(AARCH64_OUT) UNIT_ONLY=1 UNIT_RUNNER="$(AARCH64_QEMU)" UNIT_ARCH=aarch64 tests/run

# Built by a make of its own: CROSS, OUT and BIN are the cross build's, and no
# sanitizer (qemu-user cannot run ASan's shadow memory). The binary too, for
# tests/shell/aarch64.bats.
aarch64-unit-build: aarch64-tools
	$(Q)$(MAKE) --no-print-directory CROSS=aarch64 CC=$(AARCH64_CC) OUT=$(AARCH64_OUT) \
		BIN=perfcap-aarch64 SANITIZE= unit perfcap-aarch64

# Without the cross compiler or qemu the aarch64 tests cannot run; that is
# a failure (CI installs both), and AARCH64=no is how to leave them out.
aarch64-tools:
	$(Q)for t in $(AARCH64_CC) $(AARCH64_QEMU); do command -v $$t >/dev/null || { \
		echo "make: $$t not found: the aarch64 unit tests need it" \
			"(scripts/install-deps.sh installs it; make check AARCH64=no leaves them out)" >&2; \
		exit 1; }; done

ifeq ($(AARCH64),no)
CHECK_AARCH64 := AARCH64_OUT=
else ifneq ($(filter aarch64-%,$(shell $(CC) -dumpmachine 2>/dev/null)),)
# Built for aarch64 already (an arm64 machine): the native unit tests are those.
CHECK_AARCH64 :=
else
CHECK_AARCH64 := AARCH64_OUT=$(AARCH64_OUT) AARCH64_QEMU="$(AARCH64_QEMU)" \
                 AARCH64_BIN=./perfcap-aarch64
check: aarch64-unit-build
endif
check: all unit fuzz-if-possible lint $(SLOWFS)
	$(Q)OUT=$(OUT) BIN=./$(BIN) $(CHECK_AARCH64) tests/run

clean:
	rm -rf build build-san build-aarch64 perfcap perfcap-san perfcap-aarch64 $(OUT) $(BIN)

# ---- install -----------------------------------------------------------------
# DESTDIR stages (a package build), PREFIX is where it will run.
PREFIX      ?= /usr/local
BINDIR      ?= $(PREFIX)/bin
MANDIR      ?= $(PREFIX)/share/man
BASHCOMPDIR ?= $(PREFIX)/share/bash-completion/completions
MANPAGES    := $(wildcard doc/*.1)
INSTALL     ?= install

install: $(BIN)
	$(INSTALL) -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(BASHCOMPDIR)
	$(INSTALL) -m 755 $(BIN) $(DESTDIR)$(BINDIR)/perfcap
	$(INSTALL) -m 644 $(MANPAGES) $(DESTDIR)$(MANDIR)/man1/
	$(INSTALL) -m 644 completions/perfcap.bash $(DESTDIR)$(BASHCOMPDIR)/perfcap

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/perfcap $(DESTDIR)$(BASHCOMPDIR)/perfcap \
		$(addprefix $(DESTDIR)$(MANDIR)/man1/,$(notdir $(MANPAGES)))

# ---- dist: the committed tree (git archive HEAD) and a VERSION file ------------
DIST_VERSION := $(VERSION:-dirty=)
DIST := perfcap-$(DIST_VERSION)
dist: | $(OUT)
	$(Q)case "$(VERSION)" in *-dirty) \
		echo "make dist: uncommitted changes are left out; the tarball holds HEAD" >&2;; esac
	$(Q)rm -rf $(OUT)/dist && mkdir -p $(OUT)/dist
	$(Q)echo "$(DIST_VERSION)" >$(OUT)/dist/VERSION
	$(Q)git archive --format=tar --prefix=$(DIST)/ --add-file=$(OUT)/dist/VERSION HEAD | \
		gzip -9n >$(OUT)/$(DIST).tar.gz
	$(Q)rm -rf $(OUT)/dist
	@echo "  DIST    $(OUT)/$(DIST).tar.gz"

.PHONY: install uninstall dist FORCE

.PHONY: all check clean lint slowfs unwind-compare unit fuzz fuzz-if-possible unit-aarch64 aarch64-unit-build aarch64-tools
-include $(wildcard $(OUT)/*.d $(OUT)/*/*.d $(OUT)/fuzz/*.d $(OUT)/fuzz/obj/*.d $(OUT)/fuzz/obj/*/*.d)
