# pipelines/topo-sweep.mk: one application over topologies, routing engines
# and placements on the InfiniBand model; one table and one chart.
#
#   make -f pipelines/topo-sweep.mk [APP=lammps] [NP=8] [TOPOS="star:8 h8s2 ..."] ...
#
# Variables a user edits:
#   APP         what to simulate: a sample program of samples/apps/ (ring,
#               collectives, ...), lammps (in.melt), or gen:PATTERN (a goalgen
#               pattern, GENFLAGS passes its options); default lammps when
#               lmp is installed, else ring
#   NP          ranks (traced oversubscribed when NP exceeds the cores: the
#               communication pattern is what matters here, not the times)
#   SCHED       an existing schedule (text or binary) instead of APP
#   TOPOS       topologies (ibsim --topo): generators or topology files
#   ROUTINGS    routing engines: minhop updn ftree (ftree needs a fat tree), dor
#               (torus:, mesh:), minimal valiant ugal ugal-g (dragonfly:; these
#               and dor on a torus need IBFLAGS="--ib vls=2" or 3)
#   PLACEMENTS  seq, random:SEED or placement files
#   PARAMS      a parameter file for ibsim -p (e.g. demo-out/calib/ib.params)
#   IBFLAGS     more ibsim options (--link 4xQDR --mtu 4096 ...)
#   OUT         output directory (default pipelines/out/topo-sweep)
#   SUBMIT      a prefix for each simulation's command, e.g. "srun -N1 -n1
#               --exclusive" with -j64 (SRUN is another name); the target
#               `commands` lists the simulations instead, for a Slurm job array
#               (pipelines/submit.mk, pipelines/slurm-array.sh)
#
# Outputs: $(OUT)/app.goalb, $(OUT)/runs/<topo>__<routing>__<placement>.tsv
# (ibsim results, with .links.tsv; ':' in names becomes '+'), .err for a
# combination ibsim refuses (ftree on a non-fat-tree, say), $(OUT)/table.tsv
# (printed) and $(OUT)/topo-sweep.png, .svg. Rerunning redoes only what
# changed: a new topology adds its runs; new PARAMS or IBFLAGS redo them all;
# a new APP, NP, SCHED or GENFLAGS rebuilds the schedule.

BIN     ?= $(CURDIR)/bin
BUILD   ?= build
OUT     ?= pipelines/out/topo-sweep
NP      ?= 8
APP     ?= $(if $(and $(shell command -v lmp 2>/dev/null),$(wildcard $(MELT))),lammps,ring)
SCHED   ?=
GENFLAGS ?= --size 64K
TOPOS   ?= star:8 h8s2 h8s4 fattree2:4 fattree2:8 fattree3:4
ROUTINGS ?= minhop updn ftree
PLACEMENTS ?= seq random:1
PARAMS  ?=
IBFLAGS ?=
PLOTS   ?= $(if $(shell command -v gnuplot 2>/dev/null),yes,no)
MELT    ?= /usr/share/lammps/examples/melt/in.melt

export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

B       := $(abspath $(BIN))
O       := $(abspath $(OUT))
SAMPLES := $(abspath $(BUILD))/samples
CORES   := $(shell nproc 2>/dev/null || echo 1)
APPCMD  := $(if $(filter lammps,$(APP)),lmp -in $(MELT) -log none -screen none,$(SAMPLES)/$(APP))
MPIRUN  := mpirun $(if $(shell [ $(NP) -le $(CORES) ] && echo y),--bind-to core,--oversubscribe) -np $(NP)

enc = $(subst :,+,$(1))
dec = $(subst +,:,$(1))
RUNS := $(foreach t,$(TOPOS),$(foreach r,$(ROUTINGS),$(foreach p,$(PLACEMENTS),$(call enc,$(t))__$(r)__$(call enc,$(p)))))

.PHONY: all
.DELETE_ON_ERROR:
all: $(O)/table.tsv $(if $(filter yes,$(PLOTS)),$(O)/topo-sweep.png $(O)/topo-sweep.svg)
	@awk -F'\t' '{printf "%-14s %-8s %-10s %14s %9s %10s %10s\n", $$1, $$2, $$3, $$4, $$5, $$6, $$7}' $<
	@echo "table: $(O)/table.tsv"
	@$(if $(filter yes,$(PLOTS)),echo "chart: $(O)/topo-sweep.png $(O)/topo-sweep.svg")

# Stamps that change only when their settings do, so that make redoes what they affect.
define stamp
$(shell mkdir -p $(O); [ "`cat $(O)/$(1) 2>/dev/null`" = "$(2)" ] || echo "$(2)" > $(O)/$(1))
endef
$(call stamp,.source,$(APP) $(NP) $(SCHED) $(GENFLAGS))
$(call stamp,.flags,$(PARAMS) $(IBFLAGS))

# ---- the schedule ----
ifneq ($(SCHED),)
$(O)/app.goalb: $(O)/.source $(SCHED)
	@$(B)/goalc -q -o $@ $(SCHED)
else ifneq ($(filter gen:%,$(APP)),)
$(O)/app.goalb: $(O)/.source
	@$(B)/goalgen $(patsubst gen:%,%,$(APP)) $(NP) $(GENFLAGS) | $(B)/goalc -q -o $@
else
$(O)/app.goalb: $(O)/.source
	@echo "allprof $(APP) on $(NP) ranks"
	@rm -rf $(O)/traces
	@cd $(O) && $(B)/allprof -q -o traces -- $(MPIRUN) $(APPCMD) > run.out 2> run.err || { cat run.err >&2; exit 1; }
	@$(B)/trace2goal -q $(O)/traces | $(B)/goalc -q -o $@
endif

# ---- one simulation per combination; a refused combination leaves its .err ----
# One target and one command line per simulation, run here or under SUBMIT, or
# listed by `make ... commands` for a job array (pipelines/submit.mk).
SIMS := $(addprefix $(O)/runs/,$(addsuffix .tsv,$(RUNS)))
include $(dir $(lastword $(MAKEFILE_LIST)))submit.mk
combo = --topo $(call dec,$(word 1,$(subst __, ,$*))) --routing $(word 2,$(subst __, ,$*)) --placement $(call dec,$(word 3,$(subst __, ,$*)))
simulate = if $(B)/ibsim -q $(if $(PARAMS),-p $(abspath $(PARAMS))) --net ib $(combo) $(IBFLAGS) \
	  --linkstats $(@D)/$*.links.tsv $< > $@.tmp 2> $(@D)/$*.err; \
	then mv $@.tmp $@; rm -f $(@D)/$*.err; \
	else rm -f $@.tmp $(@D)/$*.links.tsv; sed 's/^/   /' $(@D)/$*.err; printf '\# failed\n' > $@; fi
$(O)/runs/%.tsv: $(O)/app.goalb $(O)/.flags $(PARAMS)
	@mkdir -p $(@D)
	@$(if $(SUBMIT_LIST),,echo "ibsim $(combo)")
	@$(call submit,$(simulate))

# The table: per combination the simulated run time (slowest rank), its
# slowdown against the fastest combination, the busiest link's share of the
# run and the time all links spent stalled for credits.
$(O)/table.tsv: $(SIMS)
	@for r in $(RUNS); do \
	  set -- $$(echo $$r | sed 's/__/ /g'); \
	  f=$(O)/runs/$$r.tsv; \
	  if grep -q '^# failed' $$f; then printf '%s\t%s\t%s\tfailed\t-\t-\t-\n' $$(echo $$1 | tr + :) $$2 $$(echo $$3 | tr + :); continue; fi; \
	  end=$$(awk '!/^#/ && $$1 ~ /^[0-9]+$$/ && $$2 > m {m = $$2} END {printf "%.0f", m}' $$f); \
	  awk -F'\t' -v t=$$(echo $$1 | tr + :) -v r=$$2 -v p=$$(echo $$3 | tr + :) -v end=$$end \
	    'NR > 1 { if ($$8 > b) b = $$8; s += $$9 } END {printf "%s\t%s\t%s\t%.3f\t%.2f\t%.3f\n", t, r, p, end / 1e6, b * 100 / end, s / 1e6}' \
	    $(O)/runs/$$r.links.tsv; \
	done > $@.rows
	@best=$$(awk -F'\t' '$$4 != "failed" && (m == "" || $$4 < m) {m = $$4} END {print m}' $@.rows); \
	{ printf 'topo\trouting\tplacement\tend_us\tvs_best_pct\tmax_link_busy_pct\tstall_us\n'; \
	  awk -F'\t' -v best=$$best 'BEGIN {OFS = "\t"} $$4 == "failed" {print; next} {print $$1, $$2, $$3, $$4, sprintf("%+.2f", ($$4 - best) * 100 / best), $$5, $$6}' $@.rows; } > $@
	@rm -f $@.rows

$(O)/topo-sweep.png $(O)/topo-sweep.svg: $(O)/table.tsv pipelines/plot/topo-sweep.gp
	@gnuplot -e "in='$<'; out='$@'; name='$(if $(SCHED),$(notdir $(SCHED)),$(APP)), $(NP) ranks'; combos='$(foreach r,$(ROUTINGS),$(foreach p,$(PLACEMENTS),$(r)/$(p)))'; ntopo=$(words $(TOPOS))" pipelines/plot/topo-sweep.gp
