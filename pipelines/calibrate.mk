# pipelines/calibrate.mk: calibrate the cost model of this machine.
#
#   make -f pipelines/calibrate.mk [BIN=...] [BUILD=...] [OUT=...] [MPIRUN=...]
#        [REPS=1000 (pingpong: 20)] [MAXBYTES=67108864] [BUDGET=30] [PROGRAM=netcal|pingpong]
#        [RUNS=1] [RUN_DELAY=0]
#   make -f pipelines/calibrate.mk stability [DELAY=120] ...
#   make -f pipelines/calibrate.mk node [NODE_NP="4 8"] [CORES=2] [NODECAL_RUNS=5] [NODE_BIND=none|core] ...
#
# Builds the tools and samples/apps/netcal (through the top-level Makefile),
# runs it under allprof on exactly 2 ranks (one per core: oversubscribed
# ranks wait for the scheduler, which raises small-message latency 10-100x)
# over the sizes 0 .. MAXBYTES (bytes, or with a K, M or G suffix: 64K) with at most REPS repetitions per size and
# phase and a time budget of about BUDGET seconds (formats/calibration.md),
# fits the piecewise model and the classic LogGOPS keys with calib, and writes
#
#   $(OUT)/pp/              the traces
#   $(OUT)/cluster.params   the parameter file (ibsim -p, trace2goal -p)
#   $(OUT)/fit.png, fit.svg the points and the fitted lines
#   $(OUT)/table.txt        calib's table (also shown)
#
# RUNS=N measures N runs, RUN_DELAY seconds apart, into $(OUT)/pp, $(OUT)/pp2 ...
# $(OUT)/ppN, and calib pools them (formats/calibration.md, "Several runs"): the
# medians are then over the machine's states at N moments, not one.
#
# PROGRAM=pingpong measures with samples/apps/pingpong instead (the classic
# keys only; REPS reuses per size). Rerunning redoes only what changed;
# `make -f pipelines/calibrate.mk retrace` measures again. CALIB_FLAGS passes
# options to calib (-p, -S, --model loggp). BUILD_TOOLS=no uses the tools and
# the programs as they are in BIN and BUILD instead of asking the top-level
# Makefile for them.
#
# `node` also runs samples/apps/nodecal oversubscribed at each rank count of NODE_NP
# (more ranks than the CORES of this machine), NODECAL_RUNS times (default 5; the counts
# interleaved: 4, 8, 4, 8, ...), without the tracer (its own time would be in every message:
# 0.8 us of 2.8 us one way at 4 ranks on 2 cores), its output (ranks, median one-way time,
# round trips) into $(OUT)/nodecalN.out, nodecalN.2.out .. nodecalN.R.out, and fits
# cpu_yield and cpu_wake with calib --yield against cluster.params, each count's wake-up
# the median of its runs (formats/calibration.md, "Shared cores"), for the rule ibsim will
# apply, NODE_BIND (calib --cpu-bind: none, the default, a rank on any core of its host; core,
# rank r on core r mod CORES, as validate.mk's NODE with --cpu-bind core simulates):
# $(OUT)/node.params (cores, cpu_wait, cpu_bind, cpu_yield, cpu_wake), and
# $(OUT)/cluster-node.params, both files in one, for ibsim -p with --ranks-per-host.
#
# STATE_REF=US (microseconds: the network's undisturbed clock round trip, e.g. the ref_us of
# pipelines/crossnet.mk's state-NET) calibrates again, up to STATE_TRIES times (default 5: of
# eight shared-memory calibrations with this check on the reference VM on 2026-11-29, six were
# undisturbed by the 3rd try, one at the 5th, one not in 3; docs/validation.md),
# STATE_DELAY seconds apart (default 30), while a run's clock round trips at MPI_Init or at
# MPI_Finalize, or (netcal) its pulses' undisturbed value in its worst phase (the largest of
# the phases' values on calib's "# machine state" line), are more than 25 % above it
# (pipelines/state-check.sh): a run made on a slowed machine, which netcal's pulses cannot tell
# by themselves when it is slowed all through a phase (formats/calibration.md, "Machine
# state"). netcal's runs are then fitted with calib --state-ref, which judges every pulse
# against the reference as well, and sets aside what was measured while the machine was
# slowed; when every try was slowed, all of them are pooled that way (their list in
# $(OUT)/pp.pool), so that their undisturbed stretches make the calibration. With another
# program (no pulses) the least slowed run (the smallest of their larger round trips) is kept.
# Each try's verdict (state-check.sh's line) and that outcome are also written to
# $(OUT)/pp.state (ppN.state for run N), which pipelines/crossnet.mk's table shows.
#
# `stability` calibrates twice, DELAY seconds apart, into $(OUT)/stab1 and
# $(OUT)/stab2, and writes $(OUT)/stability.tsv (also shown): per fitted term,
# the largest relative difference of the two fits evaluated at every measured
# size of 64 bytes and more, where it is, and both values.

