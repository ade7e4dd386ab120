# pipelines/crossnet.mk: how well a program traced on one network predicts
# its run time on another it was not traced on.
#
#   make -f pipelines/crossnet.mk [A=shm] [B=tcp] [N=5] [APPS="ring ..."] [NP=2] \
#        [OUT=crossnet-out] [BUILD=...] [BIN=...] [CAL_REPS=...] [CAL_MAXBYTES=...] ...
#
# Networks are named Open MPI settings, MCA_<name>:
#   MCA_shm = --mca btl vader,self                                (shared memory)
#   MCA_tcp = --mca btl tcp,self --mca btl_tcp_if_include lo      (TCP over loopback)
# On this machine the two differ 20-50x in latency. Add a network by naming
# its settings, e.g. on an InfiniBand cluster
#   make -f pipelines/crossnet.mk MCA_ucx="--mca pml ucx" B=ucx
# A is the network programs are traced on, B the one predicted.
#
# Steps:
#   1. calibrate A and B: pipelines/calibrate.mk with MPIRUN="$(MPIRUN) -np 2
#      MCA_<net>" into $(OUT)/cal-<net>/cluster.params (with STATE=yes after the
#      runs of step 2, again while it is made on a slowed machine; CAL_REPS and
#      CAL_MAXBYTES pass REPS and MAXBYTES to it, CAL_VARS any further
#      settings, e.g. CAL_VARS="BUDGET=10" or "PROGRAM=pingpong")
#   2. trace every application of APPS on A and on B, N runs each (N >= 2),
#      interleaved: run 1 on A, run 1 on B, run 2 on A, ... so that a slow
#      drift of the machine hits both networks alike
#                                   $(OUT)/runs/APP/<net>-<i>/trace/
#   3. the runs of each network: cmp-real --sync --run ... (no results): the
#      median run by run time (the longest rank's end, from the earliest
#      MPI_Init return), each run time's median and spread
#                                   $(OUT)/runs/APP/<net>.runs.tsv
#   4. A's median run converted (trace2goal -p: B's parameters for the plain
#      conversion, A's for --durations, which takes out what A's network cost
#      in the recorded calls) and simulated with B's (ibsim -p), in both modes
#      of pipelines/validate.mk:
#        default  the plain conversion
#        sync     trace2goal --durations --sync, simulated with ibsim
#                 --async-progress, compared with cmp-real --sync
#      and compared with all N runs of B (cmp-real --run: against B's median,
#      within B's spread or not)     $(OUT)/runs/APP/A-on-B.MODE.{goalb,sim.tsv,cmp.tsv}
#      and, for the accuracy on each network itself, B's median run with B's
#      parameters against B's runs (B-on-B) and A's with A's (A-on-A)
#   5. the table (pipelines/crossnet-table.sh), printed at the end:
#        $(OUT)/crossnet.tsv   per application: ranks, real A and B (median
#                              of the runs, ms), the spreads, the naive
#                              |deviation| (|A - B| / B: "B takes as long as
#                              A"), per mode the prediction (ms), its
#                              |deviation| from B's median and whether that
#                              lies within B's spread, and the same-network
#                              |deviations|; then '#' summary lines: per mode
#                              the median and largest |deviation| over all
#                              applications and over those whose naive error
#                              is at least 5 %, how often each mode beats the
#                              naive guess; whether B's runs were all made on a
#                              slowed machine (b_all_slowed, cmp-real's state),
#                              and the summaries again without those programs
#        $(OUT)/crossnet.md    the same as Markdown, then the drift test's
#                              verdict on each calibration (calib: sizes
#                              whose medians moved while measured)
#
# CAL=between calibrates each network while the runs are made instead of after them: right
# after the last run of every application (its last round, traced or untraced), one short
# netcal run on A, then one on B ($(OUT)/cal-NET/between/APP/; netcal -t CAL_BUDGET seconds,
# default 4, with CAL_REPS and CAL_MAXBYTES as for the calibration after the runs), and
# $(OUT)/cal-NET/between.params pools them all (calib DIR..., formats/calibration.md, "Several
# runs"): the calibration then sees the machine in the states its runs saw, spread over the same
# minutes, rather than in the state of the minute after them (docs/validation.md, "Calibrating
# between the runs"). With STATE=yes a between run made on a slowed machine (state-check.sh
# against the network's reference, as for the runs) is left out of the pool, unless every one
# was (then the least slowed is used); each verdict is in $(OUT)/cal-NET/between.state and in
# crossnet.md. CAL=after (the default) is step 1 as described. The two read the same traces:
# the runs do not depend on CAL, so CAL=after on an OUT of CAL=between only calibrates after
# them and converts again.
#
# UNTRACED=U (default 0) also runs every application U more times on each network with
# nothing traced between MPI_Init and MPI_Finalize (allprof --span, formats/trace.md 3.7),
# round i of them right after round i of the traced runs (A, B, untraced A, untraced B),
# rounds beyond N after the last traced one ($(OUT)/runs/APP/span/NET-i/), and compares
# both modes' predictions with the target network's untraced runs (cmp-real --run against
# their median: .../SRC-on-DST.MODE.untraced.cmp.tsv, for A on B and each network on its
# own): the time a prediction is for, since the tracer's own
# work lengthens a traced run. $(OUT)/untraced.tsv and its summary lines in crossnet.md
# (pipelines/crossnet-untraced.sh) give per application both networks' untraced and traced
# medians, the predictions against B's untraced median, the naive guess between the
# untraced medians, and what the tracer added to each network's runs.
#
# STATE=yes (the default) compares like with like on a machine that changes state (on the
# reference VM shared memory's small round trip doubles for minutes at a time, TCP's grows by
# a third: docs/validation.md, "The machine's two states"): every trace holds the round trips
# of allprof's clock exchanges at MPI_Init and MPI_Finalize; a network's reference is their
# 10th percentile at MPI_Init over all its runs, traced and untraced ($(OUT)/state-NET), and
# cmp-real --state-ref sets aside the runs one of whose round trips is more than 25 %
# above it (a run slowed all through or in part), from the medians, the spreads and the choice of the median run that is
# converted, unless every run of the program on that network was slowed. The calibrations
# set aside what netcal measured on a slowed machine by its pulses (formats/calibration.md,
# "Machine state"). crossnet.md says how many runs were set aside. STATE=no uses every run.
#
# Applications: pipelines/apps.mk (the list shared with validate.mk; its
# inputs make each run last at least 50 ms on shared memory at 2 ranks where
# the program allows it). An application whose program is not installed is
# left out with a note.
#
# NP ranks: one per core (MPIRUN, --bind-to core) up to 2, oversubscribed
# beyond (MPIRUN_MANY). The calibration always uses 2 ranks.
#
# Rerunning redoes only what changed: a run is traced again when its command
# line (the application's, the network's settings, NP), its program or the
# tracer changed, a calibration when its settings changed, a conversion when
# the median run, the parameters, the mode's flags or the tool changed. `make
# -f pipelines/crossnet.mk retrace` measures every run again. Everything runs
# one step at a time (.NOTPARALLEL): measurements must not overlap.

BUILD     ?= build
BIN       ?= bin
OUT       ?= crossnet-out
A         ?= shm
B         ?= tcp
N         ?= 5
NP        ?= 2
APPS      ?= $(SAMPLE_APPS) $(EXTERNAL_APPS) $(MORE_APPS)
MCA_shm   ?= --mca btl vader,self
MCA_tcp   ?= --mca btl tcp,self --mca btl_tcp_if_include lo
MPIRUN    ?= mpirun --bind-to core
MPIRUN_MANY ?= mpirun --oversubscribe --bind-to none
TOLERANCE ?= 5
T2G_FLAGS ?=
IBSIM_FLAGS ?=
BUILD_TOOLS ?= yes
CAL_REPS  ?=
CAL_MAXBYTES ?=
CAL_VARS  ?=
UNTRACED  ?= 0
STATE     ?= yes
CAL       ?= after
CAL_BUDGET ?= 4

THIS     := $(lastword $(MAKEFILE_LIST))
HERE     := $(dir $(THIS))
.NOTPARALLEL:
.DELETE_ON_ERROR:
.SECONDEXPANSION:

include $(HERE)apps.mk

$(foreach n,A B,$(if $(filter undefined,$(origin MCA_$($(n)))),$(error network '$($(n))' of $(n) has no settings (define MCA_$($(n)), e.g. MCA_$($(n))="--mca btl tcp,self"))))
$(if $(filter $(A),$(B)),$(error A and B name the same network '$(A)'))
$(if $(shell [ "$(N)" -ge 2 ] 2>/dev/null && echo y),,$(error invalid N '$(N)' (expected a whole number of runs of at least 2: the spread needs several)))
$(if $(shell [ "$(NP)" -ge 1 ] 2>/dev/null && echo y),,$(error invalid rank count '$(NP)' in NP (expected a whole number of at least 1)))
$(if $(shell [ "$(UNTRACED)" -ge 0 ] 2>/dev/null && echo y),,$(error invalid UNTRACED '$(UNTRACED)' (expected a whole number of runs)))
$(if $(filter 1,$(UNTRACED)),$(error UNTRACED=1: the spread of B's untraced runs needs 2 or more))
$(if $(filter yes no,$(STATE)),,$(error invalid STATE '$(STATE)' (expected yes or no)))
$(if $(filter after between,$(CAL)),,$(error invalid CAL '$(CAL)' (expected after or between)))
$(if $(shell echo '$(CAL_BUDGET)' | grep -Ex '[0-9]+(\.[0-9]+)?' | grep -v '^0*\.\?0*$$'),,$(error invalid CAL_BUDGET '$(CAL_BUDGET)' (expected a positive number of seconds)))

SEQ   := $(shell seq $(N))
NETS  := $(A) $(B)
MODES := default sync
PAIRS := $(A)-on-$(B) $(B)-on-$(B) $(A)-on-$(A)
R     := $(OUT)/runs
F     := $(OUT)/settings
C     := $(OUT)
# every run in the order they are measured: per application run 1 on A, run 1 on B, run 2 on A, ...
ORDER := $(foreach a,$(RUN_APPS),$(foreach i,$(SEQ),$(foreach n,$(NETS),$(R)/$(a)/$(n)-$(i)/trace/.done)))
CMPS  := $(foreach a,$(RUN_APPS),$(foreach p,$(PAIRS),$(foreach m,$(MODES),$(R)/$(a)/$(p).$(m).cmp.tsv)))
RUNSUM := $(foreach a,$(RUN_APPS),$(foreach n,$(NETS),$(R)/$(a)/$(n).runs.tsv))
USEQ   := $(if $(filter-out 0,$(UNTRACED)),$(shell seq $(UNTRACED)))
# SPANS APP: the untraced runs of APP (section 4b)
SPANS  = $(foreach n,$(NETS),$(foreach i,$(USEQ),$(R)/$(1)/span/$(n)-$(i)/.done))
UCMPS  := $(if $(USEQ),$(foreach a,$(RUN_APPS),$(foreach p,$(PAIRS),$(foreach m,$(MODES),$(R)/$(a)/$(p).$(m).untraced.cmp.tsv))))
.SECONDARY: $(ORDER) $(RUNSUM) $(foreach a,$(RUN_APPS),$(call SPANS,$(a)) $(R)/$(a)/untraced.$(A).tsv $(R)/$(a)/untraced.$(B).tsv) $(foreach a,$(RUN_APPS),$(foreach n,$(NETS),$(R)/$(a)/cmd-$(n)) \
  $(foreach p,$(PAIRS),$(foreach m,$(MODES),$(R)/$(a)/$(p).$(m).goalb $(R)/$(a)/$(p).$(m).sim.tsv))) \
  $(foreach m,$(MODES),$(F)/t2g-$(m) $(F)/ibsim-$(m)) $(foreach n,$(NETS),$(F)/cal-$(n))

mpirun = $(if $(filter 1 2,$(NP)),$(MPIRUN),$(MPIRUN_MANY)) -np $(NP) $(MCA_$(1))
params = $(C)/cal-$(1)/$(if $(filter between,$(CAL)),between.params,cluster.params)
T2G_default :=
T2G_sync    := --durations --sync
IBSIM_default :=
IBSIM_sync    := --async-progress
CMP_default :=
CMP_sync    := --sync
# runs NET APP: cmp-real's arguments for the N runs of APP on NET (run 1 last, as TRACES)
runs = $(foreach i,$(wordlist 2,$(N),$(SEQ)),--run $(R)/$(2)/$(1)-$(i)/trace) $(R)/$(2)/$(1)-1/trace
# the machine's state (STATE=yes): NET's reference clock round trip, and cmp-real's option
statefile = $(if $(filter yes,$(STATE)),$(OUT)/state-$(1))
# (backquotes, not $$(...): the rules that use it are made by $(eval), which would take a $)
stateref = $(if $(filter yes,$(STATE)),`sed -n 's/^ref_us=\([0-9.]*[1-9][0-9.]*\)/--state-ref \1us/p' $(OUT)/state-$(1)`)

.PHONY: all table tools retrace
all: table
	@cat $(OUT)/crossnet.md
	@$(if $(MISSING),echo "not run (program not installed): $(MISSING)")
	@echo "outputs in $(OUT)/: crossnet.tsv, crossnet.md, cal-$(A)/ cal-$(B)/ (calibrations), runs/APP/"

table: $(OUT)/crossnet.tsv $(OUT)/crossnet.md $(if $(USEQ),$(OUT)/untraced.tsv)

# ---- tools and sample programs from the top-level build (BUILD_TOOLS=no: use what is there)
tools:
ifneq ($(BUILD_TOOLS),no)
	@$(MAKE) -s --no-print-directory -f Makefile BUILD=$(BUILD) BIN=$(BIN) \
	  $(addprefix $(BIN)/,allprof trace2goal goalc ibsim cmp-real calib) $(BUILD)/allprof/liballprof.so \
	  $(filter-out $(BUILD)/samples/fsample,$(addprefix $(BUILD)/samples/,$(filter $(SAMPLE_APPS),$(APPS)))) \
	  $(if $(SRC_fsample),$(if $(filter fsample,$(APPS)),$(BUILD)/samples/fsample)) \
	  $(if $(filter between,$(CAL)),$(BUILD)/samples/netcal) >/dev/null
endif
$(TOOLS) $(AP_SO) $(addprefix $(SAMPLES)/,$(SAMPLE_APPS)): tools ;

# ---- settings as files, rewritten only when they change (compared in the
# ---- shell, not through a temporary file: nothing in the directory changes)
stamp = @mkdir -p $(@D); new='$(subst ','\'',$(STAMP))'; \
  if [ -f $@ ] && [ "$$(cat $@)" = "$$new" ]; then :; else printf '%s\n' "$$new" > $@; fi
$(F)/t2g-%: STAMP = trace2goal -q $(T2G_$*) $(T2G_FLAGS)
$(F)/ibsim-%: STAMP = ibsim -q $(IBSIM_$*) $(IBSIM_FLAGS)
$(F)/cmp: STAMP = cmp-real -t $(TOLERANCE)
$(F)/cal-%: STAMP = $(MPIRUN) -np 2 $(MCA_$*) / $(CAL_REPS) / $(CAL_MAXBYTES) / $(CAL_VARS)
$(F)/between-%: STAMP = $(MPIRUN) -np 2 $(MCA_$*) $(NETCAL) $(NETCAL_ARGS)
$(F)/table: STAMP = $(A) $(B) $(N) $(NP) / $(RUN_APPS) / $(MISSING) / $(UNTRACED)
$(F)/span: STAMP = $(UNTRACED)
$(F)/state: STAMP = $(STATE)
$(F)/t2g-%: FORCE
	$(stamp)
$(F)/ibsim-%: FORCE
	$(stamp)
$(F)/cal-%: FORCE
	$(stamp)
$(F)/between-%: FORCE
	$(stamp)
$(F)/cmp $(F)/table $(F)/span $(F)/state: FORCE
	$(stamp)

# ---- 1. calibration of each network; new settings calibrate from scratch
# (STATE=yes: after the runs, against the network's reference, so that a calibration made
# on a slowed machine is made again: calibrate.mk STATE_REF)
$(foreach n,$(NETS),$(C)/cal-$(n)/cluster.params): $(C)/cal-%/cluster.params: $(F)/cal-% $(call statefile,%) FORCE | tools
	@if [ -f $@ ] && [ $(F)/cal-$* -nt $@ ]; then rm -rf $(C)/cal-$*; fi
	@$(MAKE) -s --no-print-directory -f $(HERE)calibrate.mk BUILD=$(BUILD) BIN=$(BIN) OUT=$(C)/cal-$* \
	  BUILD_TOOLS=$(BUILD_TOOLS) MPIRUN="$(MPIRUN) -np 2 $(MCA_$*)" \
	  $(if $(filter yes,$(STATE)),STATE_REF=$$(sed -n 's/^ref_us=//p' $(OUT)/state-$* | grep -v '^0$$')) \
	  $(if $(CAL_REPS),REPS=$(CAL_REPS)) $(if $(CAL_MAXBYTES),MAXBYTES=$(CAL_MAXBYTES)) $(CAL_VARS) \
	  $(C)/cal-$*/cluster.params >/dev/null

# ---- 1b. CAL=between: a short netcal run on A, then on B, after the last run of every
# ---- application (order only: a new run does not measure again, retrace does), pooled
# (the application's last run: B's untraced run of the last round when the untraced rounds
# reach as far as the traced ones, else B's traced run N)
lastrun = $(if $(USEQ),$(if $(shell [ $(UNTRACED) -ge $(N) ] && echo y),$(R)/%/span/$(B)-$(UNTRACED)/.done,$(R)/%/$(B)-$(N)/trace/.done),$(R)/%/$(B)-$(N)/trace/.done)
NETCAL := $(SAMPLES)/netcal
NETCAL_ARGS = -q $(if $(CAL_REPS),-n $(CAL_REPS)) $(if $(CAL_MAXBYTES),-m $(CAL_MAXBYTES)) -t $(CAL_BUDGET)
# betweens NET: the between runs of NET, one per application
betweens = $(foreach a,$(RUN_APPS),$(C)/cal-$(1)/between/$(a)/.done)
define between_rule
$(C)/cal-$(1)/between/%/.done: $(F)/between-$(1) $(AP_SO) | $(ABIN)/allprof tools $(lastrun) $(2)
	@echo "== calibrate $(1) between the runs: after those of $$*"
	@rm -rf $(C)/cal-$(1)/between/$$* && mkdir -p $(C)/cal-$(1)/between && \
	  $(ABIN)/allprof -q -o $(C)/cal-$(1)/between/$$*.tmp -- $(MPIRUN) -np 2 $(MCA_$(1)) $(NETCAL) $(NETCAL_ARGS) \
	    >$(C)/cal-$(1)/between/$$*.log 2>&1 || \
	    { echo "calibration of $(1) after the runs of $$*: netcal failed:" >&2; tail -n 20 $(C)/cal-$(1)/between/$$*.log >&2; exit 1; }
	@mv $(C)/cal-$(1)/between/$$*.tmp $(C)/cal-$(1)/between/$$* && rm -f $(C)/cal-$(1)/between/$$*.log && touch $$@
endef
ifeq ($(CAL),between)
$(eval $(call between_rule,$(A),))
$(eval $(call between_rule,$(B),$(C)/cal-$(A)/between/%/.done))
.SECONDARY: $(foreach n,$(NETS),$(call betweens,$(n)))
endif
# the pool: with STATE=yes the runs made on an undisturbed machine (state-check.sh against
# NET's reference, netcal's pulses in their worst phase as the third round trip), or the least
# slowed run when none was, fitted with calib --state-ref; each verdict in between.state
WORST_PULSE := s/^\# machine state: .* undisturbed \([0-9.]* us to \)\{0,1\}\([0-9.]*\) us (each.*/\2/p
$(foreach n,$(NETS),$(C)/cal-$(n)/between.params): $(C)/cal-%/between.params: $$(call betweens,$$*) $(F)/between-% $(call statefile,%) $(ABIN)/calib $(HERE)state-check.sh
	@echo "== calibrate $* from $(words $(RUN_APPS)) runs between the runs"
	@d=$(C)/cal-$*; rm -f $$d/between.state; use=; \
	$(if $(filter yes,$(STATE)),ref=$$(sed -n 's/^ref_us=//p' $(OUT)/state-$* | grep -v '^0$$'); best=; bestw=; \
	  for a in $(RUN_APPS); do \
	    if [ -z "$$ref" ]; then use="$$use $$d/between/$$a"; continue; fi; \
	    p=$$($(ABIN)/calib -q --state-ref $${ref}us $$d/between/$$a 2>/dev/null | sed -n '$(WORST_PULSE)'); \
	    v=$$(sh $(HERE)state-check.sh $$d/between/$$a $$ref $$p); rc=$$?; [ $$rc -le 1 ] || exit 1; \
	    echo "$$a: $$v" >> $$d/between.state; \
	    if [ $$rc = 0 ]; then use="$$use $$d/between/$$a"; else \
	      w=$$(sh $(HERE)state-check.sh -w $$d/between/$$a $$p) || exit 1; \
	      if [ -z "$$bestw" ] || awk -v a="$$w" -v b="$$bestw" 'BEGIN { exit !(a < b) }'; then best=$$d/between/$$a; bestw=$$w; fi; \
	    fi; \
	  done; \
	  if [ -z "$$use" ]; then use=$$best; \
	    echo "every run between the runs was made on a slowed machine: the least slowed is used: $$best (round trip $$bestw us)" >> $$d/between.state; \
	  else echo "pooled: $$(echo $$use | wc -w) of $(words $(RUN_APPS)) runs" >> $$d/between.state; fi;, \
	  use="$(foreach a,$(RUN_APPS),$$d/between/$(a))";) \
	$(ABIN)/calib $(if $(filter yes,$(STATE)),$${ref:+--state-ref $${ref}us}) -o $@.tmp $$use 2>$$d/between.txt || { cat $$d/between.txt >&2; rm -f $@.tmp; exit 1; }; \
	mv $@.tmp $@

# ---- 2. trace: run I of APP on NET. Each run waits (order only) for the one
# ---- before it in ORDER, which interleaves the networks.
define trace_rule
$(R)/%/$(1)-$(2)/trace/.done: $(R)/%/cmd-$(1) $(AP_SO) $$$$(PROG_$$$$*) | $(ABIN)/allprof $(3)
	@echo "== trace $$* on $(1), run $(2) of $(N) ($(NP) ranks)"
	@rm -rf $(R)/$$*/$(1)-$(2) && mkdir -p $(R)/$$*/$(1)-$(2)/work
	@cd $(R)/$$*/$(1)-$(2)/work && { $$(or $$(call SETUP_$$*,$(NP)),:); } && \
	  $(ABIN)/allprof -q -o ../trace.tmp -- $$(call mpirun,$(1)) $$(CMD_$$*) \
	    >../app.out 2>../app.err || { echo "$$* on $(1), run $(2): the traced run failed:" >&2; tail -n 20 ../app.err >&2; exit 1; }
	@mv $(R)/$$*/$(1)-$(2)/trace.tmp $(R)/$$*/$(1)-$(2)/trace && rm -rf $(R)/$$*/$(1)-$(2)/work && touch $$@
endef
# the run before run I on NET: run I on A for B, run I-1 on B for A
# (with UNTRACED runs, B's untraced run I-1 when there is one: the untraced runs of a
# round follow its traced ones, section 4b)
prev_b = $(if $(filter $(1),$(USEQ)),$(R)/%/span/$(B)-$(1)/.done,$(R)/%/$(B)-$(1)/trace/.done)
before = $(if $(filter $(B),$(1)),$(R)/%/$(A)-$(2)/trace/.done,$(if $(filter 1,$(2)),,$(call prev_b,$(shell expr $(2) - 1))))
$(foreach n,$(NETS),$(foreach i,$(SEQ),$(eval $(call trace_rule,$(n),$(i),$(call before,$(n),$(i))))))
# one application after the other: run 1 on A of each application waits for the last run of
# the one before it (CAL=between: for the calibration on B after that run). Without this, the
# network references (step 4c), which want every run of a network, would make the runs on A of
# later applications before the last untraced runs on B of earlier ones.
appdone = $(if $(filter between,$(CAL)),$(C)/cal-$(B)/between/$(1)/.done,$(subst %,$(1),$(lastrun)))
$(foreach k,$(wordlist 2,$(words $(RUN_APPS)),$(shell seq $(words $(RUN_APPS)) 2>/dev/null)),$(eval \
  $(R)/$(word $(k),$(RUN_APPS))/$(A)-1/trace/.done: | $(call appdone,$(word $(shell expr $(k) - 1),$(RUN_APPS)))))

# the command of APP on NET (one rule per network: a rule with two pattern
# targets would be taken to make both at once)
define cmd_rule
$(R)/%/cmd-$(1): STAMP = setup: $$(call SETUP_$$*,$(NP)) / run: $$(call mpirun,$(1)) $$(CMD_$$*)
$(R)/%/cmd-$(1): FORCE
	$$(stamp)
endef
$(foreach n,$(NETS),$(eval $(call cmd_rule,$(n))))

# ---- 3. the runs of each network: median run, medians and spreads (after
# ---- the application's last run: its runs are measured back to back)
define runs_rule
$(R)/%/$(1).runs.tsv: $(foreach i,$(SEQ),$(R)/%/$(1)-$(i)/trace/.done) $(ABIN)/cmp-real $(F)/state $(call statefile,$(1)) | $(R)/%/$(B)-$(N)/trace/.done
	@$(ABIN)/cmp-real --sync $(call stateref,$(1)) -f tsv $$(call runs,$(1),$$*) > $$@.tmp && mv $$@.tmp $$@
endef
$(foreach n,$(NETS),$(eval $(call runs_rule,$(n))))

# ---- 4. SRC's median run with DST's parameters, simulated, compared with DST's runs
# The plain conversion prices every call by the model: it takes DST's parameters (its
# copies and reductions are DST's node's). --durations replays SRC's measured call durations
# minus what SRC's network cost in them, so it is converted with SRC's parameters; ibsim then
# adds DST's costs.
t2gnet = $(if $(filter sync,$(3)),$(1),$(2))
t2gparams = $(call params,$(call t2gnet,$(1),$(2),$(3)))
# The poll model (docs/trace2goal.md §2.1) needs one unsuccessful poll's time on both networks:
# -p gives one side's key `poll`, the other network's parameters the other side's.
t2gother = $(call params,$(if $(filter sync,$(3)),$(2),$(1)))
t2gpoll = $(if $(filter sync,$(1)),--poll-to,--poll-from)
# The plain conversion splits the traced time of window creation, free and fence into
# messages and local work with the traced network's model (docs/trace2goal.md, "One-sided
# communication"): SRC's parameters, --from-params.
t2gfrom = $(if $(filter sync,$(3)),,--from-params $(call params,$(1)))
define pair_rules
$(R)/%/$(1)-on-$(2).$(3).goalb: $(R)/%/$(1).runs.tsv $(call t2gparams,$(1),$(2),$(3)) $(call t2gother,$(1),$(2),$(3)) $(F)/t2g-$(3) $(ABIN)/trace2goal $(ABIN)/goalc
	@echo "== trace2goal $$* traced on $(1) for $(2), converted with the parameters of $(call t2gnet,$(1),$(2),$(3)), $(3)"
	@i=$$$$(sed -n 's/^# runs=[0-9]* median_run=\([0-9]*\) .*/\1/p' $$<); test -n "$$$$i" && \
	  p=$$$$(sed -n 's/^poll *= *\([^ #]*\).*/\1/p' $(call t2gother,$(1),$(2),$(3))) && \
	  $(ABIN)/trace2goal -q $(T2G_$(3)) $(T2G_FLAGS) -p $(call t2gparams,$(1),$(2),$(3)) $(call t2gfrom,$(1),$(2),$(3)) \
	    $$$${p:+$(call t2gpoll,$(3)) $$$$p} -o $(R)/$$*/$(1)-on-$(2).$(3).goal.zst \
	    $(R)/$$*/$(1)-$$$$i/trace
	@$(ABIN)/goalc -o $$@ $(R)/$$*/$(1)-on-$(2).$(3).goal.zst

$(R)/%/$(1)-on-$(2).$(3).sim.tsv: $(R)/%/$(1)-on-$(2).$(3).goalb $(call params,$(2)) $(F)/ibsim-$(3) $(ABIN)/ibsim
	@$(ABIN)/ibsim -q -p $(call params,$(2)) $(IBSIM_$(3)) $(IBSIM_FLAGS) $$< > $$@ 2> $$(@:.sim.tsv=.ibsim.log) || \
	  { cat $$(@:.sim.tsv=.ibsim.log) >&2; exit 1; }

# cmp-real says 1 when some rank is outside the tolerance: that is a result, not a failure
$(R)/%/$(1)-on-$(2).$(3).cmp.tsv: $(R)/%/$(1)-on-$(2).$(3).sim.tsv $(R)/%/$(2).runs.tsv $(F)/cmp $(ABIN)/cmp-real
	@$(ABIN)/cmp-real $(CMP_$(3)) $(call stateref,$(2)) -t $(TOLERANCE) -f tsv $$(call runs,$(2),$$*) $$< > $$@; test $$$$? -le 1
endef
$(foreach p,$(PAIRS),$(foreach m,$(MODES),$(eval $(call pair_rules,$(firstword $(subst -on-, ,$(p))),$(lastword $(subst -on-, ,$(p))),$(m)))))

# ---- 4b. UNTRACED runs of APP under allprof --span: round I of them follows round I of the
# ---- traced runs (A, B, untraced A, untraced B, then round I+1), so that a drift of the
# ---- machine meets both kinds alike; rounds beyond N follow the last traced one. A new
# ---- UNTRACED runs only the rounds that are missing, and compares again.
# (the recipe's variables have names of their own: an application's setup may set i or n)
# span_before NET I: the run before untraced run I on NET
span_before = $(if $(filter $(B),$(1)),$(R)/%/span/$(A)-$(2)/.done,$(if $(filter $(2),$(SEQ)),$(R)/%/$(B)-$(2)/trace/.done,$(R)/%/span/$(B)-$(shell expr $(2) - 1)/.done))
define span_rule
$(R)/%/span/$(1)-$(2)/.done: $(R)/%/cmd-$(1) $(AP_SO) $$$$(PROG_$$$$*) | $(ABIN)/allprof $(3)
	@echo "== untraced $$* on $(1), run $(2) of $(UNTRACED) ($(NP) ranks)"
	@rm -rf $(R)/$$*/span/$(1)-$(2) $(R)/$$*/span/work-$(1) && mkdir -p $(R)/$$*/span/work-$(1)
	@cd $(R)/$$*/span/work-$(1) && { $$(or $$(call SETUP_$$*,$(NP)),:); } && \
	  $(ABIN)/allprof -q --span -o ../$(1)-$(2).tmp -- $$(call mpirun,$(1)) $$(CMD_$$*) \
	    >app.out 2>app.err || { echo "$$* on $(1), untraced run $(2): the run failed:" >&2; tail -n 20 app.err >&2; exit 1; }
	@mv $(R)/$$*/span/$(1)-$(2).tmp $(R)/$$*/span/$(1)-$(2) && rm -rf $(R)/$$*/span/work-$(1) && touch $$@
endef
$(foreach n,$(NETS),$(foreach i,$(USEQ),$(eval $(call span_rule,$(n),$(i),$(call span_before,$(n),$(i))))))
# uspan NET APP: cmp-real's arguments for the untraced runs of APP on NET (run 1 last)
uspan = $(foreach i,$(wordlist 2,$(UNTRACED),$(USEQ)),--run $(R)/$(2)/span/$(1)-$(i)) $(R)/$(2)/span/$(1)-1

define untraced_rule
$(R)/%/$(1)-on-$(2).$(3).untraced.cmp.tsv: $(R)/%/$(1)-on-$(2).$(3).sim.tsv $$$$(call SPANS,$$$$*) $(F)/span $(F)/cmp $(ABIN)/cmp-real $(F)/state $(call statefile,$(2))
	@$(ABIN)/cmp-real $(CMP_$(3)) $(call stateref,$(2)) -t $(TOLERANCE) -f tsv $$(call uspan,$(2),$$*) $$< > $$@; test $$$$? -le 1
endef
$(if $(USEQ),$(foreach p,$(PAIRS),$(foreach m,$(MODES),$(eval $(call untraced_rule,$(firstword $(subst -on-, ,$(p))),$(lastword $(subst -on-, ,$(p))),$(m))))))
# each network's untraced runs alone (cmp-real --run, no results): their median and spread
$(R)/%/untraced.$(A).tsv $(R)/%/untraced.$(B).tsv: $$(call SPANS,$$*) $(F)/span $(ABIN)/cmp-real $(F)/state $(call statefile,$(A)) $(call statefile,$(B))
	@$(ABIN)/cmp-real --sync $(call stateref,$(A)) -f tsv $(call uspan,$(A),$*) > $(R)/$*/untraced.$(A).tsv
	@$(ABIN)/cmp-real --sync $(call stateref,$(B)) -f tsv $(call uspan,$(B),$*) > $(R)/$*/untraced.$(B).tsv

$(OUT)/untraced.tsv: $(UCMPS) $(foreach a,$(RUN_APPS),$(R)/$(a)/untraced.$(A).tsv) $(RUNSUM) $(OUT)/crossnet.tsv $(HERE)crossnet-untraced.sh
	@sh $(HERE)crossnet-untraced.sh $(R) $(A) $(B) $(OUT)/crossnet.tsv $(RUN_APPS) > $@.tmp && mv $@.tmp $@

# ---- 4c. the machine's state (STATE=yes): NET's reference, the 10th percentile of the clock
# ---- round trips at MPI_Init (ranks 1 and up) over every run on NET, traced and untraced,
# ---- taken once all of them are made
# (rewritten only when it changes: new runs on one network leave the other's comparisons be)
netruns = $(foreach a,$(RUN_APPS),$(foreach i,$(SEQ),$(R)/$(a)/$(1)-$(i)/trace/.done) $(foreach i,$(USEQ),$(R)/$(a)/span/$(1)-$(i)/.done))
$(foreach n,$(NETS),$(OUT)/state-$(n)): $(OUT)/state-%: $$(call netruns,$$*)
	@for f in $(R)/*/$*-[0-9]*/trace/rank-*.trace $(R)/*/span/$*-[0-9]*/rank-*.trace; do \
	  test -f "$$f" && sed -n 's/^# Init clockrtt: *\([0-9.]*\).*/\1/p' "$$f"; \
	done | awk '$$1 > 0' | sort -g | \
	  awk '{ v[NR] = $$1 } END { if (NR) printf "ref_us=%s\nround_trips=%d\n", v[int(0.1 * (NR - 1)) + 1], NR; \
	    else print "ref_us=0" }' > $@.tmp && \
	if cmp -s $@.tmp $@; then rm -f $@.tmp; else mv $@.tmp $@; fi

# ---- 5. the table
$(OUT)/crossnet.tsv: $(CMPS) $(RUNSUM) $(F)/table $(HERE)crossnet-table.sh
	@mkdir -p $(@D)
	@sh $(HERE)crossnet-table.sh tsv $(R) $(A) $(B) $(NP) $(RUN_APPS) > $@.tmp
	@$(if $(MISSING),echo "# not run (program not installed): $(MISSING)" >> $@.tmp)
	@mv $@.tmp $@

# then what calib's pulses and drift test say of each calibration (formats/calibration.md,
# "Machine state" and "Drift") and its state checks (calibrate.mk STATE_REF: each try's
# clock round trips against the reference): what was measured on a slowed machine and set aside, and
# the sizes whose medians moved while they were measured; and per network (STATE=yes) its
# reference clock round trip and how many runs were set aside
$(OUT)/crossnet.md: $(OUT)/crossnet.tsv $(HERE)crossnet-table.sh $(if $(USEQ),$(OUT)/untraced.tsv) $(foreach n,$(NETS),$(call statefile,$(n)))
	@sh $(HERE)crossnet-table.sh md $(A) $(B) $< > $@.tmp && \
	$(if $(USEQ),sed -n 's/^# /- /p' $(OUT)/untraced.tsv >> $@.tmp && ,)\
	for n in $(A) $(B); do \
	  if test -f $(call params,$$n); then \
	    sed -n -e "s/^# machine state: \(.*\)/- calibration of $$n, machine state: \1/p" \
	      -e "s/^# drift: \(.*\)/- calibration of $$n, drift: \1/p" -e "s/^# drift at \(.*\)/  - at \1/p" \
	      $(call params,$$n); \
	  fi; \
	  for f in $(if $(filter between,$(CAL)),$(C)/cal-$$n/between.state,$(C)/cal-$$n/pp*.state); do \
	    test -f $$f && sed "s|^|- calibration of $$n, state check ($$(basename $$f .state)): |" $$f; \
	  done; \
	  if test -f $(OUT)/state-$$n; then \
	    cat $(R)/*/$$n.runs.tsv $(if $(USEQ),$(R)/*/untraced.$$n.tsv) 2>/dev/null | \
	    awk -v n=$$n -v ref="$$(sed -n 's/^ref_us=//p' $(OUT)/state-$$n)" \
	      -v rt="$$(sed -n 's/^round_trips=//p' $(OUT)/state-$$n)" \
	      '/^# runs=/ { split($$2, a, "="); runs += a[2] } \
	       /^# state: / { for (i = 3; i <= NF; i++) { split($$i, a, "="); f[a[1]] = a[2] } \
	         if (f["set_aside"] != "-") aside += split(f["set_aside"], x, ","); if (NF > 6) all++ } \
	       END { printf "- machine state of %s: reference clock round trip %s us (the 10th percentile at MPI_Init over %d round trips of its runs); ", n, ref, rt; \
	         printf "runs on a slowed machine (a round trip more than 25 %% above) set aside: %d of %d", aside, runs; \
	         if (all) printf "; %d program(s) with every run slowed, all used", all; print "" }'; \
	  fi; \
	done >> $@.tmp && mv $@.tmp $@

retrace:
	@rm -f $(ORDER) $(foreach a,$(RUN_APPS),$(call SPANS,$(a))) $(foreach n,$(NETS),$(call betweens,$(n)))
	@$(MAKE) -f $(THIS) BUILD=$(BUILD) BIN=$(BIN) OUT=$(OUT)

FORCE:
