# pipelines/demo.mk: the bundled workflow that `make demo` runs.
#
# Stage 1, schedules: compile every sample schedule (samples/schedules/*.goal
# and schedules goalgen writes) to GOAL binary, check the text -> binary ->
# text -> binary round trip, print statistics, and simulate each one with
# ibsim on the LogGOPS network.
#
# Everything goes to $(OUT) (default demo-out/); rerunning redoes only what
# changed. Variables a user may set: OUT, BIN, NP (ranks of the generated
# schedules).

BIN ?= $(CURDIR)/bin
OUT ?= demo-out
NP  ?= 16

GOALC   := $(BIN)/goalc
GOALGEN := $(BIN)/goalgen
IBSIM   := $(BIN)/ibsim

SAMPLES   := $(wildcard samples/schedules/*.goal)
GENERATED := dissemination bcast allreduce ring
SCHEDS    := $(patsubst samples/schedules/%.goal,$(OUT)/sched/%,$(SAMPLES)) \
             $(addprefix $(OUT)/sched/gen-,$(GENERATED))

.PHONY: all schedules
all: schedules
	@echo
	@echo "== demo: simulated end time per schedule (ibsim --net loggops, default parameters)"
	@printf '%-28s %8s %22s\n' schedule ranks "last rank ends (ps)"
	@for s in $(SCHEDS); do \
	  n=$$(basename $$s); \
	  printf '%-28s %8s %22s\n' $$n $$(grep -c '^[0-9]' $$s.sim.tsv) \
	    $$(awk '!/^#/ && $$1 ~ /^[0-9]+$$/ && $$2 > m {m = $$2} END {print m+0}' $$s.sim.tsv); \
	done
	@echo
	@echo "outputs in $(OUT)/sched/: <name>.goalb (binary), .stats, .sim.tsv"

schedules: $(addsuffix .sim.tsv,$(SCHEDS))

$(OUT)/sched/%.goal: samples/schedules/%.goal
	@mkdir -p $(@D)
	@cp $< $@

$(OUT)/sched/gen-dissemination.goal: $(GOALGEN)
	@mkdir -p $(@D)
	@$(GOALGEN) dissemination $(NP) --size 180 -o $@
$(OUT)/sched/gen-bcast.goal: $(GOALGEN)
	@mkdir -p $(@D)
	@$(GOALGEN) bcast $(NP) --size 64K --root 0 -o $@
$(OUT)/sched/gen-allreduce.goal: $(GOALGEN)
	@mkdir -p $(@D)
	@$(GOALGEN) allreduce $(NP) --size 8K --calc 10us -o $@
$(OUT)/sched/gen-ring.goal: $(GOALGEN)
	@mkdir -p $(@D)
	@$(GOALGEN) ring $(NP) --steps 100 --size 1K --calc 1us -o $@

# compile, check the canonical round trip, print statistics
$(OUT)/sched/%.goalb: $(OUT)/sched/%.goal $(GOALC)
	@echo "== goalc $*"
	@$(GOALC) -o $@ $<
	@$(GOALC) -d $@ | $(GOALC) -o $@.again -
	@cmp -s $@ $@.again || { echo "round trip of $* changed the binary" >&2; exit 1; }
	@rm -f $@.again
	@$(GOALC) --stats $@ > $(OUT)/sched/$*.stats
	@sed 's/^/   /' $(OUT)/sched/$*.stats | head -6

$(OUT)/sched/%.sim.tsv: $(OUT)/sched/%.goalb $(IBSIM)
	@echo "== ibsim $*"
	@$(IBSIM) -q $< > $@
