# pipelines/apps.mk: the MPI programs the measuring pipelines run, one list
# for pipelines/validate.mk and pipelines/crossnet.mk (included by both).
#
# The including makefile sets BIN and BUILD first, and may set any ARGS_<app>
# or input below before the include to pin its own. It gets the settings both
# pipelines share (ABIN, ABUILD, SAMPLES: the built samples/apps programs,
# TOOLS, AP_SO: the tracer library, and Open MPI's run-as-root variables), and
# per application APP:
#   CMD_APP      the command (run in the run's own work directory)
#   SETUP_APP    an optional setup command before it ($(1): the rank count)
#   PROG_APP     the files it needs; an application without them is left out
# and SAMPLE_APPS, EXTERNAL_APPS (validate.mk's set), MORE_APPS (further
# programs Debian ships), KNOWN_APPS (all), RUN_APPS (the ones of APPS whose
# programs are there), MISSING (the others), and an error for an unknown
# name in APPS.
#
# Applications, with inputs that make one run last at least 50 ms on shared
# memory at 2 ranks (the tracer's start-up and the launch stay small beside
# it) where the program allows it:
#   ring collectives datatypes nonblock persistent wildcard fsample
#       samples/apps (the ones written for several ranks; pingpong is the
#       calibration itself, apbench and faults test the tracer); ARGS_<app>:
#       ring 30000 x 4 KiB (~95 ms), collectives 600 rounds (~110 ms),
#       persistent 80000 (~100-150 ms), wildcard 1024 messages (its largest)
#       in 20 rounds (~70 ms), datatypes 3000 rounds (~70 ms), nonblock 5000
#       repeats (~75 ms), fsample 2000 rounds (~65 ms) (each round the
#       sample's whole sequence again; without the argument one, under 1 ms)
#   lammps-melt lammps-peptide   LAMMPS (lmp) on the melt and peptide
#       examples of lammps-examples (~230 ms and ~2 s)
#   hpcc   HPC Challenge, hpccinf.txt with N=500 NB=32 and a P x Q grid of
#       the ranks (P the largest divisor of the ranks not above its root)
#       (~180 ms)
#   mumps  MUMPS dsimpletest (double precision, mumps-test) on a 5-point
#       Laplacian of a MUMPS_GRID x MUMPS_GRID grid written by the setup
#       (100: 10000 unknowns, ~190 ms); MUMPS_GRID=example uses its 5x5
#       example matrix (~5 ms)
#   netpipe   NetPIPE (netpipe-openmpi, NPopenmpi): a ping-pong over the
#       sizes up to ARGS_netpipe's -u, a fixed number of repeats (-n) so
#       that the work does not depend on the network (-n 200, sizes up to
#       128 KiB: ~115 ms)
#   meep   Meep (meep-openmpi): a 2-D dielectric waveguide, 16 x 8 at
#       resolution 10, run for MEEP_TIME time units (100: 2000 steps of
#       halo exchanges, ~265 ms)
#   mpy    Message Passing Yorick (yorick-mpy-openmpi, mpy.openmpi): a
#       ping-pong written in Yorick, MPY_ITERS round trips of MPY_DOUBLES
#       doubles (8000 x 512: ~70 ms)
#   nwchem NWChem (nwchem-openmpi): the SCF energy of water in 6-31G*
#       (80-120 ms of MPI time between MPI_Init and MPI_Finalize; its ARMCI
#       layer calls MPI_Waitall on no requests)

# Open MPI refuses to run as root without these; harmless otherwise.
export OMPI_ALLOW_RUN_AS_ROOT = 1
export OMPI_ALLOW_RUN_AS_ROOT_CONFIRM = 1

ABIN     := $(abspath $(BIN))
ABUILD   := $(abspath $(BUILD))
SAMPLES  := $(ABUILD)/samples
TOOLS    := $(addprefix $(ABIN)/,allprof trace2goal goalc ibsim cmp-real)
AP_SO    := $(ABUILD)/allprof/liballprof.so

SAMPLE_APPS   ?= ring collectives datatypes nonblock persistent wildcard fsample
EXTERNAL_APPS ?= lammps-melt lammps-peptide hpcc mumps
MORE_APPS     ?= netpipe meep mpy nwchem
KNOWN_APPS    := ring collectives datatypes nonblock persistent wildcard fsample \
                 lammps-melt lammps-peptide hpcc mumps netpipe meep mpy nwchem

