# pipelines/validate.mk: how far ibsim's prediction is from the real run, for
# the sample MPI programs and a few third-party ones, at several rank counts.
#
#   make -f pipelines/validate.mk [BUILD=...] [BIN=...] [OUT=...] [NP="2 4 8"] \
#        [APPS="ring ..."] [NET=loggops] [TOPO=...] [PARAMS=cluster.params] ...
#
# For every application in APPS and every rank count in NP:
#   1. run it under allprof on this machine          $(OUT)/runs/APP-NP/trace/
#   2. trace2goal -p PARAMS, once per mode in MODES:
#        default   the plain conversion
#        sync      --durations --sync (each call's own duration replayed, the
#                  ranks' start and waiting taken from the clock-corrected trace)
#      then goalc to GOAL binary                      .../MODE.goalb
#   3. ibsim -p PARAMS --net NET [--topo TOPO]       .../MODE.sim.tsv
#      (sync: with --async-progress, since the replayed durations are time in
#      which the real MPI library progressed)
#   4. cmp-real (with --sync for the sync mode)       .../MODE.cmp.tsv
# and one table of all of them:
#   $(OUT)/deviation.tsv  app ranks mode real_ms, median/max/mean |deviation|
#                         over the ranks, worst rank; then per rank count and
#                         mode the median and largest |deviation| over all
#                         ranks of all applications
#   $(OUT)/deviation.md   the same as Markdown (printed at the end)
#   $(OUT)/deviation.png  a bar chart of the median |deviation| (with gnuplot)
#
# NODE turns the node model on for the runs with more ranks than CORES (default: this
# machine's cores), which oversubscribe them (docs/loggops-semantics.md section 8): the
# ibsim options of the host, e.g. NODE="--cores 2 --cpu-wait block --cpu-bind core" (ranks
# stay on their cores: docs/loggops-semantics.md section 8, "Bound ranks"). Such runs are then
# traced with `allprof --cpu-time`, converted in the default mode with `--calc $(NODE_CALC)`
# (NODE_CALC=cpu, the default: a gap is the rank's CPU time, not the wall time in which it
# also waited for a core; NODE_CALC=wall: the wall time, as without the node model), and
# simulated with NODE, `--ranks-per-host <ranks>` and the cpu_yield and cpu_wake that
# `pipelines/calibrate.mk node` measures with the calibration ($(OUT)/calibrate/node.params;
# NODE_PARAMS names another file). The sync mode keeps the clock and no node model. Empty
# (the default): every run is replayed as if each rank had a core.
#
# UNTRACED=N (default 0) also runs every program N more times with nothing traced between
# MPI_Init and MPI_Finalize (`allprof --span`, formats/trace.md 3.7), right after its traced
# run, and compares the default mode's prediction with the median of those runs: the table's
# mode `untraced`. That is the time a prediction is for; the traced run also holds the
# tracer's own work, which on shared cores delays the other ranks too. $(OUT)/untraced.tsv
# lists per run the untraced runs' longest rank (min, median, max, ms) beside the traced
# run's.
#
# PARAMS defaults to $(OUT)/calibrate/cluster.params, which
# pipelines/calibrate.mk measures first with exactly 2 ranks (one per core); STATE_REF=US
# (the network's undisturbed 0-byte round trip, e.g. the ref_us of crossnet.mk's state-shm)
# has it calibrate again while the machine was slowed and fit with calib --state-ref
# (calibrate.mk, formats/calibration.md "Machine state").
# Runs with more ranks than 2 oversubscribe the cores (MPIRUN_MANY).
#
# Rerunning redoes only what changed: a run is traced again when its command
# line (APP_CMD, MPIRUN), its program or allprof changed; a conversion when
# the trace, the parameters, MODE's flags or trace2goal changed; and so on.
# `make -f pipelines/validate.mk retrace` measures everything again.
# Everything runs one step at a time (.NOTPARALLEL): a run measured while
# another program competes for the cores would measure the competition.
#
# Applications: pipelines/apps.mk (the list this pipeline shares with
# pipelines/crossnet.mk); an application whose program is not installed is
# left out with a note. By default APPS is the samples and LAMMPS melt and
# peptide, HPCC and MUMPS, with apps.mk's inputs (every run 50 ms or more at 2
# ranks over shared memory; ARGS_<app> and MUMPS_GRID choose others: the tables
# of docs/validation.md before 2026-11-29 02:30 were measured with ring 10000
# 4096, collectives 200, persistent 20000, wildcard 1000, the other samples
# once and MUMPS_GRID=example); apps.mk's further programs (netpipe, meep, mpy,
# nwchem) run when named in APPS.

BUILD     ?= build
BIN       ?= bin
OUT       ?= validate-out
NP        ?= 2 4 8
APPS      ?= $(SAMPLE_APPS) $(EXTERNAL_APPS)
MODES     ?= default sync
NET       ?= loggops
TOPO      ?=
CAL_PARAMS := $(OUT)/calibrate/cluster.params
PARAMS    ?= $(CAL_PARAMS)
TOLERANCE ?= 5
T2G_FLAGS ?=
IBSIM_FLAGS ?=
NODE      ?=
CORES     ?= $(shell nproc)
NODE_PARAMS ?= $(OUT)/calibrate/node.params
NODE_CALC ?= cpu
# the rule NODE simulates, for the fit of cpu_yield and cpu_wake (calibrate.mk's NODE_BIND)
NODE_BIND := $(if $(or $(findstring --cpu-bind core,$(NODE)),$(findstring --cpu-bind=core,$(NODE))),core,none)
MPIRUN_2    ?= mpirun --bind-to core
MPIRUN_MANY ?= mpirun --oversubscribe --bind-to none
BUILD_TOOLS ?= yes
CAL_REPS  ?=
CAL_MAXBYTES ?=
UNTRACED  ?= 0


THIS     := $(lastword $(MAKEFILE_LIST))
.NOTPARALLEL:
.DELETE_ON_ERROR:
.SECONDEXPANSION:

include $(dir $(THIS))apps.mk

$(if $(shell [ "$(UNTRACED)" -ge 0 ] 2>/dev/null && echo y),,$(error invalid UNTRACED '$(UNTRACED)' (expected a whole number of runs)))
$(if $(filter-out 0,$(UNTRACED)),$(if $(filter default,$(MODES)),,$(error UNTRACED compares the default mode's prediction: MODES must hold default)))
$(foreach n,$(NP),$(if $(shell [ "$(n)" -ge 1 ] 2>/dev/null && echo y),,$(error invalid rank count '$(n)' in NP (expected whole numbers of at least 1))))
RUNS     := $(foreach a,$(RUN_APPS),$(foreach n,$(NP),$(a)-$(n)))
R        := $(OUT)/runs
TMODES   := $(MODES)$(if $(filter-out 0,$(UNTRACED)), untraced)
CMPS     := $(foreach r,$(RUNS),$(foreach m,$(TMODES),$(R)/$(r)/$(m).cmp.tsv))
# Files made by chains of pattern rules are kept (not intermediate). Not a bare
# .SECONDARY: that would make FORCE, which never exists, count as unchanged.
.SECONDARY: $(foreach r,$(RUNS),$(R)/$(r)/cmd $(R)/$(r)/trace/.done $(R)/$(r)/span/.done \
  $(foreach m,$(MODES),$(R)/$(r)/$(m).goalb $(R)/$(r)/$(m).sim.tsv)) \
  $(foreach m,$(MODES),$(OUT)/settings/t2g-$(m) $(OUT)/settings/ibsim-$(m))

app_of = $(patsubst %-$(lastword $(subst -, ,$(1))),%,$(1))
np_of  = $(lastword $(subst -, ,$(1)))
mpirun = $(if $(filter 1 2,$(1)),$(MPIRUN_2),$(MPIRUN_MANY)) -np $(1)
T2G_default :=
T2G_sync    := --durations --sync
CMP_default :=
CMP_sync    := --sync
# A --sync schedule replays each call's own duration as computation, time in which the real
# MPI library progressed: messages are handled when they arrive (ibsim --async-progress).
IBSIM_default :=
IBSIM_sync    := --async-progress
NETFLAGS = --net $(NET)$(if $(TOPO), --topo $(TOPO))
# the node model (NODE): for a run of more ranks than CORES; the mode's conversion and
# simulation flags (cpu_yield and cpu_wake are read from NODE_PARAMS when the simulation runs)
node_on   = $(if $(NODE),$(shell [ "$(1)" -gt "$(CORES)" ] && echo y))
AP_FLAGS  = $(if $(call node_on,$(1)),--cpu-time)
NODE_T2G  = $(if $(filter default,$(1)),$(if $(call node_on,$(2)),--calc $(NODE_CALC)))
NODE_SIM  = $(if $(filter default,$(1)),$(if $(call node_on,$(2)),$(NODE) --ranks-per-host $(2)))
NODE_DEP  = $(if $(NODE),$(if $(filter default,$(1)),$(NODE_PARAMS)))

GNUPLOT := $(shell command -v gnuplot 2>/dev/null)

.PHONY: all table tools retrace
all: table
	@cat $(OUT)/deviation.md
	@$(if $(MISSING),echo "not run (program not installed): $(MISSING)")
	@echo "outputs in $(OUT)/: deviation.tsv, deviation.md$(if $(GNUPLOT), deviation.png), runs/APP-NP/"

table: $(OUT)/deviation.tsv $(OUT)/deviation.md $(if $(GNUPLOT),$(OUT)/deviation.png) \
  $(if $(filter-out 0,$(UNTRACED)),$(OUT)/untraced.tsv)


# ---- tools and sample programs from the top-level build (BUILD_TOOLS=no: use
# ---- what is there); a file whose content did not change keeps its time, so
# ---- nothing downstream is redone.
tools:
ifneq ($(BUILD_TOOLS),no)
	@$(MAKE) -s --no-print-directory -f Makefile BUILD=$(BUILD) BIN=$(BIN) \
	  $(addprefix $(BIN)/,allprof trace2goal goalc ibsim cmp-real calib) $(BUILD)/allprof/liballprof.so \
	  $(filter-out $(BUILD)/samples/fsample,$(addprefix $(BUILD)/samples/,$(filter $(SAMPLE_APPS),$(APPS)))) \
	  $(if $(SRC_fsample),$(if $(filter fsample,$(APPS)),$(BUILD)/samples/fsample)) >/dev/null
endif
$(TOOLS) $(AP_SO) $(addprefix $(SAMPLES)/,$(SAMPLE_APPS)): tools ;

# ---- calibration (2 ranks), unless PARAMS names a file
ifeq ($(PARAMS),$(CAL_PARAMS))
$(CAL_PARAMS): FORCE | tools
	@$(MAKE) -s --no-print-directory -f pipelines/calibrate.mk BUILD=$(BUILD) BIN=$(BIN) OUT=$(OUT)/calibrate \
	  BUILD_TOOLS=$(BUILD_TOOLS) $(if $(CAL_REPS),REPS=$(CAL_REPS)) $(if $(CAL_MAXBYTES),MAXBYTES=$(CAL_MAXBYTES)) \
	  $(if $(STATE_REF),STATE_REF=$(STATE_REF)) $(OUT)/calibrate/cluster.params
endif
# ---- the node model's cpu_yield and cpu_wake (NODE), unless NODE_PARAMS names a file
ifneq ($(NODE),)
ifeq ($(NODE_PARAMS),$(OUT)/calibrate/node.params)
$(NODE_PARAMS): $(PARAMS) FORCE | tools
	@$(MAKE) -s --no-print-directory -f pipelines/calibrate.mk BUILD=$(BUILD) BIN=$(BIN) OUT=$(OUT)/calibrate \
	  BUILD_TOOLS=$(BUILD_TOOLS) CORES=$(CORES) NODE_BIND=$(NODE_BIND) $(OUT)/calibrate/node.params
endif
endif

# ---- settings as files, rewritten only when they change: what a step depends on
# (each rule sets STAMP, the text; commas and quotes are fine there)
stamp = @mkdir -p $(@D); printf '%s\n' '$(subst ','\'',$(STAMP))' > $@.new; \
  if cmp -s $@.new $@; then rm -f $@.new; else mv $@.new $@; fi
F := $(OUT)/settings
$(F)/t2g-%: STAMP = trace2goal -q $(T2G_$*) $(T2G_FLAGS) -p $(abspath $(PARAMS)) / node: $(NODE) $(CORES) $(NODE_CALC)
$(F)/ibsim-%: STAMP = ibsim -q -p $(abspath $(PARAMS)) $(NETFLAGS) $(IBSIM_$*) $(IBSIM_FLAGS) / node: $(NODE) $(CORES)
$(F)/cmp: STAMP = cmp-real -t $(TOLERANCE)
$(F)/table: STAMP = $(TMODES) / $(RUNS) / $(MISSING)
$(F)/span: STAMP = $(UNTRACED)
$(R)/%/cmd: STAMP = setup: $(call SETUP_$(call app_of,$*),$(call np_of,$*)) / run: \
  $(call mpirun,$(call np_of,$*)) $(CMD_$(call app_of,$*)) / allprof $(call AP_FLAGS,$(call np_of,$*))
$(F)/t2g-%: FORCE
	$(stamp)
$(F)/ibsim-%: FORCE
	$(stamp)
$(F)/cmp $(F)/table $(F)/span: FORCE
	$(stamp)
$(R)/%/cmd: FORCE
	$(stamp)

# ---- 1. trace (into trace.tmp, renamed when complete). The tracer library
# ---- matters, not the launcher bin/allprof (relinked whenever lib/ changes).
$(R)/%/trace/.done: $(R)/%/cmd $(AP_SO) $$(PROG_$$(call app_of,$$*)) | $(ABIN)/allprof
	@echo "== trace $* ($(call np_of,$*) ranks)"
	@rm -rf $(R)/$*/work $(R)/$*/trace.tmp && mkdir -p $(R)/$*/work
	@cd $(R)/$*/work && { $(or $(call SETUP_$(call app_of,$*),$(call np_of,$*)),:); } && \
	  $(ABIN)/allprof -q $(call AP_FLAGS,$(call np_of,$*)) -o ../trace.tmp -- $(call mpirun,$(call np_of,$*)) $(CMD_$(call app_of,$*)) \
	    >../app.out 2>../app.err || { echo "$*: the traced run failed:" >&2; tail -n 20 ../app.err >&2; exit 1; }
	@rm -rf $(R)/$*/trace && mv $(R)/$*/trace.tmp $(R)/$*/trace && touch $@

# ---- 1b. UNTRACED runs of the same command with allprof --span (span/1 ... span/N; the
# ---- file span/median names the run whose longest rank is the median, the lower of the
# ---- two middle ones for an even N)
longest = awk -F: '/^MPI_Init/ { a = $$NF ~ /^c/ ? $$(NF - 1) : $$NF } /^MPI_Finalize:/ { d = $$2 - a; if (d > m) m = d } END { printf "%.3f\n", m / 1000 }'
$(R)/%/span/.done: $(R)/%/cmd $(F)/span $(AP_SO) $$(PROG_$$(call app_of,$$*)) | $(ABIN)/allprof
	@echo "== untraced $* ($(call np_of,$*) ranks, $(UNTRACED) runs)"
	@rm -rf $(R)/$*/span $(R)/$*/span.tmp && mkdir -p $(R)/$*/span.tmp
	@for span_k in $$(seq 1 $(UNTRACED)); do \
	  rm -rf $(R)/$*/work && mkdir -p $(R)/$*/work && \
	  ( cd $(R)/$*/work && { $(or $(call SETUP_$(call app_of,$*),$(call np_of,$*)),:); } && \
	    $(ABIN)/allprof -q --span -o ../span.tmp/$$span_k -- $(call mpirun,$(call np_of,$*)) $(CMD_$(call app_of,$*)) \
	      >../span.out 2>../span.err ) || { echo "$*: untraced run $$span_k failed:" >&2; tail -n 20 $(R)/$*/span.err >&2; exit 1; }; \
	  printf '%s\t%s\n' $$span_k "$$(cat $(R)/$*/span.tmp/$$span_k/rank-*.trace | $(longest))" >> $(R)/$*/span.tmp/times; \
	done
	@sort -t'	' -k2,2g $(R)/$*/span.tmp/times | awk -v n=$(UNTRACED) 'NR == int((n + 1) / 2) { print $$1 }' > $(R)/$*/span.tmp/median
	@mv $(R)/$*/span.tmp $(R)/$*/span && touch $@

$(R)/%/untraced.cmp.tsv: $(R)/%/default.sim.tsv $(R)/%/span/.done $(F)/cmp $(ABIN)/cmp-real
	@$(ABIN)/cmp-real -t $(TOLERANCE) -f tsv $(R)/$*/span/$$(cat $(R)/$*/span/median) $< > $@; test $$? -le 1

$(OUT)/untraced.tsv: $(foreach r,$(RUNS),$(R)/$(r)/span/.done $(R)/$(r)/trace/.done)
	@{ printf 'app\tranks\truns\tuntraced_min_ms\tuntraced_median_ms\tuntraced_max_ms\ttraced_ms\n'; \
	  for r in $(RUNS); do \
	    t=$$(cat $(R)/$$r/trace/rank-*.trace | $(longest)); \
	    sort -t'	' -k2,2g $(R)/$$r/span/times | awk -F'\t' -v r=$$r -v t=$$t -v n=$(UNTRACED) \
	      '{ v[NR] = $$2 } END { a = r; sub(/-[0-9]+$$/, "", a); np = substr(r, length(a) + 2); \
	        printf "%s\t%s\t%d\t%s\t%s\t%s\t%s\n", a, np, NR, v[1], v[int((n + 1) / 2)], v[NR], t }'; \
	  done; } > $@.tmp && mv $@.tmp $@

# ---- 2. convert and compile, 3. simulate, 4. compare
define mode_rules
$(R)/%/$(1).goalb: $(R)/%/trace/.done $(F)/t2g-$(1) $(PARAMS) $(ABIN)/trace2goal $(ABIN)/goalc
	@echo "== trace2goal $$* $(1)"
	@p=$$$$(sed -n 's/^poll *= *\([^ #]*\).*/\1/p' $(PARAMS)) && \
	  $(ABIN)/trace2goal -q $(T2G_$(1)) $(T2G_FLAGS) $$(call NODE_T2G,$(1),$$(call np_of,$$*)) -p $(PARAMS) $$$${p:+--poll-from $$$$p --poll-to $$$$p} \
	    -o $(R)/$$*/$(1).goal.zst $(R)/$$*/trace
	@$(ABIN)/goalc -o $$@ $(R)/$$*/$(1).goal.zst

$(R)/%/$(1).sim.tsv: $(R)/%/$(1).goalb $(F)/ibsim-$(1) $(PARAMS) $(ABIN)/ibsim $(call NODE_DEP,$(1))
	@echo "== ibsim $$* $(1)"
	@$$(if $$(call NODE_SIM,$(1),$$(call np_of,$$*)),y=$$$$(sed -n 's/^cpu_yield *= *\([^ #]*\).*/\1/p' $(NODE_PARAMS)) && \
	  w=$$$$(sed -n 's/^cpu_wake *= *\([^ #]*\).*/\1/p' $(NODE_PARAMS)) && ,)\
	  $(ABIN)/ibsim -q -p $(PARAMS) $(NETFLAGS) $(IBSIM_$(1)) $(IBSIM_FLAGS) \
	    $$(call NODE_SIM,$(1),$$(call np_of,$$*))$$(if $$(call NODE_SIM,$(1),$$(call np_of,$$*)), $$$${y:+--cpu-yield $$$$y} $$$${w:+--cpu-wake $$$$w}) \
	    $$< > $$@ 2> $(R)/$$*/$(1).ibsim.log || \
	  { cat $(R)/$$*/$(1).ibsim.log >&2; exit 1; }

# cmp-real says 1 when some rank is outside the tolerance: that is a result, not a failure
$(R)/%/$(1).cmp.tsv: $(R)/%/$(1).sim.tsv $(R)/%/trace/.done $(F)/cmp $(ABIN)/cmp-real
	@$(ABIN)/cmp-real $(CMP_$(1)) -t $(TOLERANCE) -f tsv $(R)/$$*/trace $$< > $$@; test $$$$? -le 1
endef
$(foreach m,$(MODES),$(eval $(call mode_rules,$(m))))

# ---- the table: one row per run and mode, then the summaries per rank count and mode
$(OUT)/deviation.tsv: $(CMPS) $(F)/table pipelines/validate-table.sh
	@mkdir -p $(@D)
	@sh pipelines/validate-table.sh $(R) "$(TMODES)" $(RUNS) > $@.tmp
	@$(if $(MISSING),echo "# not run (program not installed): $(MISSING)" >> $@.tmp)
	@mv $@.tmp $@

$(OUT)/deviation.md: $(OUT)/deviation.tsv
	@awk -F'\t' 'NR == 1 { print "| app | ranks | mode | real (ms) | median \\|dev\\| % | max \\|dev\\| % | mean \\|dev\\| % | worst rank |"; \
	    print "|---|---:|---|---:|---:|---:|---:|---:|"; next } \
	  /^#/ { sub(/^# /, ""); foot = foot "- " $$0 "\n"; next } \
	  { printf "| %s | %s | %s | %s | %s | %s | %s | %s |\n", $$1, $$2, $$3, $$4, $$5, $$6, $$7, $$8 } \
	  END { printf "\n%s", foot }' $< > $@.tmp && mv $@.tmp $@

$(OUT)/deviation.png: $(OUT)/deviation.tsv
	@awk -F'\t' 'NR > 1 && !/^#/ { k = $$1 "-" $$2; if (!(k in seen)) { seen[k] = ++n; key[n] = k } \
	    val[k, $$3] = $$5 } END { printf "run"; split("$(TMODES)", ms, " "); for (j = 1; j in ms; j++) printf "\t%s", ms[j]; \
	    print ""; for (i = 1; i <= n; i++) { printf "%s", key[i]; for (j = 1; j in ms; j++) printf "\t%s", \
	    ((key[i], ms[j]) in val) ? val[key[i], ms[j]] : "NaN"; print "" } }' $< > $(OUT)/deviation.dat
	@gnuplot -e "set terminal pngcairo size 1400,600; set output '$@.tmp'; \
	  set title 'median |deviation| of the simulated from the real run time ($(NET))'; \
	  set ylabel '|deviation| (%)'; set style data histograms; set style histogram clustered gap 1; \
	  set style fill solid 0.8 border -1; set xtics rotate by -45 font ',9'; set key top left; set grid ytics; \
	  set datafile separator '\t'; set yrange [0:*]; \
	  plot for [i=2:$(words $(TMODES))+1] '$(OUT)/deviation.dat' using i:xtic(1) title columnheader(i)" && \
	  mv $@.tmp $@

retrace:
	@rm -f $(foreach r,$(RUNS),$(R)/$(r)/trace/.done $(R)/$(r)/span/.done)
	@$(MAKE) -f $(THIS) BUILD=$(BUILD) BIN=$(BIN) OUT=$(OUT)

FORCE:
