# pipelines/iocal.mk: calibrate the storage model on this machine's disk, and validate it.
#
#   make -f pipelines/iocal.mk [BIN=...] [BUILD=...] [OUT=iocal-out] [DIR=$(OUT)/disk]
#        [REPS=8] [MAXBYTES=4M] [RUNS=1]
#   make -f pipelines/iocal.mk validate [NET_PARAMS=calibrate-out/cluster.params] [NRUNS=5] [MEASURE=...]
#        [DIRTY_LIMIT=bytes] [RERUN=no]
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
# SERVER_CACHE` (default 1G: the page cache, which iocal cannot measure), io.params and
# `dirty_limit = DIRTY_LIMIT` (this kernel's background write-back threshold), and
# $(OUT)/storage-before.params, the same without disk_read_G and dirty_limit (the model
# before them: one disk rate, dirty data written at once), runs
# each I/O program NRUNS times interleaved (MEASURE prefixes every real run), converts the
# median run, simulates it with both and compares: $(OUT)/validate/deviation.md
# (docs/validation.md, "MPI-IO against this machine's disk"; RERUN=no simulates the real
# runs already there again). The programs: iocal held out (another seed, other sizes,
# phases 1, 3, 5, 6), mpiio strided independent (also through ROMIO, with its data
# sieving) and collective, and h5io (when built).

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
RERUN    ?= yes
# the servers' dirty limit: this machine's background write-back threshold, in bytes
# (vm.dirty_background_bytes, or vm.dirty_background_ratio % of the available memory),
# a setting of the kernel rather than a measurement (docs/storage.md §4)
DIRTY_LIMIT ?= $(shell b=$$(cat /proc/sys/vm/dirty_background_bytes 2>/dev/null || echo 0); \
  if [ "$$b" -gt 0 ]; then echo $$b; else \
  r=$$(cat /proc/sys/vm/dirty_background_ratio 2>/dev/null || echo 10); \
  m=$$(sed -n 's/^MemAvailable: *\([0-9]*\) kB/\1/p' /proc/meminfo); echo $$(( $${m:-0} * 1024 / 100 * r )); fi)
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
	   grep -v '^#' $(OUT)/io.params; echo "dirty_limit = $(DIRTY_LIMIT)"; } > $(OUT)/storage.params
	@grep -v '^disk_read_G\|^dirty_limit' $(OUT)/storage.params > $(OUT)/storage-before.params
	BIN=$(BIN) BUILD=$(BUILD) OUT=$(OUT)/validate DIR=$(DIR) PARAMS=$(OUT)/storage.params NRUNS=$(NRUNS) \
	  BEFORE=$(OUT)/storage-before.params RERUN=$(RERUN) \
	  MEASURE="$(MEASURE)" MPIRUN="$(MPIRUN)" sh pipelines/iocal-validate.sh