ARGS_ring        ?= 30000 4096
ARGS_collectives ?= 600
ARGS_persistent  ?= 80000
ARGS_wildcard    ?= 1024 20
ARGS_datatypes   ?= 3000
ARGS_nonblock    ?= 5000
ARGS_fsample     ?= 2000
ARGS_netpipe     ?= -n 200 -u 131072 -p 0
MUMPS_GRID       ?= 100
MEEP_TIME        ?= 100
MPY_ITERS        ?= 8000
MPY_DOUBLES      ?= 512

LAMMPS_EX ?= /usr/share/lammps/examples
MUMPS_DIR ?= /usr/lib/mumps

# ---- the applications: a command (run in the run's work directory) and an
# ---- optional setup; $(1) is the rank count.
CMD_ring        = $(SAMPLES)/ring $(ARGS_ring)
CMD_collectives = $(SAMPLES)/collectives $(ARGS_collectives)
CMD_datatypes   = $(SAMPLES)/datatypes $(ARGS_datatypes)
CMD_nonblock    = $(SAMPLES)/nonblock $(ARGS_nonblock)
CMD_persistent  = $(SAMPLES)/persistent $(ARGS_persistent)
CMD_wildcard    = $(SAMPLES)/wildcard $(ARGS_wildcard)
CMD_fsample     = $(SAMPLES)/fsample $(ARGS_fsample)
CMD_lammps-melt    = lmp -in $(LAMMPS_EX)/melt/in.melt -log none -screen none
CMD_lammps-peptide = lmp -in in.peptide -log none -screen none
SETUP_lammps-peptide = cp $(LAMMPS_EX)/peptide/in.peptide $(LAMMPS_EX)/peptide/data.peptide .
CMD_hpcc   = hpcc
SETUP_hpcc = $(call hpccinf,$(1)) > hpccinf.txt
CMD_mumps  = $(MUMPS_DIR)/dsimpletest < $(if $(filter example,$(MUMPS_GRID)),$(MUMPS_DIR)/input_simpletest_real,laplace.txt)
SETUP_mumps = $(if $(filter example,$(MUMPS_GRID)),,$(call laplace,$(MUMPS_GRID)) > laplace.txt)
CMD_netpipe = NPopenmpi $(ARGS_netpipe) -o np.out
CMD_meep   = meep waveguide.ctl
SETUP_meep = printf '%s\n' '(set! geometry-lattice (make lattice (size 16 8 no-size)))' \
  '(set! geometry (list (make block (center 0 0) (size infinity 1 infinity) (material (make dielectric (epsilon 12))))))' \
  '(set! sources (list (make source (src (make continuous-src (frequency 0.15))) (component Ez) (center -7 0))))' \
  '(set! pml-layers (list (make pml (thickness 1.0))))' '(set! resolution 10)' '(run-until $(MEEP_TIME))' > waveguide.ctl
CMD_mpy    = mpy.openmpi -batch run.i
SETUP_mpy  = printf '%s\n' 'func pp(n, sz)' '{' '  x = array(0.0, sz);' '  for (i = 1; i <= n; i++) {' \
  '    if (mp_rank == 0) { mp_send, 1, x; x = mp_recv(1); }' '    else if (mp_rank == 1) { x = mp_recv(0); mp_send, 0, x; }' \
  '  }' '}' > pp.i && printf '%s\n' 'mp_include, "pp.i";' 'mp_exec, "pp, $(MPY_ITERS), $(MPY_DOUBLES)";' 'quit;' > run.i
CMD_nwchem = nwchem.openmpi h2o.nw
SETUP_nwchem = printf '%s\n' 'start h2o' 'title "water SCF"' 'geometry units angstroms noautosym' \
  '  O 0.000 0.000 0.000' '  H 0.000 0.757 0.587' '  H 0.000 -0.757 0.587' 'end' 'basis' '  * library 6-31g*' 'end' \
  'task scf energy' > h2o.nw

# hpccinf NP: the HPL/HPCC input, N=500 NB=32, grid P x Q = NP.
hpccinf = p=1; i=1; while [ $$((i * i)) -le $(1) ]; do [ $$(($(1) % i)) = 0 ] && p=$$i; i=$$((i + 1)); done; \
  printf '%s\n' 'HPLinpack benchmark input file' 'ibreplay validation' 'HPL.out      output file name' \
  '8            device out (6=stdout 7=stderr file)' '1            number of problem sizes (N)' \
  '500          Ns' '1            number of NBs' '32           NBs' '0            PMAP process mapping' \
  '1            number of process grids (P x Q)' "$$p            Ps" "$$(($(1) / p))            Qs" \
  '16.0         threshold' '1            number of panel fact' '2            PFACTs' \
  '1            number of recursive stopping criteria' '4            NBMINs' '1            number of panels in recursion' \
  '2            NDIVs' '1            number of recursive panel fact.' '1            RFACTs' '1            number of broadcast' \
  '1            BCASTs' '1            number of lookahead depth' '1            DEPTHs' '2            SWAP' \
  '64           swapping threshold' '0            L1 form' '0            U form' '1            Equilibration' \
  '8            memory alignment in double' '----- line 32 is ignored (a separator) -----' \
  '0            number of additional problem sizes for PTRANS' '1200         values of N' \
  '0            number of additional blocking sizes for PTRANS' '32           values of NB'

# laplace K: dsimpletest's input for the 5-point Laplacian of a K x K grid
# (N, NZ, the entries "i j value", then N right-hand sides).
laplace = awk -v k=$(1) 'BEGIN { n = k * k; print n; print n * 5 - 4 * k; \
  for (i = 0; i < k; i++) for (j = 0; j < k; j++) { r = i * k + j + 1; print r, r, "4.0"; \
    if (i > 0) print r, r - k, "-1.0"; if (i < k - 1) print r, r + k, "-1.0"; \
    if (j > 0) print r, r - 1, "-1.0"; if (j < k - 1) print r, r + 1, "-1.0" } \
  for (r = 1; r <= n; r++) print "1.0" }'

# Which program each application needs; an application without it is left out.
which = $(firstword $(shell command -v $(1) 2>/dev/null) /nonexistent/$(1))
PROG_ring        = $(SAMPLES)/ring
PROG_collectives = $(SAMPLES)/collectives
PROG_datatypes   = $(SAMPLES)/datatypes
PROG_nonblock    = $(SAMPLES)/nonblock
PROG_persistent  = $(SAMPLES)/persistent
PROG_wildcard    = $(SAMPLES)/wildcard
PROG_fsample     = $(SAMPLES)/fsample
PROG_lammps-melt    = $(call which,lmp) $(LAMMPS_EX)/melt/in.melt
PROG_lammps-peptide = $(call which,lmp) $(LAMMPS_EX)/peptide/in.peptide
PROG_hpcc    = $(call which,hpcc)
PROG_mumps   = $(MUMPS_DIR)/dsimpletest $(if $(filter example,$(MUMPS_GRID)),$(MUMPS_DIR)/input_simpletest_real)
PROG_netpipe = $(call which,NPopenmpi)
PROG_meep    = $(call which,meep)
PROG_mpy     = $(call which,mpy.openmpi)
PROG_nwchem  = $(call which,nwchem.openmpi)

# The sample programs are built by the top-level Makefile (mpif90 decides
# whether fsample exists), so they are looked for after `tools` has run; the
# third-party ones must be there now.
is_sample = $(filter $(1),$(SAMPLE_APPS))
have = $(if $(call is_sample,$(1)),$(if $(wildcard $(SRC_$(1))),y),$(if $(strip $(foreach f,$(PROG_$(1)),$(if $(wildcard $(f)),,n))),,y))
SRC_fsample = $(if $(shell command -v mpif90 2>/dev/null),samples/apps/fsample.f90)
$(foreach a,ring collectives datatypes nonblock persistent wildcard,$(eval SRC_$(a) = samples/apps/$(a).c))

UNKNOWN  := $(strip $(foreach a,$(APPS),$(if $(filter $(a),$(KNOWN_APPS)),,$(a))))
$(if $(UNKNOWN),$(error unknown application '$(firstword $(UNKNOWN))' in APPS (known: $(KNOWN_APPS))))
RUN_APPS := $(foreach a,$(APPS),$(if $(call have,$(a)),$(a)))
MISSING  := $(filter-out $(RUN_APPS),$(APPS))
