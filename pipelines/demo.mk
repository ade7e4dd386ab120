# pipelines/demo.mk: the whole workflow on this machine, what `make demo` runs.
#
#   make -f pipelines/demo.mk [BIN=bin] [BUILD=build] [OUT=demo-out] [NPS=2] [APPS=...]
#
# Stages (each prints a progress line with its time):
#   1 calibration   pipelines/calibrate.mk: netcal (ping-pong, late receiver, copies, reductions) under allprof, calib fits
#                   o/O per protocol for --net loggops; calib again on the same
#                   traces for --net ib over $(TOPO)
#   2 tracing       every application of APPS at every rank count of NPS under
#                   allprof (the samples of samples/apps/ and LAMMPS's in.melt)
#   3 replay        trace2goal -p | goalc (binary, --stats, --matrix), ibsim on
#                   --net loggops and on --net ib --topo $(TOPO) with the
#                   calibrated parameters, cmp-real against the real run
#   4 thesis        the thesis's own ltest traces (samples/ltest/) replayed with
#                   its cluster's parameters (pipelines/thesis-cluster.params)
#   5 pattern       LAMMPS (ring without it) on $(PATTERN_NP) ranks
#                   (oversubscribed: its communication pattern, not its times)
#                   for the traffic matrix, the message sizes and the link
#                   utilisation of $(TOPO)
#   6 schedules     sample and goalgen schedules: compile, round trip, stats, simulate
#   7 plots         gnuplot, PNG and SVG, into $(OUT)/plots/
#   8 cross-network pipelines/crossnet.mk on CROSS_APPS, CROSS_N runs each:
#                   traced on shared memory, predicted for TCP over loopback,
#                   against the median of TCP's runs ($(OUT)/crossnet/;
#                   CROSS_VARS passes settings to it, e.g. CAL_REPS=5)
# It ends with the deviation table ($(OUT)/deviation.tsv) and the plot paths.
#
# Everything goes to $(OUT); rerunning redoes only what changed (delete a
# directory under $(OUT)/apps/ to trace that run again). Without mpirun (or
# with MPI=no) stages 1, 2 and 5 are skipped and the default LogGOPS
# parameters are used; without gnuplot (or PLOTS=no) no plots are drawn;
# without lmp (package lammps, lammps-examples) LAMMPS is left out.

BIN     ?= $(CURDIR)/bin
BUILD   ?= build
OUT     ?= demo-out
NPS     ?= 2
APPS    ?= ring collectives nonblock persistent datatypes wildcard fsample lammps
TOPO    ?= fattree2:4
GEN_NP  ?= 16
PATTERN_NP ?= 8
REPS    ?= 20
MAXBYTES ?= 1048576
MPI     ?= $(if $(shell command -v mpirun 2>/dev/null),yes,no)
PLOTS   ?= $(if $(shell command -v gnuplot 2>/dev/null),yes,no)
MELT    ?= /usr/share/lammps/examples/melt/in.melt
LAMMPS  ?= $(if $(and $(shell command -v lmp 2>/dev/null),$(wildcard $(MELT))),yes,no)
CROSS_APPS ?= ring collectives $(if $(filter yes,$(LAMMPS)),lammps-melt)
CROSS_N ?= 3
CROSS_VARS ?= CAL_REPS=$(REPS) CAL_MAXBYTES=$(MAXBYTES)

# Open MPI refuses to run as root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

B        := $(abspath $(BIN))
O        := $(abspath $(OUT))
SAMPLES  := $(abspath $(BUILD))/samples
ALLPROF  := $(B)/allprof
T2G      := $(B)/trace2goal
GOALC    := $(B)/goalc
GOALGEN  := $(B)/goalgen
IBSIM    := $(B)/ibsim
CALIB    := $(B)/calib
CMPREAL  := $(B)/cmp-real
PLOT     := pipelines/plot
SELF     := $(firstword $(MAKEFILE_LIST))
CORES    := $(shell nproc 2>/dev/null || echo 1)

# How each application runs (a name without '-'); fsample needs mpif90.
CMD_ring        := $(SAMPLES)/ring 200 4096
CMD_collectives := $(SAMPLES)/collectives
CMD_nonblock    := $(SAMPLES)/nonblock
CMD_persistent  := $(SAMPLES)/persistent 200
CMD_datatypes   := $(SAMPLES)/datatypes
CMD_wildcard    := $(SAMPLES)/wildcard
CMD_fsample     := $(SAMPLES)/fsample
CMD_lammps      := lmp -in $(MELT) -log none -screen none

# mpirun for N ranks: one per core when they fit, else oversubscribed.
mpirun_for = mpirun $(if $(shell [ $(1) -le $(CORES) ] && echo y),--bind-to core,--oversubscribe) -np $(1)

HAVE_APPS := $(if $(filter no,$(LAMMPS)),$(filter-out lammps,$(APPS)),$(APPS))
HAVE_APPS := $(if $(wildcard $(SAMPLES)/fsample),$(HAVE_APPS),$(filter-out fsample,$(HAVE_APPS)))
RUNS      := $(if $(filter yes,$(MPI)),$(foreach a,$(HAVE_APPS),$(foreach n,$(NPS),$(a)-$(n))))
TIMELINE_RUN := $(firstword $(filter lammps-%,$(RUNS)) $(RUNS))
PATTERN_APP := $(if $(filter yes,$(LAMMPS)),lammps,ring)
PATTERN   := $(if $(filter yes,$(MPI)),$(PATTERN_APP)-$(PATTERN_NP))
PATTERN_TITLE = $(if $(filter lammps,$(PATTERN_APP)),LAMMPS in.melt,ring)$(comma) $(PATTERN_NP) ranks

# Parameter files of the two networks: calibrated, or ibsim's defaults.
ifeq ($(MPI),yes)
PARAMS_LG := $(O)/calib/loggops.params
PARAMS_IB := $(O)/calib/ib.params
else
PARAMS_LG := $(O)/calib/default.params
PARAMS_IB := $(O)/calib/default.params
endif

