# pipelines/opensm.mk: a fabric routed by a real OpenSM, against ibsim's own
# routing engines: link-load balance and simulated all-to-all time.
#
#   make -f pipelines/opensm.mk [TOPO=fattree2:4] [ENGINE="ftree updn"] ...
#
# Variables a user edits:
#   TOPO      the fabric: a generator of ibsim --topo (fattree2:4, fattree3:4,
#             h8s4, ...) or a topology file (formats/topology.md)
#   NETFILE   a net file of ibsim-utils written by hand instead of TOPO (a
#             torus, say: tests/data/opensm/torus3x3.net)
#   NAME      the fabric's name in the table (default TOPO, or NETFILE's
#             file name)
#   ENGINE    OpenSM's routing engines, one run each: minhop updn dnup ftree
#             lash dor torus-2QoS nue dfsssp sssp (default ftree)
#   OSMFLAGS  more opensm options (--torus_config FILE for torus-2QoS, ...)
#   OURS      ibsim's engines to compare: minhop updn ftree
#   SIZE      bytes per message of the all-to-all (default 64K)
#   IBFLAGS   more ibsim options (--link 4xQDR, --mtu 4096, ...); --link
#             also sets the links of the net file written from TOPO
#   TIMEOUT   seconds each of the fabric simulator, OpenSM and ibnetdiscover
#             may take (default 60)
#   OUT       output directory (default pipelines/out/opensm)
#
# Steps:
#   1. the net file: ibsim --dump-netfile from TOPO (or NETFILE as given)
#                                              $(OUT)/fabric.net
#   2. per OpenSM engine E, pipelines/opensm-run.sh: Debian's fabric
#      simulator /usr/bin/ibsim -s on the net file in the background, opensm
#      -o -R E once through libumad2sim.so, then ibnetdiscover; the simulator
#      is stopped on every exit, every step has TIMEOUT
#                                              $(OUT)/opensm-E/opensm-lfts.dump,
#                                              ibnetdiscover.txt, routed-by, logs
#   3. an all-to-all over every host (goalgen alltoall, SIZE per message)
#                                              $(OUT)/a2a.goal
#   4. ibsim --net ib on the discovered fabric: with OpenSM's tables
#      (--routing lft:) on its own ibnetdiscover output, and with each of
#      OURS on the first engine's; --route-stats gives the balance
#                                              $(OUT)/sim/{osm,ours}-X.tsv,
#                                              .routes.tsv, .err if refused
#   5. the table, printed               $(OUT)/table.tsv
#      fabric source engine routed_by hosts switch_links max_routes
#      mean_routes max_over_mean a2a_us
#      source is opensm or ibsim; routed_by is the engine that routed (OpenSM
#      falls back to minhop when the one asked for fails; ibsim's own: the
#      engine, or "failed" with its message in the .err file and '-' after).
#      The balance is over link directions between switches: max_over_mean 1
#      means every one carries as many host pairs' routes as the others.
#
# Needs ibsim-utils, opensm and infiniband-diags (make deps); no root (see
# pipelines/opensm-run.sh). A machine that cannot run them stops at step 2
# with "opensm-run: cannot run: ..." (exit status 77 of the script): the
# recorded outputs of tests/data/opensm/ are the same steps 4-5 without it.
# Rerunning redoes only what changed.

BIN      ?= $(CURDIR)/bin
OUT      ?= pipelines/out/opensm
TOPO     ?= fattree2:4
NETFILE  ?=
NAME     ?= $(if $(NETFILE),$(notdir $(basename $(NETFILE))),$(TOPO))
ENGINE   ?= ftree
OSMFLAGS ?=
OURS     ?= minhop updn ftree
SIZE     ?= 64K
IBFLAGS  ?=
TIMEOUT  ?= 60

B    := $(abspath $(BIN))
O    := $(abspath $(OUT))
HERE := $(dir $(lastword $(MAKEFILE_LIST)))
RUN  := $(abspath $(HERE))/opensm-run.sh
FIRST := $(firstword $(ENGINE))
SIMS := $(addprefix $(O)/sim/osm-,$(addsuffix .tsv,$(ENGINE))) $(addprefix $(O)/sim/ours-,$(addsuffix .tsv,$(OURS)))

$(if $(ENGINE),,$(error ENGINE names no OpenSM routing engine))

.PHONY: all
.DELETE_ON_ERROR:
.NOTPARALLEL:
all: $(O)/table.tsv
	@awk -F'\t' '{printf "%-12s %-7s %-11s %-11s %6s %6s %6s %8s %8s %12s\n", $$1, $$2, $$3, $$4, $$5, $$6, $$7, $$8, $$9, $$10}' $<
	@echo "table: $(O)/table.tsv"

# settings as files that change only when the settings do
define stamp
$(shell mkdir -p $(O); [ "`cat $(O)/$(1) 2>/dev/null`" = "$(2)" ] || echo "$(2)" > $(O)/$(1))
endef
$(call stamp,.fabric,$(TOPO) / $(NETFILE) / $(IBFLAGS))
$(call stamp,.osm,$(OSMFLAGS) / $(TIMEOUT))
$(call stamp,.sim,$(SIZE) / $(IBFLAGS) / $(NAME))

# ---- 1. the net file
$(O)/fabric.net: $(O)/.fabric $(NETFILE) $(B)/ibsim
ifneq ($(NETFILE),)
	@cp $(NETFILE) $@
else
	@$(B)/goalgen alltoall 1 | $(B)/ibsim -q --net ib --topo $(TOPO) $(IBFLAGS) --dump-netfile $@ - >/dev/null
endif

# ---- 2. OpenSM, one engine per directory
$(O)/opensm-%/ibnetdiscover.txt: $(O)/fabric.net $(O)/.osm $(RUN)
	@echo "opensm -R $* on $(NAME)"
	@sh $(RUN) $< $* $(@D) $(TIMEOUT) $(OSMFLAGS)
.PRECIOUS: $(O)/opensm-%/ibnetdiscover.txt

# ---- 3. the all-to-all over every host of the discovered fabric
$(O)/a2a.goal: $(O)/opensm-$(FIRST)/ibnetdiscover.txt $(O)/.sim
	@h=$$(grep -c '^Ca' $<); $(B)/goalgen alltoall $$h --size $(SIZE) > $@.tmp && mv $@.tmp $@

# ---- 4. simulations; a refused one leaves its .err and a '# failed' result
sim = if $(B)/ibsim -q --net ib --topo $(1) --routing $(2) $(IBFLAGS) --route-stats $(@:.tsv=.routes.tsv) \
	  $(O)/a2a.goal > $@.tmp 2> $(@:.tsv=.err); then mv $@.tmp $@; rm -f $(@:.tsv=.err); \
	else rm -f $@.tmp $(@:.tsv=.routes.tsv); sed 's/^/   /' $(@:.tsv=.err); printf '\# failed\n' > $@; fi
$(O)/sim/osm-%.tsv: $(O)/opensm-%/ibnetdiscover.txt $(O)/a2a.goal $(B)/ibsim
	@mkdir -p $(@D)
	@echo "ibsim --topo opensm-$*/ibnetdiscover.txt --routing lft:opensm-$*/opensm-lfts.dump"
	@$(call sim,$<,lft:$(O)/opensm-$*/opensm-lfts.dump)
$(O)/sim/ours-%.tsv: $(O)/opensm-$(FIRST)/ibnetdiscover.txt $(O)/a2a.goal $(B)/ibsim
	@mkdir -p $(@D)
	@echo "ibsim --topo opensm-$(FIRST)/ibnetdiscover.txt --routing $*"
	@$(call sim,$<,$*)

# ---- 5. the table
row = f=$(O)/sim/$(1)-$(2).tsv; \
	if grep -q '^\# failed' $$f; then printf '%s\t%s\t%s\t%s\t-\t-\t-\t-\t-\t-\n' "$(NAME)" $(3) $(2) failed; \
	else hosts=$$(awk '!/^\#/ && $$1 ~ /^[0-9]+$$/ {n++} END {print n}' $$f); \
	  end=$$(awk '!/^\#/ && $$1 ~ /^[0-9]+$$/ && $$2 > m {m = $$2} END {printf "%.3f", m / 1e6}' $$f); \
	  set -- $$(sed -n 's/^\# switch links \([0-9]*\) routes [0-9]* max \([0-9]*\) mean \([0-9.]*\) max\/mean \([0-9.]*\)$$/\1 \2 \3 \4/p' $(O)/sim/$(1)-$(2).routes.tsv); \
	  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$(NAME)" $(3) $(2) $(4) $$hosts $$1 $$2 $$3 $$4 $$end; fi;
$(O)/table.tsv: $(SIMS)
	@{ printf 'fabric\tsource\tengine\trouted_by\thosts\tswitch_links\tmax_routes\tmean_routes\tmax_over_mean\ta2a_us\n'; \
	  $(foreach e,$(ENGINE),$(call row,osm,$(e),opensm,$$(cat $(O)/opensm-$(e)/routed-by))) \
	  $(foreach r,$(OURS),$(call row,ours,$(r),ibsim,$(r))) } > $@.tmp && mv $@.tmp $@