BUILD    ?= build
BIN      ?= bin
OUT      ?= calibrate-out
# netcal: at most 1000 repetitions per size, so that the medians of the small sizes, whose
# exchanges last a microsecond and vary by 100 %, come within a few percent (the time
# budget stops the large sizes long before); pingpong: 20 per size
REPS     ?= $(if $(filter netcal,$(PROGRAM)),1000,20)
MAXBYTES ?= 67108864
BUDGET   ?= 30
PROGRAM  ?= netcal
DELAY    ?= 120
RUNS     ?= 1
RUN_DELAY ?= 0
STATE_REF ?=
STATE_TRIES ?= 5
STATE_DELAY ?= 30
HERE     := $(dir $(lastword $(MAKEFILE_LIST)))
MPIRUN   ?= mpirun --bind-to core -np 2
CALIB_FLAGS ?=
BUILD_TOOLS ?= yes

# Open MPI refuses to run as root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

ALLPROF  := $(BIN)/allprof
CALIB    := $(BIN)/calib
MEASURE  := $(BUILD)/samples/$(PROGRAM)
ifeq ($(PROGRAM),netcal)
MEASURE_ARGS := -q -n $(REPS) -m $(MAXBYTES) -t $(BUDGET)
else
MEASURE_ARGS := -q -n $(REPS) -m $(MAXBYTES)
endif
SUBMAKE  = $(MAKE) -f pipelines/calibrate.mk BUILD=$(BUILD) BIN=$(BIN) REPS=$(REPS) MAXBYTES=$(MAXBYTES) \
           BUDGET=$(BUDGET) PROGRAM=$(PROGRAM) MPIRUN="$(MPIRUN)" CALIB_FLAGS="$(CALIB_FLAGS)" BUILD_TOOLS=$(BUILD_TOOLS) \
           RUNS=$(RUNS) RUN_DELAY=$(RUN_DELAY) STATE_REF=$(STATE_REF) STATE_TRIES=$(STATE_TRIES) STATE_DELAY=$(STATE_DELAY)

# check NAME,VALUE,REGEX,WHAT: stop unless VALUE is all of REGEX
check = $(if $(shell echo '$(2)' | grep -Ex '$(3)'),,$(error invalid $(1) '$(2)' (expected $(4))))
$(call check,RUNS,$(RUNS),[1-9][0-9]?,a whole number of runs from 1 to 99)
$(call check,RUN_DELAY,$(RUN_DELAY),[0-9]+,whole seconds)
$(if $(STATE_REF),$(call check,STATE_REF,$(STATE_REF),0*[1-9][0-9]*(\.[0-9]*)?|[0-9]*\.[0-9]*[1-9][0-9]*,a positive number of microseconds))
$(call check,STATE_TRIES,$(STATE_TRIES),[1-9][0-9]?,a whole number of runs from 1 to 99)
$(call check,STATE_DELAY,$(STATE_DELAY),[0-9]+,whole seconds)
# measure DIR: run the measuring program under allprof into DIR; with STATE_REF again while
# the machine was slowed (up to STATE_TRIES runs), each try's verdict also in DIR.state; netcal:
# the slowed tries are kept as DIR.tryN and, when all were slowed, listed in DIR.pool
POOL_SLOWED := $(filter netcal,$(PROGRAM))
STATE_FLAGS := $(if $(STATE_REF),--state-ref $(STATE_REF)us)
WORST_PULSE := s/^\# machine state: .* undisturbed \([0-9.]* us to \)\{0,1\}\([0-9.]*\) us (each.*/\2/p
measure = try=1; best=; rm -rf $(1).best $(1).try* $(1).state $(1).pool; while :; do \
	  echo "$(ALLPROF) -q -o $(1) -- $(MPIRUN) $(MEASURE) $(MEASURE_ARGS)"; \
	  $(ALLPROF) -q -o $(1) -- $(MPIRUN) $(MEASURE) $(MEASURE_ARGS) || exit 1; \
	  $(if $(STATE_REF),p=$(if $(POOL_SLOWED),$$($(CALIB) -q $(STATE_FLAGS) $(1) 2>/dev/null | sed -n '$(WORST_PULSE)')); \
	  v=$$(sh $(HERE)state-check.sh $(1) $(STATE_REF) $$p); rc=$$?; \
	  echo "$$v"; echo "try $$try: $$v" >> $(1).state; [ $$rc = 0 ] && { rm -rf $(1).best $(1).try*; break; }; \
	  $(if $(POOL_SLOWED),mv $(1) $(1).try$$try; \
	  if [ $$try -ge $(STATE_TRIES) ]; then \
	    mv $(1).try$$try $(1); l=$(1); i=1; while [ $$i -lt $$try ]; do l="$$l $(1).try$$i"; i=$$((i + 1)); done; \
	    echo "$$l" > $(1).pool; \
	    v="calibrated on a slowed machine $(STATE_TRIES) times: the $(STATE_TRIES) runs are pooled and what each measured while slowed is set aside (calib --state-ref)"; \
	    echo "$$v"; echo "$$v" >> $(1).state; break; fi;, \
	  w=$$(sh $(HERE)state-check.sh -w $(1) $$p); \
	  if [ -z "$$best" ] || awk -v a="$$w" -v b="$$best" 'BEGIN { exit !(a < b) }'; then \
	    rm -rf $(1).best; mv $(1) $(1).best; best=$$w; else rm -rf $(1); fi; \
	  if [ $$try -ge $(STATE_TRIES) ]; then \
	    v="calibrated on a slowed machine $(STATE_TRIES) times: the least slowed run is kept (round trip $$best us)"; \
	    echo "$$v"; echo "$$v" >> $(1).state; \
	    mv $(1).best $(1); break; fi;) \
	  try=$$((try + 1)); echo "again in $(STATE_DELAY) s"; sleep $(STATE_DELAY),break); \
	done
