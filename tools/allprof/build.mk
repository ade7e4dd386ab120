# tools/allprof/build.mk: special build rules for allprof (included by the
# top-level Makefile).
#
# liballprof.so is an MPI library, so it is built with mpicc (never with
# the sanitizer flags: an instrumented library cannot be preloaded into an
# uninstrumented MPI program). liballprof_pass.c is generated from the
# installed mpi.h (tools/allprof/genpass.sh); most C and Fortran wrappers are
# made from formats/calls.tsv (tools/allprof/gen-calls.sh, checked in as
# liballprof_mpi_gen.inc and liballprof_f_gen.inc). The launcher bin/allprof is an
# ordinary tool linked with libibreplay; it finds the library next to
# itself after `make install` (PREFIX/bin/allprof -> PREFIX/lib/liballprof.so)
# and, in the build tree, at the absolute path compiled into it.
# The sample MPI programs of samples/apps/ are built into $(BUILD)/samples/.
#
# When MPICH is installed side by side (Debian's mpich: mpicc.mpich), the same
# sources are built a second time against it into liballprof-mpich.so, with
# their own pass-through file generated from MPICH's mpi.h, and the C samples
# (and the Fortran ones with mpif90.mpich) into $(BUILD)/samples-mpich/. The
# two libraries are not interchangeable (MPICH's handles are ints, Open MPI's
# pointers); the launcher picks one per run (allprof --mpi).

AP_DIR     := $(BUILD)/allprof
AP_SO      := $(AP_DIR)/liballprof.so
AP_MPICC   ?= mpicc
AP_MPIF90  ?= mpif90
AP_CFLAGS  := -std=c11 -D_GNU_SOURCE -DIR_VERSION='"$(VERSION)"' $(WARN) -O2 -g -fPIC \
              $(if $(WERROR),-Werror)
AP_SRCS    := tools/allprof/liballprof.c tools/allprof/liballprof_mpi.c tools/allprof/liballprof_f.c
# the wrappers made from formats/calls.tsv (checked in; make gen-calls rewrites them)
AP_GEN     := tools/allprof/liballprof_mpi_gen.inc tools/allprof/liballprof_f_gen.inc
AP_SAMPLE_SRCS := $(wildcard samples/apps/*.c)
AP_SAMPLES := $(patsubst samples/apps/%.c,$(BUILD)/samples/%,$(AP_SAMPLE_SRCS))
AP_FSAMPLES := $(if $(shell command -v $(AP_MPIF90) 2>/dev/null),\
              $(patsubst samples/apps/%.f90,$(BUILD)/samples/%,$(wildcard samples/apps/*.f90)))

AP_MPICH_CC  ?= mpicc.mpich
AP_MPICH_F90 ?= mpif90.mpich
AP_HAVE_MPICH := $(shell command -v $(AP_MPICH_CC) 2>/dev/null)
AP_MPICH_DIR := $(AP_DIR)/mpich
AP_MPICH_SO  := $(AP_DIR)/liballprof-mpich.so
AP_MPICH_SAMPLES := $(if $(AP_HAVE_MPICH),\
              $(patsubst samples/apps/%.c,$(BUILD)/samples-mpich/%,$(AP_SAMPLE_SRCS)) \
              $(BUILD)/samples-mpich/pingpong-linked \
              $(if $(shell command -v $(AP_MPICH_F90) 2>/dev/null),\
                $(patsubst samples/apps/%.f90,$(BUILD)/samples-mpich/%,$(wildcard samples/apps/*.f90))))

# samples/hdf5/h5io: parallel HDF5 over MPI-IO, built when Debian's libhdf5-openmpi-dev is
# installed (make deps); tests/t4022 skips without it.
# (only when its header is really found: a package build's pkg-config may point elsewhere)
AP_HDF5_CFLAGS := $(shell pkg-config --cflags hdf5-openmpi 2>/dev/null)
AP_HDF5_LIBS   := $(shell pkg-config --libs hdf5-openmpi 2>/dev/null)
AP_HASH        := \#
AP_HDF5_OK     := $(if $(AP_HDF5_LIBS),$(shell echo '$(AP_HASH)include <hdf5.h>' | $(AP_MPICC) $(AP_HDF5_CFLAGS) -E -x c - >/dev/null 2>&1 && echo yes))
AP_HDF5_SAMPLES := $(if $(AP_HDF5_OK),$(BUILD)/samples/h5io)

special-tools:: $(BIN)/allprof $(AP_SO) $(AP_SAMPLES) $(AP_FSAMPLES) $(BUILD)/samples/pingpong-linked \
	$(if $(AP_HAVE_MPICH),$(AP_MPICH_SO)) $(AP_MPICH_SAMPLES) $(AP_HDF5_SAMPLES)

$(BUILD)/samples/h5io: samples/hdf5/h5io.c
	@mkdir -p $(@D)
	$(AP_MPICC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -g $(if $(WERROR),-Werror) $(AP_HDF5_CFLAGS) -o $@ $< $(AP_HDF5_LIBS)

$(AP_DIR)/liballprof_pass.c: tools/allprof/genpass.sh
	@mkdir -p $(@D)
	echo '#include <mpi.h>' | $(AP_MPICC) -E -x c - | sh tools/allprof/genpass.sh > $@.tmp
	mv $@.tmp $@

$(AP_SO): $(AP_SRCS) $(AP_GEN) $(AP_DIR)/liballprof_pass.c tools/allprof/liballprof.h
	@mkdir -p $(@D)
	$(AP_MPICC) $(AP_CFLAGS) -Wno-deprecated-declarations -Itools/allprof -shared \
	  -Wl,-soname,liballprof.so -o $@ $(AP_SRCS) $(AP_DIR)/liballprof_pass.c -lzstd -ldl -lpthread

$(BIN)/allprof: tools/allprof/allprof.c $(LIB_A) $(LIB_HDRS) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(CC) $(ALL_CFLAGS) -DALLPROF_BUILD_LIB='"$(abspath $(AP_SO))"' \
	  -DALLPROF_BUILD_LIB_MPICH='"$(abspath $(AP_MPICH_SO))"' $(LDFLAGS) -o $@ $< \
	  $(LIB_A) $(LDLIBS)

$(BUILD)/samples/%: samples/apps/%.c $(wildcard samples/apps/*.h)
	@mkdir -p $(@D)
	$(AP_MPICC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -g $(if $(WERROR),-Werror) -o $@ $< -lm

$(BUILD)/samples/%: samples/apps/%.f90
	@mkdir -p $(@D)
	$(AP_MPIF90) -O2 -g -o $@ $<

# The same ping-pong linked with -lallprof (the linked case, without LD_PRELOAD).
$(BUILD)/samples/pingpong-linked: samples/apps/pingpong.c $(AP_SO)
	@mkdir -p $(@D)
	$(AP_MPICC) -std=c11 -D_GNU_SOURCE $(WARN) -O2 -g -o $@ $< -L$(AP_DIR) -lallprof \
	  -Wl,-rpath,$(abspath $(AP_DIR)) -lm

# The MPICH build: its own pass-through file from MPICH's mpi.h.
$(AP_MPICH_DIR)/liballprof_pass.c: tools/allprof/genpass.sh
	@mkdir -p $(@D)
	echo '#include <mpi.h>' | $(AP_MPICH_CC) -E -x c - | sh tools/allprof/genpass.sh > $@.tmp
	mv $@.tmp $@

$(AP_MPICH_SO): $(AP_SRCS) $(AP_GEN) $(AP_MPICH_DIR)/liballprof_pass.c tools/allprof/liballprof.h
	@mkdir -p $(@D)
	$(AP_MPICH_CC) $(AP_CFLAGS) -Wno-deprecated-declarations -Itools/allprof -shared \
	  -Wl,-soname,liballprof-mpich.so -o $@ $(AP_SRCS) $(AP_MPICH_DIR)/liballprof_pass.c \
	  -lzstd -ldl -lpthread

# MPICH's MPI_STATUSES_IGNORE is (MPI_Status *)1, which gcc 12 takes for an
# array of size 0 passed to MPI_Waitall's MPI_Status[] (a false
# -Wstringop-overflow in every program that passes it).
AP_MPICH_SAMPLE_CFLAGS := -std=c11 -D_GNU_SOURCE $(WARN) -Wno-stringop-overflow -O2 -g

$(BUILD)/samples-mpich/%: samples/apps/%.c $(wildcard samples/apps/*.h)
	@mkdir -p $(@D)
	$(AP_MPICH_CC) $(AP_MPICH_SAMPLE_CFLAGS) $(if $(WERROR),-Werror) -o $@ $< -lm

$(BUILD)/samples-mpich/%: samples/apps/%.f90
	@mkdir -p $(@D)
	$(AP_MPICH_F90) -O2 -g -o $@ $<

$(BUILD)/samples-mpich/pingpong-linked: samples/apps/pingpong.c $(AP_MPICH_SO)
	@mkdir -p $(@D)
	$(AP_MPICH_CC) $(AP_MPICH_SAMPLE_CFLAGS) -o $@ $< -L$(AP_DIR) -lallprof-mpich \
	  -Wl,-rpath,$(abspath $(AP_DIR)) -lm

install-extra += install -d $(DESTDIR)$(PREFIX)/lib && \
	install -m 644 $(AP_SO) $(DESTDIR)$(PREFIX)/lib/liballprof.so && \
	if [ -f $(AP_MPICH_SO) ]; then \
	  install -m 644 $(AP_MPICH_SO) $(DESTDIR)$(PREFIX)/lib/liballprof-mpich.so; fi ;
uninstall-extra += rm -f $(DESTDIR)$(PREFIX)/lib/liballprof.so \
	$(DESTDIR)$(PREFIX)/lib/liballprof-mpich.so ;
