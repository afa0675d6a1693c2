#!/bin/bash
# Runs a seisfd job on this machine with mpirun: RANKS MPI ranks, each with
# an equal share of the cores as OpenMP threads.
#   jobs/cpu-local.sh JOB.yaml [RANKS]
set -euo pipefail
job=${1:?usage: jobs/cpu-local.sh JOB.yaml [RANKS]}
ranks=${2:-2}
cores=$(nproc)
threads=$(( cores / ranks > 0 ? cores / ranks : 1 ))
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
here=$(cd "$(dirname "$0")/.." && pwd)
exec mpirun "${flags[@]}" -np "$ranks" -x OMP_NUM_THREADS="$threads" -x OMP_PROC_BIND=close \
    "$here/bin/seisfd" run "$job"
