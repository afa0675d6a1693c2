#!/bin/bash
# Runs a seisfd job on this machine's CPU cores with mpirun, without a
# scheduler: RANKS MPI ranks (Z slabs), each with an equal share of the cores
# as OpenMP threads.
#   jobs/cpu-local.sh JOB.yaml [RANKS]
#
# What to set:
#   RANKS              the second argument (default 2)
#   OMP_NUM_THREADS    threads per rank (default: the cores / RANKS, at least 1)
#   MPIRUN             the launcher (default mpirun)
set -euo pipefail
job=${1:?usage: jobs/cpu-local.sh JOB.yaml [RANKS]}
ranks=${2:-2}
cores=$(nproc)
threads=${OMP_NUM_THREADS:-$(( cores / ranks > 0 ? cores / ranks : 1 ))}
flags=(--oversubscribe)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
here=$(cd "$(dirname "$0")/.." && pwd)
# exec: Ctrl-C and kill reach mpirun itself, which passes them on to the
# ranks (SIGINT and SIGTERM as SIGTERM, SIGUSR1 as it is; docs/user-guide.md, "Signals").
exec "${MPIRUN:-mpirun}" "${flags[@]}" -np "$ranks" -x OMP_NUM_THREADS="$threads" \
    -x OMP_PROC_BIND=close "$here/bin/seisfd" run "$job"
