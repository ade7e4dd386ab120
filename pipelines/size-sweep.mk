# pipelines/size-sweep.mk: the ping-pong's one-way time per message size,
# real and simulated on both networks, on one chart.
#
#   make -f pipelines/size-sweep.mk [MAXBYTES=1048576] [REPS=20] [TOPO=fattree2:4] ...
#
# real: samples/apps/pingpong traced on 2 ranks and fitted by calib
# (pipelines/calibrate.mk into $(OUT)/calib; its table gives the median
# one-way time of each size). loggops and ib: a goalgen ping-pong of SIMREPS
# round trips per size, simulated by ibsim with the calibrated parameters
# (calib's fit for --net loggops, and calib --net ib on the same traces for
# --net ib over TOPO with PLACEMENT); one-way time = rank 0's end / (2 SIMREPS).
#
# Variables a user edits:
#   MAXBYTES    largest size (sizes 0, 1, 2, 4 ... MAXBYTES)
#   REPS        repetitions per size of the real ping-pong
#   SIMREPS     round trips per size of the simulated one
#   TOPO        ib topology (default fattree2:4); PLACEMENT seq, random:SEED
#               or a file (the two ranks on one leaf with seq)
#   PARAMS, IB_PARAMS  parameter files to use instead of calibrating
#               (with both given and MPI=no, no real run: no real curve)
#   IBFLAGS     more ibsim options for the ib curve (--link 4xQDR ...)
#   OUT         output directory (default pipelines/out/size-sweep)
#   SUBMIT      a prefix for each simulation's command, e.g. "srun -N1 -n1
#               --exclusive" with -j64 (SRUN is another name); the target
#               `commands` lists the simulations instead, for a Slurm job array
#               (pipelines/submit.mk, pipelines/slurm-array.sh)
#
# Outputs: $(OUT)/curves.tsv (size_bytes real_us loggops_us ib_us, printed)
# and $(OUT)/size-sweep.png, .svg. Rerunning redoes only what changed.

BIN      ?= $(CURDIR)/bin
BUILD    ?= build
OUT      ?= pipelines/out/size-sweep
MAXBYTES ?= 1048576
REPS     ?= 20
SIMREPS  ?= 10
TOPO     ?= fattree2:4
PLACEMENT ?= seq
PARAMS   ?=
IB_PARAMS ?=
IBFLAGS  ?=
MPI      ?= $(if $(shell command -v mpirun 2>/dev/null),yes,no)
PLOTS    ?= $(if $(shell command -v gnuplot 2>/dev/null),yes,no)

export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

ifneq ($(shell echo '$(MAXBYTES)' | grep -x '[0-9][0-9]*'),$(MAXBYTES))
$(error MAXBYTES must be a number of bytes, not '$(MAXBYTES)')
endif

B       := $(abspath $(BIN))
O       := $(abspath $(OUT))
SIZES   := 0 $(shell s=1; while [ $$s -le $(MAXBYTES) ]; do echo $$s; s=$$((s * 2)); done)
REAL    := $(if $(and $(PARAMS),$(IB_PARAMS),$(filter no,$(MPI))),no,yes)
P_LG    := $(or $(PARAMS),$(O)/calib/loggops.params)
P_IB    := $(or $(IB_PARAMS),$(O)/calib/ib.params)

.PHONY: all files
.DEFAULT_GOAL := all
# named here so that make neither deletes them as intermediate files nor skips them when missing
files: $(foreach s,$(SIZES),$(O)/sim/$(s).pp.goalb)
.DELETE_ON_ERROR:
all: $(O)/curves.tsv $(if $(filter yes,$(PLOTS)),$(O)/size-sweep.png $(O)/size-sweep.svg)
	@awk -F'\t' '{printf "%12s %12s %12s %12s\n", $$1, $$2, $$3, $$4}' $<
	@echo "table: $(O)/curves.tsv"
	@$(if $(filter yes,$(PLOTS)),echo "chart: $(O)/size-sweep.png $(O)/size-sweep.svg")

define stamp
$(shell mkdir -p $(O); [ "`cat $(O)/$(1) 2>/dev/null`" = "$(2)" ] || echo "$(2)" > $(O)/$(1))
endef
$(call stamp,.sim,$(SIMREPS) $(TOPO) $(PLACEMENT) $(IBFLAGS) $(PARAMS) $(IB_PARAMS))

# ---- calibration (the real curve) ----
$(O)/calib/cluster.params:
	@echo "calibrating: ping-pong 0 .. $(MAXBYTES) bytes, $(REPS) repetitions"
	@$(MAKE) -s --no-print-directory -f pipelines/calibrate.mk BUILD=$(BUILD) BIN=$(B) OUT=$(O)/calib BUILD_TOOLS=no \
	  REPS=$(REPS) MAXBYTES=$(MAXBYTES) $@ >/dev/null
$(O)/calib/loggops.params: $(O)/calib/cluster.params
	@grep -v '^pin_' $< > $@
$(O)/calib/ib.params: $(O)/calib/cluster.params
	@$(B)/calib -q --net ib --topo $(TOPO) -o $@.all $(O)/calib/pp
	@grep -v '^pin_' $@.all > $@ && rm -f $@.all

# size_bytes real_us from calib's table (stderr lines "calib: SIZE REPS REAL_US ...")
$(O)/real.tsv: $(if $(filter yes,$(REAL)),$(O)/calib/cluster.params)
	@$(if $(filter yes,$(REAL)),awk '$$2 ~ /^[0-9]+$$/ {print $$2 "\t" $$4}' $(O)/calib/table.txt,true) > $@

# ---- simulated ping-pongs, one per size and network ----
$(O)/sim/%.pp.goalb: $(O)/.sim
	@mkdir -p $(@D)
	@$(B)/goalgen pingpong 2 --reps $(SIMREPS) --size $* | $(B)/goalc -q -o $@

# One target and one command line per simulation, run here or under SUBMIT, or
# listed by `make ... commands` for a job array (pipelines/submit.mk).
SIMS := $(foreach s,$(SIZES),$(O)/sim/$(s).loggops $(O)/sim/$(s).ib)
include $(dir $(lastword $(MAKEFILE_LIST)))submit.mk
oneway = awk -v r=$(SIMREPS) '!/^\#/ && $$1 == "0" {printf "%.3f\n", $$2 / (2e6 * r)}'
$(O)/sim/%.loggops: $(O)/sim/%.pp.goalb $(P_LG)
	@$(call submit,$(B)/ibsim -q -p $(abspath $(P_LG)) --net loggops $< | $(oneway) > $@)
$(O)/sim/%.ib: $(O)/sim/%.pp.goalb $(P_IB)
	@$(call submit,$(B)/ibsim -q -p $(abspath $(P_IB)) --net ib --topo $(TOPO) --placement $(PLACEMENT) $(IBFLAGS) $< | $(oneway) > $@)

$(O)/curves.tsv: $(O)/real.tsv $(SIMS)
	@{ printf 'size_bytes\treal_us\tloggops_us\tib_us\n'; \
	  for s in $(SIZES); do \
	    r=$$(awk -v s=$$s '$$1 == s {print $$2}' $(O)/real.tsv); \
	    printf '%s\t%s\t%s\t%s\n' $$s "$${r:--}" $$(cat $(O)/sim/$$s.loggops) $$(cat $(O)/sim/$$s.ib); \
	  done; } > $@

$(O)/size-sweep.png $(O)/size-sweep.svg: $(O)/curves.tsv pipelines/plot/size-sweep.gp
	@gnuplot -e "in='$<'; out='$@'; topo='$(TOPO)'" pipelines/plot/size-sweep.gp
