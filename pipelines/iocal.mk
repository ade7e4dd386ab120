# pipelines/iocal.mk: calibrate the storage model on this machine's disk, and validate it.
#
#   make -f pipelines/iocal.mk [BIN=...] [BUILD=...] [OUT=iocal-out] [DIR=$(OUT)/disk]
#        [REPS=8] [MAXBYTES=4M] [RUNS=1]
#   make -f pipelines/iocal.mk validate [NET_PARAMS=calibrate-out/cluster.params] [NRUNS=5] [MEASURE=...]
#
# `all` runs samples/apps/iocal under allprof on one rank, with its files in DIR (a
# directory on the disk to calibrate; it is created), RUNS times, and fits the storage keys
# with `calib --io` (formats/calibration.md, "Storage: iocal"):
#
#   $(OUT)/cal1/ ...       the traces
#   $(OUT)/io.params       cache_G disk_G disk_sync disk_access disk_track_seek disk_rotation,
#                          with their 95 % half-widths and what the disk cannot identify
#   $(OUT)/disk.txt        the block device under DIR and what the kernel says of it
#
# `validate` (pipelines/iocal-validate.sh) builds $(OUT)/storage.params from NET_PARAMS (a
# network calibration, pipelines/calibrate.mk), `storage_servers = 1`, `server_cache =
# SERVER_CACHE` (default 1G: the page cache, which iocal cannot measure) and io.params, runs
# each I/O program NRUNS times interleaved (MEASURE prefixes every real run), converts the
# median run, simulates it and compares: $(OUT)/validate/deviation.md (docs/validation.md,
# "MPI-IO against this machine's disk"). The programs: iocal held out (another seed, other
# sizes, phases 1, 3, 5, 6), mpiio strided independent and collective, and h5io (when built).

BUILD    ?= build
BIN      ?= bin
OUT      ?= iocal-out
DIR      ?= $(OUT)/disk
REPS     ?= 8
MAXBYTES ?= 4M
RUNS     ?= 1
NET_PARAMS ?= calibrate-out/cluster.params
NRUNS    ?= 5
# the servers' cache: the page cache, which iocal cannot measure (formats/calibration.md);
# this machine's holds far more than the programs write
SERVER_CACHE ?= 1G
MEASURE  ?=
MPIRUN   ?= mpirun --bind-to core
BUILD_TOOLS ?= yes

export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

CAL_DIRS := $(patsubst %,$(OUT)/cal%,$(shell seq 1 $(RUNS)))

.PHONY: all tools validate
all: $(OUT)/io.params $(OUT)/disk.txt
	@grep -v '^#|' $(OUT)/io.params
	@cat $(OUT)/disk.txt

tools:
ifneq ($(BUILD_TOOLS),no)
	@$(MAKE) -s BUILD=$(BUILD) BIN=$(BIN) $(BIN)/calib $(BIN)/allprof $(BIN)/trace2goal $(BIN)/ibsim \
	  $(BIN)/cmp-real $(BUILD)/samples/iocal $(BUILD)/samples/mpiio $(BUILD)/allprof/liballprof.so >/dev/null
endif

$(OUT)/cal%/.done: | tools
	@rm -rf $(OUT)/cal$* && mkdir -p $(DIR)
	$(MEASURE) $(BIN)/allprof -q -o $(OUT)/cal$* -- $(MPIRUN) -np 1 $(BUILD)/samples/iocal $(DIR) -q -n $(REPS) -m $(MAXBYTES) -s $*
	@touch $@

$(OUT)/io.params: $(addsuffix /.done,$(CAL_DIRS)) | tools
	$(BIN)/calib -q --io -o $@ $(CAL_DIRS)

$(OUT)/disk.txt:
	@mkdir -p $(DIR)
	@dev=$$(df --output=source $(DIR) | tail -n 1); b=$$(basename $$dev); \
	  { echo "disk under $(DIR): $$dev ($$(df --output=fstype $(DIR) | tail -n 1))"; \
	    if [ -r /sys/block/$$b/queue/rotational ]; then \
	      echo "kernel: rotational=$$(cat /sys/block/$$b/queue/rotational) (a virtual disk may say 1; its rotation is not measurable)"; fi; \
	    if [ -r /sys/class/block/$$b/device/model ]; then echo "model: $$(cat /sys/class/block/$$b/device/model)"; fi; \
	  } > $@

validate: $(OUT)/io.params | tools
	@test -f $(NET_PARAMS) || { echo "iocal.mk: no network parameters '$(NET_PARAMS)' (make -f pipelines/calibrate.mk first)" >&2; exit 1; }
	@{ grep -v '^#' $(NET_PARAMS); echo "storage_servers = 1"; echo "server_cache = $(SERVER_CACHE)"; \
	   grep -v '^#' $(OUT)/io.params; } > $(OUT)/storage.params
	BIN=$(BIN) BUILD=$(BUILD) OUT=$(OUT)/validate DIR=$(DIR) PARAMS=$(OUT)/storage.params NRUNS=$(NRUNS) \
	  MEASURE="$(MEASURE)" MPIRUN="$(MPIRUN)" sh pipelines/iocal-validate.sh