SCHED_SAMPLES := $(wildcard samples/schedules/*.goal)
GENERATED := dissemination bcast allreduce ring
SCHEDS    := $(patsubst samples/schedules/%.goal,$(O)/sched/%,$(SCHED_SAMPLES)) \
             $(addprefix $(O)/sched/gen-,$(GENERATED))

PLOT_NAMES := $(if $(filter yes,$(MPI)),fit) deviation \
              $(if $(PATTERN),matrix sizes links)
PLOT_FILES := $(foreach p,$(PLOT_NAMES),$(O)/plots/$(p).png $(O)/plots/$(p).svg)

# stage NUMBER TITLE TARGET: run one stage with a progress line and its time.
define stage
	@s=$$(date +%s); echo "demo [$(1)/8] $(2)"; \
	$(MAKE) -s --no-print-directory -f $(SELF) $(3) || exit 1; \
	echo "demo [$(1)/8] done in $$(( $$(date +%s) - s )) s"
endef

.PHONY: all calib traces replay thesis pattern schedules plots crossnet report
# Every file of a run, named here so that none is an intermediate file that
# make would delete (and then redo on the next run) or fail to redo when missing.
.PHONY: files
.DEFAULT_GOAL := all
files: $(foreach r,$(RUNS) $(PATTERN),$(addprefix $(O)/apps/$(r)/,traced app.goalb loggops.tsv ib.tsv cmp.tsv row.tsv)) \
       $(addsuffix .goal,$(SCHEDS)) $(addsuffix .goalb,$(SCHEDS))
.DELETE_ON_ERROR:
all:
	$(call stage,1,calibration: netcal under allprof$(comma) calib for loggops and ib,calib)
	$(call stage,2,tracing $(words $(RUNS)) runs: $(RUNS),traces)
	$(call stage,3,replay: trace2goal$(comma) goalc$(comma) ibsim loggops and ib $(TOPO)$(comma) cmp-real,replay)
	$(call stage,4,the thesis's ltest traces: real vs simulated,thesis)
	$(call stage,5,communication pattern of $(or $(PATTERN),(skipped: needs mpirun)),pattern)
	$(call stage,6,schedules: goalc round trip$(comma) stats$(comma) ibsim,schedules)
	$(call stage,7,plots ($(if $(filter yes,$(PLOTS)),gnuplot,skipped: gnuplot not installed)),plots)
	$(call stage,8,cross-network: traced on shm$(comma) predicted for TCP ($(if $(filter yes,$(MPI)),$(CROSS_APPS)$(comma) $(CROSS_N) runs each,skipped: needs mpirun)),crossnet)
	@$(MAKE) -s --no-print-directory -f $(SELF) report
comma := ,

# ---- 1 calibration ----------------------------------------------------------
ifeq ($(MPI),yes)
calib: $(PARAMS_LG) $(PARAMS_IB)
	@sed 's/^calib: */   /' $(O)/calib/table.txt | tail -4
else
calib: $(PARAMS_LG)
	@echo "   mpirun not found (or MPI=no): ibsim's default parameters, no real runs"
endif

$(O)/calib/cluster.params:
	@$(MAKE) -s --no-print-directory -f pipelines/calibrate.mk BUILD=$(BUILD) BIN=$(B) OUT=$(O)/calib BUILD_TOOLS=no \
	  REPS=$(REPS) MAXBYTES=$(MAXBYTES) $@ >/dev/null

# ibsim does not take the pinning keys (trace2goal does): leave them out.
$(O)/calib/loggops.params: $(O)/calib/cluster.params
	@grep -v '^pin_' $< > $@

$(O)/calib/ib.params: $(O)/calib/cluster.params
	@$(CALIB) -q --net ib --topo $(TOPO) -o $@.all $(O)/calib/pp
	@grep -v '^pin_' $@.all > $@ && rm -f $@.all

$(O)/calib/default.params:
	@mkdir -p $(@D)
	@echo "# ibsim's default parameters (no calibration: mpirun missing)" > $@

# ---- 2 tracing --------------------------------------------------------------
traces: $(addsuffix /traced,$(addprefix $(O)/apps/,$(RUNS)))

# $* is APP-NP. LAMMPS writes into its working directory: run in the run's own.
$(O)/apps/%/traced:
	@rm -rf $(@D) && mkdir -p $(@D)
	@echo "   allprof $*"
	@cd $(@D) && $(ALLPROF) -q -o traces -- \
	  $(call mpirun_for,$(lastword $(subst -, ,$*))) $(CMD_$(firstword $(subst -, ,$*))) \
	  > run.out 2> run.err || { cat run.err >&2; exit 1; }
	@touch $@

# ---- 3 replay ---------------------------------------------------------------
replay: $(addsuffix /row.tsv,$(addprefix $(O)/apps/,$(RUNS))) \
        $(if $(TIMELINE_RUN),$(O)/apps/$(TIMELINE_RUN)/ib.timeline.json)

$(O)/apps/%/app.goalb: $(O)/apps/%/traced $(O)/calib/cluster.params
	@$(T2G) -q -p $(O)/calib/cluster.params $(@D)/traces | $(GOALC) -q -o $@ --matrix $(@D)/matrix.tsv
	@$(GOALC) -q --stats -o $(@D)/stats.txt $@

$(O)/apps/%/loggops.tsv: $(O)/apps/%/app.goalb $(PARAMS_LG)
	@$(IBSIM) -q -p $(PARAMS_LG) --net loggops $< > $@.tmp && mv $@.tmp $@

$(O)/apps/%/ib.tsv: $(O)/apps/%/app.goalb $(PARAMS_IB)
	@$(IBSIM) -q -p $(PARAMS_IB) --net ib --topo $(TOPO) --linkstats $(@D)/links.tsv \
	  $< > $@.tmp 2> $(@D)/ib.err || { cat $(@D)/ib.err >&2; exit 1; }
	@mv $@.tmp $@

# The Perfetto timeline of one run (they grow to tens of MB: only TIMELINE_RUN's).
$(O)/apps/%/ib.timeline.json: $(O)/apps/%/app.goalb $(PARAMS_IB)
	@$(IBSIM) -q -p $(PARAMS_IB) --net ib --topo $(TOPO) --timeline $@ $< > /dev/null

# cmp-real exits 1 when a rank is outside the tolerance: that is a result, not a failure.
$(O)/apps/%/cmp.tsv: $(O)/apps/%/loggops.tsv $(O)/apps/%/ib.tsv
	@$(CMPREAL) -f tsv $(@D)/traces $^ > $@.tmp; test $$? -le 1 && mv $@.tmp $@
	@$(CMPREAL) $(@D)/traces $^ > $(@D)/cmp.txt; test $$? -le 1

# one row of the deviation table (formats: see deviation.tsv's header)
$(O)/apps/%/row.tsv: $(O)/apps/%/cmp.tsv
	@awk -v app='$(firstword $(subst -, ,$*))' -f $(PLOT)/row.awk $< > $@
	@printf '   %-16s %s\n' $* "$$(awk -F'\t' '{printf "real %.0f us, loggops %+.1f%%, ib %+.1f%%", $$3, $$5, $$8}' $@)"

# ---- 4 the thesis's ltest ---------------------------------------------------
thesis: $(O)/ltest/row.tsv
	@sed 's/^/   /' $(O)/ltest/cmp.txt

$(O)/ltest/app.goalb: samples/ltest/pmpi-trace-rank-0.txt samples/ltest/pmpi-trace-rank-1.txt
	@mkdir -p $(@D)
	@$(T2G) -q --pin 166us,3ns samples/ltest | $(GOALC) -q -o $@ --matrix $(@D)/matrix.tsv

$(O)/ltest/loggops.tsv: $(O)/ltest/app.goalb pipelines/thesis-cluster.params
	@$(IBSIM) -q -p pipelines/thesis-cluster.params $< > $@

$(O)/ltest/ib.tsv: $(O)/ltest/app.goalb pipelines/thesis-cluster.params
	@$(IBSIM) -q -p pipelines/thesis-cluster.params --net ib --topo $(TOPO) --link 4xDDR $< > $@

$(O)/ltest/cmp.tsv: $(O)/ltest/loggops.tsv $(O)/ltest/ib.tsv
	@$(CMPREAL) -f tsv samples/ltest $^ > $@.tmp; test $$? -le 1 && mv $@.tmp $@
	@$(CMPREAL) samples/ltest $^ > $(@D)/cmp.txt; test $$? -le 1

$(O)/ltest/row.tsv: $(O)/ltest/cmp.tsv
	@awk -v app=ltest-thesis -f $(PLOT)/row.awk $< > $@

# ---- 5 communication pattern -----------------------------------------------
ifneq ($(PATTERN),)
pattern: $(O)/apps/$(PATTERN)/ib.tsv
	@sed -n '/^ranks/p;/^ops/p;/^bytes sent/p' $(O)/apps/$(PATTERN)/stats.txt | sed 's/^/   /'
	@sed -n '/^# total/s/^# /   messages: /p' $(O)/apps/$(PATTERN)/matrix.tsv
else
pattern:
	@echo "   skipped: needs mpirun"
endif

# ---- 6 schedules ------------------------------------------------------------
schedules: $(addsuffix .sim.tsv,$(SCHEDS))
	@printf '   %-28s %6s %22s\n' schedule ranks "last rank ends (ps)"
	@for s in $(SCHEDS); do \
	  printf '   %-28s %6s %22s\n' $$(basename $$s) $$(grep -c '^[0-9]' $$s.sim.tsv) \
	    $$(awk '!/^#/ && $$1 ~ /^[0-9]+$$/ && $$2 > m {m = $$2} END {printf "%.0f\n", m}' $$s.sim.tsv); \
	done

$(O)/sched/%.goal: samples/schedules/%.goal
	@mkdir -p $(@D)
	@cp $< $@
$(O)/sched/gen-dissemination.goal:
	@mkdir -p $(@D)
	@$(GOALGEN) dissemination $(GEN_NP) --size 180 -o $@
$(O)/sched/gen-bcast.goal:
	@mkdir -p $(@D)
	@$(GOALGEN) bcast $(GEN_NP) --size 64K --root 0 -o $@
$(O)/sched/gen-allreduce.goal:
	@mkdir -p $(@D)
	@$(GOALGEN) allreduce $(GEN_NP) --size 8K --calc 10us -o $@
$(O)/sched/gen-ring.goal:
	@mkdir -p $(@D)
	@$(GOALGEN) ring $(GEN_NP) --steps 100 --size 1K --calc 1us -o $@

# compile, check the canonical round trip, statistics
$(O)/sched/%.goalb: $(O)/sched/%.goal
	@$(GOALC) -q -o $@ $<
	@$(GOALC) -q -d $@ | $(GOALC) -q -o $@.again -
	@cmp -s $@ $@.again || { echo "round trip of $* changed the binary" >&2; exit 1; }
	@rm -f $@.again
	@$(GOALC) -q --stats --matrix $(O)/sched/$*.matrix.tsv -o $(O)/sched/$*.stats $@

$(O)/sched/%.sim.tsv: $(O)/sched/%.goalb
	@$(IBSIM) -q $< > $@

# ---- 7 plots ----------------------------------------------------------------
ifeq ($(PLOTS),yes)
plots: $(PLOT_FILES)
else
plots:
	@echo "   gnuplot not found (package gnuplot-nox): no plots"
endif

GP = gnuplot -e "in='$(1)'; out='$@'; $(2)" $(PLOT)/$(3).gp

$(O)/plots/fit.%: $(O)/calib/cluster.params
	@mkdir -p $(@D)
	@$(CALIB) -q --plot $@ -o /dev/null $(O)/calib/pp
$(O)/plots/deviation.%: $(O)/deviation.tsv $(PLOT)/deviation.gp
	@mkdir -p $(@D)
	@$(call GP,$<,,deviation)
$(O)/plots/matrix.%: $(O)/apps/$(PATTERN)/app.goalb $(PLOT)/matrix.gp
	@mkdir -p $(@D)
	@$(call GP,$(O)/apps/$(PATTERN)/matrix.tsv,name='$(PATTERN_TITLE)',matrix)
$(O)/plots/sizes.%: $(O)/apps/$(PATTERN)/app.goalb $(PLOT)/sizes.gp
	@mkdir -p $(@D)
	@$(call GP,$(O)/apps/$(PATTERN)/matrix.tsv,name='$(PATTERN_TITLE)',sizes)
$(O)/plots/links.%: $(O)/apps/$(PATTERN)/ib.tsv $(PLOT)/links.gp
	@mkdir -p $(@D)
	@$(call GP,$(O)/apps/$(PATTERN)/links.tsv,span=$$(awk '!/^#/ && $$1 ~ /^[0-9]+$$/ && $$2 > m {m = $$2} END {printf "%.0f\n", m}' $<); name='$(PATTERN_TITLE) on $(TOPO)',links)

# ---- 8 cross-network ------------------------------------------------------
ifeq ($(MPI),yes)
crossnet:
	@$(MAKE) -s --no-print-directory -f pipelines/crossnet.mk BUILD=$(BUILD) BIN=$(B) BUILD_TOOLS=no \
	  OUT=$(O)/crossnet A=shm B=tcp NP=2 N=$(CROSS_N) APPS="$(CROSS_APPS)" $(CROSS_VARS) table >/dev/null
	@echo "   traced on shm, predicted for TCP (real: median of $(CROSS_N) runs; |dev| from TCP's median)"
	@awk -F'\t' 'NR == 1 { printf "   %-14s %10s %10s %8s %8s %10s %8s %10s %8s\n", "app", "shm_ms", "tcp_ms", \
	    "spread_%", "naive_%", "default_ms", "|dev|_%", "sync_ms", "|dev|_%"; next } /^#/ { next } \
	  { printf "   %-14s %10.3f %10.3f %8.2f %8.2f %10.3f %8.2f %10.3f %8.2f\n", $$1, $$3, $$5, $$6, $$7, $$8, $$9, $$11, $$12 }' \
	  $(O)/crossnet/crossnet.tsv
	@echo "   table: $(O)/crossnet/crossnet.md"
else
crossnet:
	@echo "   skipped: needs mpirun"
endif

# ---- the deviation table and the report -----------------------------------
ROWS := $(addsuffix /row.tsv,$(addprefix $(O)/apps/,$(RUNS))) $(O)/ltest/row.tsv
$(O)/deviation.tsv: $(ROWS)
	@printf 'app\tranks\treal_us\tloggops_us\tloggops_dev_pct\tloggops_worst_pct\tib_us\tib_dev_pct\tib_worst_pct\n' > $@.tmp
	@cat $^ >> $@.tmp && mv $@.tmp $@

report: $(O)/deviation.tsv
	@echo
	@echo "== deviation: simulated vs real, slowest rank (worst: largest |deviation| of any rank)"
	@echo "   loggops: calibrated LogGOPS parameters; ib: InfiniBand model on $(TOPO) (4x DDR)"
	@awk -F'\t' 'NR == 1 {printf "%-14s %5s %12s %12s %8s %8s %12s %8s %8s\n", "app", "ranks", "real_us", "loggops_us", "dev_%", "worst_%", "ib_us", "dev_%", "worst_%"; next} \
	  {printf "%-14s %5s %12.1f %12.1f %+8.2f %8.2f %12.1f %+8.2f %8.2f\n", $$1, $$2, $$3, $$4, $$5, $$6, $$7, $$8, $$9}' $<
	@echo
	@echo "table: $(O)/deviation.tsv; per run: $(O)/apps/<app>-<ranks>/ (traces, app.goalb, cmp.txt, ...)"
	@$(if $(filter yes,$(PLOTS)),echo "plots:"; for f in $(PLOT_FILES); do echo "  $$f"; done)
	@$(if $(TIMELINE_RUN),echo "timeline (open in https://ui.perfetto.dev): $(O)/apps/$(TIMELINE_RUN)/ib.timeline.json")