# the directories calib fits: each run's, or the tries pooled for it (DIR.pool)
FIT_DIRS = $$(for d in $(RUN_DIRS); do if [ -f $$d.pool ]; then cat $$d.pool; else echo $$d; fi; done)
# the runs' trace directories: pp, then pp2 .. ppN
RUN_DIRS := $(OUT)/pp $(patsubst %,$(OUT)/pp%,$(wordlist 2,$(RUNS),$(shell seq 1 $(RUNS))))
RUN_DONE := $(addsuffix /.done,$(RUN_DIRS))

NODE_NP  ?= 4 8
CORES    ?= $(shell nproc)
NODECAL_REPS ?= 2000
NODECAL_RUNS ?= 5
$(call check,NODECAL_RUNS,$(NODECAL_RUNS),[1-9][0-9]?,a whole number of runs from 1 to 99)
NODE_MPIRUN ?= mpirun --oversubscribe --bind-to none
NODE_BIND ?= none
$(call check,NODE_BIND,$(NODE_BIND),none|core,none or core)

.PHONY: all tools retrace stability node
all: $(OUT)/cluster.params $(OUT)/fit.png $(OUT)/fit.svg
	@cat $(OUT)/table.txt
	@echo
	@grep -E '^(o|O|S|o_rndv|O_rndv|pin_a|pin_b|send_o|recv_o|net_L|copy|reduce) ' $(OUT)/cluster.params
	@echo "outputs in $(OUT)/: cluster.params, fit.png, fit.svg, table.txt, $(patsubst $(OUT)/%,%/,$(RUN_DIRS)) (traces)"

# The tools and the measuring program come from the top-level build.
tools:
ifneq ($(BUILD_TOOLS),no)
	@$(MAKE) -s BUILD=$(BUILD) BIN=$(BIN) $(CALIB) $(ALLPROF) $(MEASURE) \
	  $(BUILD)/allprof/liballprof.so >/dev/null
endif

$(OUT)/pp/.done: | tools
	@rm -rf $(OUT)/pp && mkdir -p $(OUT)
	@$(call measure,$(OUT)/pp)
	@touch $@

# run N waits for run N-1 (pp is run 1), then RUN_DELAY seconds
define run_rule
$(OUT)/pp$(1)/.done: $(OUT)/pp$(2)/.done | tools
	@sleep $(RUN_DELAY)
	@rm -rf $(OUT)/pp$(1)
	@$$(call measure,$(OUT)/pp$(1))
	@touch $$@
endef
$(foreach i,$(wordlist 2,$(RUNS),$(shell seq 1 $(RUNS))),$(eval $(call run_rule,$(i),$(if $(filter 2,$(i)),,$(shell expr $(i) - 1)))))

node: $(OUT)/cluster-node.params
	@grep -E '^(# |cpu_yield|cpu_wake)' $(OUT)/node.params | grep -v '^# written'

# the nodecal runs in the order measured: every rank count of NODE_NP once, NODECAL_RUNS
# times (nodecalN.out, then nodecalN.2.out .. nodecalN.R.out), each run after the one before it
NODE_RUNS := $(foreach i,$(shell seq 1 $(NODECAL_RUNS)),$(foreach n,$(NODE_NP),$(OUT)/nodecal$(n)$(if $(filter-out 1,$(i)),.$(i)).out))
define node_rule
$(1): $(2) | tools
	@$$(MAKE) -s BUILD=$$(BUILD) BIN=$$(BIN) $$(BUILD)/samples/nodecal >/dev/null
	@mkdir -p $$(@D)
	$$(NODE_MPIRUN) -np $(3) $$(BUILD)/samples/nodecal -n $$(NODECAL_REPS) >$(1).tmp
	@mv $(1).tmp $(1)
endef
node_np = $(firstword $(subst ., ,$(patsubst $(OUT)/nodecal%,%,$(1))))
$(foreach k,$(shell seq 1 $(words $(NODE_RUNS))),$(eval $(call node_rule,$(word $(k),$(NODE_RUNS)),$(if $(filter-out 1,$(k)),$(word $(shell expr $(k) - 1),$(NODE_RUNS))),$(call node_np,$(word $(k),$(NODE_RUNS))))))

# NODE_BIND as a file, rewritten only when it changes: a new rule fits the runs again
$(OUT)/node.bind: FORCE
	@mkdir -p $(@D); echo '$(NODE_BIND)' >$@.new; if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi
$(OUT)/node.params: $(OUT)/cluster.params $(NODE_RUNS) $(OUT)/node.bind $(CALIB) | tools
	$(CALIB) --yield --cores $(CORES) --cpu-bind $(NODE_BIND) -p $(OUT)/cluster.params -o $@ $(NODE_RUNS)

$(OUT)/cluster-node.params: $(OUT)/cluster.params $(OUT)/node.params
	cat $^ >$@

retrace:
	@rm -f $(RUN_DONE)
	@$(SUBMAKE) OUT=$(OUT)

# a new calib fits the same traces again (a binary whose content did not change keeps its time)
$(CALIB): tools ;
$(OUT)/cluster.params: $(RUN_DONE) $(CALIB)
	$(CALIB) $(CALIB_FLAGS) $(STATE_FLAGS) -o $@ $(FIT_DIRS) 2>$(OUT)/table.txt || { cat $(OUT)/table.txt; exit 1; }

$(OUT)/fit.%: $(RUN_DONE) $(OUT)/cluster.params | tools
	$(CALIB) -q $(CALIB_FLAGS) $(STATE_FLAGS) --plot $@ -o /dev/null $(FIT_DIRS)

# Two calibrations DELAY seconds apart; the fitted figures ("#@" lines of the
# parameter files, formats/calibration.md) compared at every size >= 64 bytes.
stability: | tools
	@rm -rf $(OUT)/stab1 $(OUT)/stab2
	@$(SUBMAKE) OUT=$(OUT)/stab1 $(OUT)/stab1/cluster.params
	sleep $(DELAY)
	@$(SUBMAKE) OUT=$(OUT)/stab2 $(OUT)/stab2/cluster.params
	@awk 'BEGIN { n = split("send_o recv_o net_L one_way measured copy reduce coll_copy recv_o_cross", name, " "); \
	              col["send_o"] = 3; col["recv_o"] = 4; col["net_L"] = 5; col["one_way"] = 6;  \
	              col["measured"] = 7; col["copy"] = 9; col["reduce"] = 10; col["coll_copy"] = 11; \
	              col["recv_o_cross"] = 12 } \
	  $$1 != "#@" || $$2 < 64 { next }                                                      \
	  FNR == NR { for (k = 1; k <= n; k++) a[$$2, name[k]] = $$col[name[k]]; next }         \
	  { for (k = 1; k <= n; k++) {                                                          \
	      t = name[k]; x = a[$$2, t]; y = $$col[t];                                         \
	      if (x == "" || x == "-" || y == "-") continue;                                    \
	      m = x > y ? x : y; d = x > y ? x - y : y - x; r = m > 0 ? d / m : 0;               \
	      if (!(t in best) || r > best[t]) { best[t] = r; at[t] = $$2; va[t] = x; vb[t] = y } } } \
	  END { print "term\tmax_rel_diff_pct\tsize_bytes\tfirst_us\tsecond_us";                \
	        for (k = 1; k <= n; k++) if (name[k] in best)                                   \
	          printf "%s\t%.2f\t%s\t%s\t%s\n", name[k], 100 * best[name[k]], at[name[k]], va[name[k]], vb[name[k]] }' \
	  $(OUT)/stab1/cluster.params $(OUT)/stab2/cluster.params >$(OUT)/stability.tsv
	@cat $(OUT)/stability.tsv

FORCE:
