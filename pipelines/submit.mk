# pipelines/submit.mk: where the independent simulations of a sweep run.
# Included by pipelines/topo-sweep.mk and pipelines/size-sweep.mk; see
# docs/tutorial.md §9.
#
# A sweep is many simulations that depend on a few shared inputs (the
# schedule, the parameters) and feed one collecting step (the table). Each
# simulation is one make target whose recipe is one shell command line,
# written $(call submit,COMMAND); everything it writes is named after its
# target, so `make -j` runs them side by side. Three ways to run them:
#
#   here, N at a time       make -f pipelines/topo-sweep.mk -j N
#   under a prefix          make -f pipelines/topo-sweep.mk -j 64 SUBMIT="srun -N1 -n1 --exclusive"
#                           (SRUN is another name for SUBMIT): each simulation
#                           is `$(SUBMIT) sh -c 'COMMAND'`, so srun runs the
#                           whole command, redirections included, on a node
#   as a Slurm job array    make -f pipelines/topo-sweep.mk commands
#                           writes $(O)/commands.txt, one simulation per
#                           line (only those out of date; the shared inputs
#                           are made first, here), and prints its length N;
#                           then
#                             sbatch --array=1-N pipelines/slurm-array.sh OUT/commands.txt
#                             sbatch --dependency=afterok:JOBID --wrap "make -f pipelines/topo-sweep.mk ..."
#                           the second job finds the simulations done and
#                           only collects.
#
# The prefix runs `sh -c` rather than the command itself because a
# simulation's line is a pipeline with redirections: under srun they must
# happen on the node, into the shared file system, not in make's shell.
# Files are named by absolute path and the commands of the list start with
# `cd` to make's directory, so they run from any working directory.
#
# Not done: a scheduler-specific target that calls sbatch itself. The two
# sbatch lines above are the whole of it, and leaving them to the user keeps
# the pipelines free of site options (account, partition, time limits).
#
# A pipeline that includes this file sets SIMS (the simulation targets) and
# O (its absolute output directory) before the include, and writes each
# simulation's recipe line as @$(call submit,COMMAND) (COMMAND on one line;
# any quotes in it are fine).

SUBMIT_DIR := $(dir $(lastword $(MAKEFILE_LIST)))
SUBMIT ?= $(SRUN)
SRUN   ?=
# internal: set by the commands target for its inner make
SUBMIT_LIST ?=

sq = '$(subst ','\'',$(1))'
ifeq ($(SUBMIT_LIST),)
submit = $(SUBMIT) sh -c $(call sq,$(1))
else
submit = printf '%s\n' $(call sq,cd $(call sq,$(CURDIR)) && sh -c $(call sq,$(1))) >> $(SUBMIT_LIST)
endif

.PHONY: commands
commands:
	@rm -f $(O)/commands.txt.tmp
	@$(MAKE) -s --no-print-directory -f $(firstword $(MAKEFILE_LIST)) SUBMIT_LIST=$(O)/commands.txt.tmp $(SIMS)
	@touch $(O)/commands.txt.tmp && mv $(O)/commands.txt.tmp $(O)/commands.txt
	@n=$$(wc -l < $(O)/commands.txt); \
	echo "commands: $(O)/commands.txt ($$n simulations)"; \
	if [ $$n -gt 0 ]; then echo "run them: sbatch --array=1-$$n $(SUBMIT_DIR)slurm-array.sh $(O)/commands.txt"; fi
