#!/bin/bash
# Runs a seisfd job on this machine's GPUs with mpirun: one rank per GPU
# (or RANKS ranks, which then share the GPUs round-robin).
#   jobs/gpu-local.sh JOB.yaml [RANKS]
set -euo pipefail
job=${1:?usage: jobs/gpu-local.sh JOB.yaml [RANKS]}
gpus=$(nvidia-smi --list-gpus 2>/dev/null | wc -l)
[ "$gpus" -gt 0 ] || { echo "gpu-local.sh: no GPU found (nvidia-smi)" >&2; exit 1; }
ranks=${2:-$gpus}
flags=(--bind-to none)
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root --oversubscribe)
here=$(cd "$(dirname "$0")/.." && pwd)
exec mpirun "${flags[@]}" -np "$ranks" "$here/bin/seisfd" run "$job"
