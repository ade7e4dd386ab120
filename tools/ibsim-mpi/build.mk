# tools/ibsim-mpi/build.mk: bin/ibsim-mpi, the parallel ibsim (included by the top-level
# Makefile).
#
# ibsim-mpi is tools/ibsim/ibsim.c compiled again with -DIBSIM_MPI, with
# tools/ibsim-mpi/ibsim_mpi.c (main(), MPI's collectives), linked by mpicc against the
# same libibreplay.a; plain ibsim keeps no MPI dependency. Where mpicc is missing the
# program is not built and its tests skip.

IM_MPICC ?= mpicc
IM_HAVE  := $(shell command -v $(IM_MPICC) 2>/dev/null)
IM_DIR   := $(BUILD)/ibsim-mpi

ifneq ($(IM_HAVE),)
special-tools:: $(BIN)/ibsim-mpi
endif

$(IM_DIR)/ibsim.o: tools/ibsim/ibsim.c tools/ibsim/ibsim_otf2.h tools/ibsim-mpi/ibsim_mpi.h $(LIB_HDRS) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(IM_MPICC) $(ALL_CFLAGS) -DIBSIM_MPI -Itools/ibsim-mpi -Itools/ibsim -c -o $@ $<

$(IM_DIR)/ibsim_otf2.o: tools/ibsim/ibsim_otf2.c tools/ibsim/ibsim_otf2.h $(LIB_HDRS) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(IM_MPICC) $(ALL_CFLAGS) -c -o $@ $<

$(IM_DIR)/ibsim_mpi.o: tools/ibsim-mpi/ibsim_mpi.c tools/ibsim-mpi/ibsim_mpi.h $(LIB_HDRS) $(FLAGS_STAMP)
	@mkdir -p $(@D)
	$(IM_MPICC) $(ALL_CFLAGS) -c -o $@ $<

$(BIN)/ibsim-mpi: $(IM_DIR)/ibsim.o $(IM_DIR)/ibsim_otf2.o $(IM_DIR)/ibsim_mpi.o $(LIB_A)
	@mkdir -p $(@D)
	$(IM_MPICC) $(ALL_CFLAGS) $(LDFLAGS) -o $@ $^ $(LDLIBS)
