#!/bin/bash
# Makes Open MPI built with UCX but without CUDA take device buffers: unpacks
# UCX built with CUDA (the PyPI wheel libucx-cu12, fetched with pip, so run
# this where PyPI can be reached and copy PREFIX to the GPU machine) and
# writes PREFIX/env.sh, which puts it first on the library path and sets
#   SEISFD_UCX_MPIRUN_FLAGS   mpirun options: --mca pml ucx and the -x
#                             exports every rank needs
#   UCX_MEMTYPE_CACHE=n       UCX otherwise may take a device buffer for host
#                             memory (seen: small sends crash, large ones hang;
#                             seisfd sets it itself where it is unset)
# seisfd's gpu_aware_mpi: auto then takes device buffers: it asks the UCX that
# Open MPI loaded, since such an Open MPI's MPIX_Query_cuda_support answers 0.
# Then: . PREFIX/env.sh && mpirun $SEISFD_UCX_MPIRUN_FLAGS -np 2 bin/seisfd run job.yaml
#   jobs/ucx-cuda.sh PREFIX [VERSION]      (default VERSION 1.22.0)
set -euo pipefail
prefix=${1:?usage: jobs/ucx-cuda.sh PREFIX [VERSION]}
version=${2:-1.22.0}
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
python3 -m pip download --quiet --no-deps --only-binary=:all: --python-version 3.12 \
    --implementation cp --platform manylinux_2_28_x86_64 --dest "$wheels" "libucx-cu12==$version"
mkdir -p "$prefix"
python3 - "$wheels" "$prefix" <<'PY'
import glob, os, sys, zipfile
wheel = glob.glob(os.path.join(sys.argv[1], "libucx_cu12-*.whl"))[0]
with zipfile.ZipFile(wheel) as z:
    # The libraries and transport modules by their sonames (a wheel holds each
    # name of a library as a copy); the perftest module is large and unused.
    for name in z.namelist():
        if name.startswith("libucx/lib/") and name.endswith(".so.0") and "perftest" not in name:
            z.extract(name, sys.argv[2])
PY
# UCX loads its modules by their unversioned names.
for library in "$prefix"/libucx/lib/*.so.0 "$prefix"/libucx/lib/ucx/*.so.0; do
    ln -sf "$(basename "$library")" "${library%.0}"
done
cat >"$prefix/env.sh" <<'ENV'
# Written by seisfd's jobs/ucx-cuda.sh: source it before mpirun.
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
export LD_LIBRARY_PATH="$here/libucx/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export UCX_MODULE_DIR="$here/libucx/lib/ucx"
export UCX_MEMTYPE_CACHE=n
export SEISFD_UCX_MPIRUN_FLAGS="--mca pml ucx -x LD_LIBRARY_PATH -x UCX_MODULE_DIR -x UCX_MEMTYPE_CACHE"
unset here
ENV
echo "jobs/ucx-cuda.sh: UCX $version with CUDA in $prefix; source $prefix/env.sh"
