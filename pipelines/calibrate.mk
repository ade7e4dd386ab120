# pipelines/calibrate.mk: calibrate the LogGOPS overheads of this machine.
#
#   make -f pipelines/calibrate.mk [BIN=...] [BUILD=...] [OUT=...] [REPS=20] [MAXBYTES=1048576]
#
# Builds the tools and samples/apps/pingpong (through the top-level
# Makefile), runs the ping-pong under allprof on exactly 2 ranks (one per
# core: oversubscribed ranks wait for the scheduler, which raises
# small-message latency 10-100x) over the sizes 0, 1, 2, 4 ... MAXBYTES with
# REPS reuses per size, fits the overheads with calib, and writes
#
#   $(OUT)/pp/              the traces
#   $(OUT)/cluster.params   the parameter file (ibsim -p, trace2goal -p)
#   $(OUT)/fit.png, fit.svg the points and the fitted lines
#   $(OUT)/table.txt        calib's table (also shown)
#
# Rerunning redoes only what changed; `make -f pipelines/calibrate.mk retrace`
# measures again. CALIB_FLAGS passes options to calib (-p, -S, --model loggp).
# BUILD_TOOLS=no uses the tools and the ping-pong as they are in BIN and
# BUILD instead of asking the top-level Makefile for them.

BUILD    ?= build
BIN      ?= bin
OUT      ?= calibrate-out
REPS     ?= 20
MAXBYTES ?= 1048576
MPIRUN   ?= mpirun --bind-to core -np 2
CALIB_FLAGS ?=
BUILD_TOOLS ?= yes

# Open MPI refuses to run as root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

ALLPROF  := $(BIN)/allprof
CALIB    := $(BIN)/calib
PINGPONG := $(BUILD)/samples/pingpong

.PHONY: all tools retrace
all: $(OUT)/cluster.params $(OUT)/fit.png $(OUT)/fit.svg
	@cat $(OUT)/table.txt
	@echo
	@grep -E '^(o|O|S|o_rndv|O_rndv|pin_a|pin_b) ' $(OUT)/cluster.params
	@echo "outputs in $(OUT)/: cluster.params, fit.png, fit.svg, table.txt, pp/ (traces)"

# The tools and the ping-pong come from the top-level build.
tools:
ifneq ($(BUILD_TOOLS),no)
	@$(MAKE) -s BUILD=$(BUILD) BIN=$(BIN) $(CALIB) $(ALLPROF) $(PINGPONG) \
	  $(BUILD)/allprof/liballprof.so >/dev/null
endif

$(OUT)/pp/.done: | tools
	@rm -rf $(OUT)/pp && mkdir -p $(OUT)
	$(ALLPROF) -q -o $(OUT)/pp -- $(MPIRUN) $(PINGPONG) -q -n $(REPS) -m $(MAXBYTES)
	@touch $@

retrace:
	@rm -f $(OUT)/pp/.done
	@$(MAKE) -f pipelines/calibrate.mk BUILD=$(BUILD) BIN=$(BIN) OUT=$(OUT) REPS=$(REPS) MAXBYTES=$(MAXBYTES)

$(OUT)/cluster.params: $(OUT)/pp/.done | tools
	$(CALIB) $(CALIB_FLAGS) -o $@ $(OUT)/pp 2>$(OUT)/table.txt || { cat $(OUT)/table.txt; exit 1; }

$(OUT)/fit.%: $(OUT)/pp/.done $(OUT)/cluster.params | tools
	$(CALIB) -q $(CALIB_FLAGS) --plot $@ -o /dev/null $(OUT)/pp
