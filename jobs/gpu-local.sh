#!/bin/bash
# Runs a seisfd job on this machine's GPUs with mpirun, without a scheduler:
# one rank per GPU (seisfd gives node-local rank r GPU r mod GPUs and binds
# it to the cores nearest that GPU), or RANKS ranks, which then share the
# GPUs round-robin.
#   jobs/gpu-local.sh JOB.yaml [RANKS]
#
# What to set:
#   RANKS              the second argument (default: the GPUs nvidia-smi lists)
#   OMP_NUM_THREADS    host threads per rank (default: seisfd's, the cores
#                      nearest the rank's GPU, no more than the cores / RANKS)
#   CUDA_VISIBLE_DEVICES  to use only some of the GPUs (nvidia-smi still lists all)
#   MPIRUN             the launcher (default mpirun)
#   SEISFD_GPU_AWARE_MPI  halo buffers in device memory: auto (default) asks
#                      the MPI, on trusts it, off stages through the host
#   SEISFD_UCX_MPIRUN_FLAGS  mpirun options for a UCX built with CUDA
#                      (set by the env.sh of jobs/ucx-cuda.sh)
# The job file should say run.device: cuda (auto also takes the GPU).
set -euo pipefail
job=${1:?usage: jobs/gpu-local.sh JOB.yaml [RANKS]}
gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
[ "$gpus" -gt 0 ] || { echo "gpu-local.sh: no GPU found (nvidia-smi)" >&2; exit 1; }
if [ -n "${CUDA_VISIBLE_DEVICES:-}" ]; then
    gpus=$(tr ',' '\n' <<<"$CUDA_VISIBLE_DEVICES" | grep -c .)
fi
ranks=${2:-$gpus}
export SEISFD_GPU_AWARE_MPI=${SEISFD_GPU_AWARE_MPI:-auto}
export UCX_MEMTYPE_CACHE=n   # Open MPI + UCX: never take device memory for host memory
# No mpirun binding: seisfd binds each rank near its GPU itself.
flags=(--bind-to none)
read -r -a ucx <<<"${SEISFD_UCX_MPIRUN_FLAGS:-}"
flags+=("${ucx[@]}")
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root --oversubscribe)
[ -n "${OMP_NUM_THREADS:-}" ] && flags+=(-x OMP_NUM_THREADS)
here=$(cd "$(dirname "$0")/.." && pwd)
# exec: Ctrl-C and kill reach mpirun itself, which passes them on to the
# ranks (SIGINT and SIGTERM as SIGTERM, SIGUSR1 as it is; docs/user-guide.md, "Signals").
exec "${MPIRUN:-mpirun}" "${flags[@]}" -np "$ranks" "$here/bin/seisfd" run "$job"
