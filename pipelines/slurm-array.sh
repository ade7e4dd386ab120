#!/bin/sh
# pipelines/slurm-array.sh: one task of a Slurm job array over a sweep's
# simulations. LIST is the file that `make -f pipelines/<sweep>.mk commands`
# writes (pipelines/submit.mk): one shell command line per simulation. Task
# I runs line I:
#
#   sbatch --array=1-N pipelines/slurm-array.sh OUT/commands.txt
#   sbatch --dependency=afterok:JOBID --wrap "make -f pipelines/<sweep>.mk ..."
#
# Add --array=1-N%K to run at most K at once, and the site's options
# (partition, account, --time) on the sbatch line or as #SBATCH lines in a
# copy of this file. A command that fails fails its task, so the collecting
# job's afterok dependency is never satisfied and make does not collect a
# partial sweep. (A simulation ibsim refuses is no failure: it leaves a
# "# failed" result and the table says so.)
#SBATCH --job-name=ibreplay-sweep
#SBATCH --ntasks=1
set -u
list=${1:?usage: sbatch --array=1-N slurm-array.sh LIST}
i=${SLURM_ARRAY_TASK_ID:?not a Slurm array task (SLURM_ARRAY_TASK_ID unset)}
line=$(sed -n "${i}p" "$list")
if [ -z "$line" ]; then
	echo "slurm-array.sh: $list: no line $i" >&2
	exit 1
fi
exec sh -c "$line"
