#!/bin/bash
# Runs a seisfd job on this machine's CPU cores with mpirun, without a
# scheduler: RANKS MPI ranks (Z slabs), each bound to its share of the
# cores, where seisfd runs that many OpenMP threads. `make run JOB=...
# RANKS=...` runs this script.
#   jobs/cpu-local.sh JOB.yaml [RANKS]
#
# What to set:
#   RANKS              the second argument (default 2); more ranks than cores
#                      run unbound (--oversubscribe), one thread each, slowly
#   OMP_NUM_THREADS    threads per rank (default: seisfd gives each rank its
#                      share of the cores)
#   MPIRUN             the launcher (default mpirun)
#   SEISFD             the program (default bin/seisfd beside this script)
set -euo pipefail
job=${1:?usage: jobs/cpu-local.sh JOB.yaml [RANKS]}
ranks=${2:-2}
[[ $ranks =~ ^[1-9][0-9]*$ ]] || { echo "cpu-local.sh: RANKS must be a whole number above 0, not '$ranks'" >&2; exit 2; }
here=$(cd "$(dirname "$0")/.." && pwd)
# Open MPI's slots: the cores (not hardware threads) this shell may use.
per_core=$(lscpu --parse=CORE 2>/dev/null | grep -v '^#' | sort | uniq -c | awk 'NR == 1 {print $1}')
cores=$(( $(nproc) / ${per_core:-1} ))
[ "$cores" -gt 0 ] || cores=1
flags=()
[ "$(id -u)" = 0 ] && flags+=(--allow-run-as-root)
if [ "$ranks" -gt "$cores" ]; then
    flags+=(--oversubscribe --bind-to none)
else
    flags+=(--map-by "slot:PE=$(( cores / ranks ))")
fi
[ -n "${OMP_NUM_THREADS:-}" ] && flags+=(-x OMP_NUM_THREADS)
command=("${MPIRUN:-mpirun}" "${flags[@]}" -np "$ranks" "${SEISFD:-$here/bin/seisfd}" run "$job")
echo "${command[*]}" >&2
# exec: Ctrl-C and kill reach mpirun itself, which passes them on to the
# ranks (SIGINT and SIGTERM as SIGTERM, SIGUSR1 as it is; docs/user-guide.md, "Signals").
exec "${command[@]}"
