# ibreplay top-level Makefile.
#
#   make                 build every tool into bin/
#   make check           run the whole test suite through prove (TAP)
#   make bench           print benchmark figures as TSV
#   make demo            build and run the bundled workflow on samples/
#   make deps            install the Debian packages the project needs (as root)
#   make install         install tools, man pages, libibreplay.a, its headers and
#                        ibreplay.pc (PREFIX, DESTDIR); make uninstall removes them
#   make fuzz            build libFuzzer targets with clang into build/fuzz/
#   make SANITIZE=address,undefined check    the suite under sanitizers
#   make WERROR=1        warnings are errors (CI)
#   make gen-calls       rewrite the files made from formats/calls.tsv (checked in)

VERSION   := 1.0
PREFIX    ?= /usr/local
DESTDIR   ?=
CC        ?= cc
CFLAGS    ?= -O2 -g
LIBDIR    := lib
# Build and tool directories. A sanitizer build lives apart so that it never
# mixes objects with the plain one; both can be overridden (BUILD=... BIN=...).
ifeq ($(SANITIZE),)
BUILD     ?= build
BIN       ?= bin
else
BUILD     ?= build/san
BIN       ?= build/san/bin
endif

WARN      := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wformat=2 -Wvla
ALL_CFLAGS = -std=c11 -D_GNU_SOURCE -DIR_VERSION='"$(VERSION)"' -I$(LIBDIR) $(OTF2_CFLAGS) $(WARN) $(CFLAGS)
# OTF2 (libotf2-trace-dev): the flags its pkg-config file gives, -lotf2 if it has none
OTF2_LIBS := $(or $(shell pkg-config --libs otf2 2>/dev/null),-lotf2)
OTF2_CFLAGS := $(shell pkg-config --cflags otf2 2>/dev/null)
LDLIBS    := -lzstd -lz -lpcre2-8 $(OTF2_LIBS) -lm
ifneq ($(WERROR),)
ALL_CFLAGS += -Werror
endif
ifneq ($(SANITIZE),)
ALL_CFLAGS += -fsanitize=$(SANITIZE) -fno-omit-frame-pointer -fno-sanitize-recover=all
LDFLAGS   += -fsanitize=$(SANITIZE)
endif

include $(LIBDIR)/sources.mk

LIB_OBJS  := $(patsubst $(LIBDIR)/%.c,$(BUILD)/lib/%.o,$(LIB_SRCS))
LIB_A     := $(BUILD)/libibreplay.a

# Every directory tools/<name>/ with C files is one program bin/<name>.
# A tool that needs special rules (an MPI library, say) has tools/<name>/build.mk.
TOOL_DIRS := $(sort $(patsubst tools/%/,%,$(dir $(wildcard tools/*/*.c))))
TOOL_MKS  := $(wildcard tools/*/build.mk)
SPECIAL   := $(patsubst tools/%/build.mk,%,$(TOOL_MKS))
PLAIN     := $(filter-out $(SPECIAL),$(TOOL_DIRS))
TOOLS     := $(addprefix $(BIN)/,$(PLAIN))

UNIT_SRCS := $(sort $(wildcard tests/unit/u-*.c))
UNIT_BINS := $(patsubst tests/unit/%.c,$(BUILD)/tests/%,$(UNIT_SRCS))

FUZZ_SRCS := $(sort $(wildcard fuzz/fuzz-*.c))

# Objects depend on the exact flags: changing SANITIZE or CFLAGS rebuilds everything.
FLAGS_STAMP := $(BUILD)/.flags
FLAGS_NOW   := $(CC) $(ALL_CFLAGS) $(LDFLAGS)
$(shell mkdir -p $(BUILD); [ "`cat $(FLAGS_STAMP) 2>/dev/null`" = "$(FLAGS_NOW)" ] || echo "$(FLAGS_NOW)" > $(FLAGS_STAMP))

.PHONY: all check bench bench-record demo deps install uninstall fuzz clean unit-bins gen-calls
all: $(LIB_A) $(TOOLS) $(UNIT_BINS) special-tools

$(BUILD)/lib/%.o: $(LIBDIR)/%.c $(LIB_HDRS) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

# the engine's second copy (lib/ir_engine_key.c includes lib/ir_engine.c)
$(BUILD)/lib/ir_engine_key.o: $(LIBDIR)/ir_engine.c

# Say which Debian package is missing instead of failing in the middle of the build.
$(BUILD)/.deps-ok:
	@missing=""; \
	for h in zstd.h:libzstd-dev zlib.h:zlib1g-dev pcre2.h:libpcre2-dev otf2/otf2.h:libotf2-trace-dev; do \
	  f=$${h%%:*}; p=$${h#*:}; \
	  echo "#include <$$f>" | $(CC) -DPCRE2_CODE_UNIT_WIDTH=8 $(OTF2_CFLAGS) -E -x c - >/dev/null 2>&1 || missing="$$missing $$p"; \
	done; \
	if [ -n "$$missing" ]; then \
	  echo "missing Debian packages:$$missing (run 'make deps' as root, or: sudo apt-get install$$missing)" >&2; \
	  exit 1; \
	fi
	@mkdir -p $(@D) && touch $@

$(LIB_OBJS): | $(BUILD)/.deps-ok

$(LIB_A): $(LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

.SECONDEXPANSION:
.SECONDARY:
$(BUILD)/tools/%.o: tools/%.c $(LIB_HDRS) $$(wildcard $$(subst $(BUILD)/,,$$(@D))/*.h) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -c -o $@ $<

$(BIN)/%: $$(subst .c,.o,$$(addprefix $(BUILD)/,$$(wildcard tools/$$*/*.c))) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)

$(BUILD)/tests/u-%: tests/unit/u-%.c tests/unit/tap.h tests/unit/ib-cfg.h $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(LIB_A) $(LDLIBS)

special-tools::
include $(TOOL_MKS)

# Fuzz targets: libFuzzer entry points in fuzz/fuzz-<name>.c. `make fuzz` builds them with clang;
# `make check` builds each with a plain main() that replays fuzz/corpus/<name>/ (tests/t0900).
FUZZ_REPLAY := $(patsubst fuzz/fuzz-%.c,$(BUILD)/fuzz-replay/fuzz-%,$(FUZZ_SRCS))
$(BUILD)/fuzz-replay/fuzz-%: fuzz/fuzz-%.c fuzz/replay.c $(wildcard fuzz/*.h) $(LIB_A)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $< fuzz/replay.c $(LIB_A) $(LDLIBS)

# The library is compiled once for all of them (instrumented, -fsanitize=fuzzer-no-link), each
# target links it with its entry point; `make -j2 fuzz` builds them in parallel.
FUZZ_CC    := clang -std=c11 -D_GNU_SOURCE -DIR_VERSION='"$(VERSION)"' -O1 -g -I$(LIBDIR) $(OTF2_CFLAGS)
FUZZ_OBJS  := $(patsubst $(LIBDIR)/%.c,$(BUILD)/fuzz/lib/%.o,$(LIB_SRCS))
FUZZ_LIB   := $(BUILD)/fuzz/libibreplay-fuzz.a
FUZZ_BINS  := $(patsubst fuzz/%.c,$(BUILD)/fuzz/%,$(FUZZ_SRCS))
$(BUILD)/fuzz/lib/%.o: $(LIBDIR)/%.c $(LIB_HDRS)
	@mkdir -p $(@D)
	$(FUZZ_CC) -fsanitize=fuzzer-no-link,address,undefined -c -o $@ $<
$(FUZZ_LIB): $(FUZZ_OBJS)
	rm -f $@ && ar rcs $@ $^
$(FUZZ_BINS): $(FUZZ_LIB)
$(BUILD)/fuzz/fuzz-%: fuzz/fuzz-%.c $(FUZZ_LIB) $(LIB_HDRS) $(wildcard fuzz/*.h)
	$(FUZZ_CC) -fsanitize=fuzzer,address,undefined -o $@ $< $(FUZZ_LIB) $(LDLIBS)
fuzz: $(FUZZ_BINS)
	@echo "run e.g.: $(BUILD)/fuzz/fuzz-goal-text fuzz/corpus/goal-text"

# Files made from formats/calls.tsv by tools/allprof/gen-calls.sh (formats/calls.md). They are
# checked in, so a build never runs the generator; tests/t0003-calls-schema.sh fails when one is
# out of date.
gen-calls:
	sh tools/allprof/gen-calls.sh t2g < formats/calls.tsv > lib/ir_t2g_calls.h.tmp
	mv lib/ir_t2g_calls.h.tmp lib/ir_t2g_calls.h
	sh tools/allprof/gen-calls.sh c < formats/calls.tsv > tools/allprof/liballprof_mpi_gen.inc.tmp
	mv tools/allprof/liballprof_mpi_gen.inc.tmp tools/allprof/liballprof_mpi_gen.inc
	sh tools/allprof/gen-calls.sh f < formats/calls.tsv > tools/allprof/liballprof_f_gen.inc.tmp
	mv tools/allprof/liballprof_f_gen.inc.tmp tools/allprof/liballprof_f_gen.inc
	sh tools/allprof/gen-calls.sh doc < formats/calls.tsv > $(BUILD)/calls-doc.tmp
	awk -v t=$(BUILD)/calls-doc.tmp '/^<!-- calls.tsv: end/ { while ((getline l < t) > 0) print l; skip = 0 } \
	  !skip { print } /^<!-- calls.tsv: begin/ { skip = 1 }' formats/trace.md > formats/trace.md.tmp
	mv formats/trace.md.tmp formats/trace.md
	rm -f $(BUILD)/calls-doc.tmp

PROVE_JOBS ?= 2
export IR_BIN   = $(abspath $(BIN))
export IR_BUILD = $(abspath $(BUILD))
# tests that run make themselves (tests/t0002) pass these back, so nothing is rebuilt
export IR_MAKEVARS = BUILD=$(BUILD) BIN=$(BIN) SANITIZE=$(SANITIZE) WERROR=$(WERROR)
TESTS ?= $(sort $(wildcard tests/t[0-9]*.sh))
# Tests whose checks hold only on a machine doing nothing else (a calibration of a real netcal
# run must find the eager limit, no pinning on shared memory, a fit that follows its medians):
# they run after the others, one at a time, so that no other test loads the 2 cores while they
# measure (CONTRIBUTING.md, "Building and testing").
SERIAL_TESTS ?= tests/t6004-calib-piecewise.sh
check: all $(FUZZ_REPLAY)
	@rc=0; prove -j$(PROVE_JOBS) --exec '' $(UNIT_BINS) $(filter-out $(SERIAL_TESTS),$(TESTS)) || rc=1; \
	if [ -n "$(strip $(filter $(SERIAL_TESTS),$(TESTS)))" ]; then \
	  echo "== alone: $(filter $(SERIAL_TESTS),$(TESTS))"; \
	  prove --exec '' $(filter $(SERIAL_TESTS),$(TESTS)) || rc=1; \
	fi; exit $$rc

# make bench: the figures, each against the last recorded row of this machine in
# tests/bench/history.tsv (formats/bench-history.md); make bench-record (or make bench
# RECORD=1) appends them to it. Never pass/fail on a timing.
bench: all
	@RECORD=$(RECORD) tests/bench/run-all.sh

bench-record: all
	@RECORD=1 tests/bench/run-all.sh

# make demo: the README's first command. As root it first installs missing
# Debian packages (make deps); then it builds and runs pipelines/demo.mk.
demo:
	@if [ "$$(id -u)" = 0 ]; then $(MAKE) -s deps; fi
	@$(MAKE) -s all
	@$(MAKE) -s -f pipelines/demo.mk BIN=$(abspath $(BIN))

# build: libzstd-dev libpcre2-dev zlib1g-dev libotf2-trace-dev (OTF2 archives; otf2-tools for otf2-print
# in the tests); MPI: libopenmpi-dev openmpi-bin gfortran, and MPICH
# beside it for the MPICH tracer (mpich libmpich-dev; Open MPI stays the default mpicc/mpirun);
# plots: gnuplot-nox; fuzzing: clang; tests and benchmarks: zstd, time and bc (the commands), real MPI
# programs to trace (libhdf5-openmpi-dev: samples/hdf5/h5io, parallel HDF5 over MPI-IO; hpcc lammps lammps-examples netpipe-openmpi mumps-test meep-openmpi yorick-mpy-openmpi
# nwchem-openmpi: pipelines/apps.mk); real OpenSM fabrics (ibsim-utils, whose fabric simulator is
# /usr/bin/ibsim, not ours; opensm; infiniband-diags for ibnetdiscover: pipelines/opensm.mk); a
# one-node Slurm on localhost for the sweeps' srun and job-array modes (slurmctld slurmd slurm-client:
# tests/t8006-slurm-sweep.sh, pipelines/submit.mk); the Debian package (debhelper, dpkg-dev and
# pkg-config: debian/, tests/t8008-package.sh).
DEPS_PKGS := libzstd-dev libpcre2-dev zlib1g-dev libotf2-trace-dev otf2-tools libopenmpi-dev openmpi-bin mpich libmpich-dev gfortran gnuplot-nox \
             clang zstd time bc man-db libhdf5-openmpi-dev hpcc lammps lammps-examples netpipe-openmpi mumps-test meep-openmpi \
             yorick-mpy-openmpi nwchem-openmpi ibsim-utils opensm infiniband-diags slurmctld slurmd slurm-client \
             debhelper dpkg-dev pkg-config
deps:
	@if [ "$$(id -u)" = 0 ]; then \
	  missing=""; for p in $(DEPS_PKGS); do dpkg -s $$p >/dev/null 2>&1 || missing="$$missing $$p"; done; \
	  if [ -n "$$missing" ]; then \
	    apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $$missing; \
	  else echo "deps: all packages present"; fi; \
	else echo "run as root, or: sudo apt-get install $(DEPS_PKGS)"; fi

# make install: the tools into PREFIX/bin, their man pages into PREFIX/share/man/man1, and the
# library for programs of one's own: the static libibreplay.a into PREFIX/lib, its public
# headers (every lib/ir_*.h but the private *_internal.h and the generated call table) into
# PREFIX/include/ibreplay/, and ibreplay.pc (made from lib/ibreplay.pc.in with PREFIX and
# VERSION) into PREFIX/lib/pkgconfig. Only a static library: the API is not frozen, so a
# shared one would promise an ABI nobody keeps. debian/rules calls this with PREFIX=/usr.
PUB_HDRS  := $(filter-out %_internal.h $(LIBDIR)/ir_t2g_calls.h,$(LIB_HDRS))
PC_FILE   := $(BUILD)/ibreplay.pc

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/man/man1 $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/ibreplay
	for t in $(wildcard $(BIN)/*); do install -m 755 $$t $(DESTDIR)$(PREFIX)/bin/; done
	for m in $(wildcard docs/man/*.1); do install -m 644 $$m $(DESTDIR)$(PREFIX)/share/man/man1/; done
	install -m 644 $(LIB_A) $(DESTDIR)$(PREFIX)/lib/libibreplay.a
	install -m 644 $(PUB_HDRS) $(DESTDIR)$(PREFIX)/include/ibreplay/
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' $(LIBDIR)/ibreplay.pc.in > $(PC_FILE)
	install -m 644 $(PC_FILE) $(DESTDIR)$(PREFIX)/lib/pkgconfig/ibreplay.pc
	$(install-extra)

uninstall:
	for t in $(notdir $(wildcard $(BIN)/*)); do rm -f $(DESTDIR)$(PREFIX)/bin/$$t; done
	for m in $(notdir $(wildcard docs/man/*.1)); do rm -f $(DESTDIR)$(PREFIX)/share/man/man1/$$m; done
	rm -f $(DESTDIR)$(PREFIX)/lib/libibreplay.a $(DESTDIR)$(PREFIX)/lib/pkgconfig/ibreplay.pc
	rm -f $(addprefix $(DESTDIR)$(PREFIX)/include/ibreplay/,$(notdir $(PUB_HDRS)))
	-rmdir $(DESTDIR)$(PREFIX)/include/ibreplay 2>/dev/null
	$(uninstall-extra)

clean:
	rm -rf $(BUILD) $(BIN)
