#!/bin/bash
# One pass over the CUDA backend on a GPU machine: a clean build, the
# kernels' register report and SASS, compute-sanitizer on small jobs, the
# GPU tests (on both halo paths), the benchmark with several options, an
# ncu profile of one time step and, with two GPUs or more, the exchange
# rates and 2-GPU efficiencies of both halo paths. The logs end up in
# $OUT/logs.tgz (default out/gpu-check) and a summary is printed last.
#   jobs/gpu-check.sh                 everything
#   STAGES="build test bench" jobs/gpu-check.sh
# CUDA_ARCH_FLAGS defaults to Hopper only; a prefix with the dependencies
# (.deps/env.sh from deps-bundle.sh) is used when present. Where the MPI
# does not take device memory itself, a UCX built with CUDA (SEISFD_UCX,
# default .ucx, made by jobs/ucx-cuda.sh here or on a machine with PyPI)
# lets Open MPI take it, so the device-buffer tests and benchmarks run.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-out/gpu-check}
mkdir -p "$out"
stages=" ${STAGES:-build sanitize test bench profile halo} "
summary="$out/summary.txt"
: >"$summary"
# The logs travel back as one archive beside the summary, which is printed last.
finish() {
    tar -czf /tmp/gpu-check-logs.tgz -C "$out" --exclude summary.txt . 2>/dev/null
    find "$out" -mindepth 1 ! -name summary.txt -delete
    mv /tmp/gpu-check-logs.tgz "$out/logs.tgz"
    echo
    echo "==== summary"
    cat "$summary"
}
trap finish EXIT
note() { echo "$*" | tee -a "$summary"; }
wants() { [[ $stages == *" $1 "* ]]; }

if [ -f .deps/env.sh ]; then
    # shellcheck source=/dev/null  # written by deps-bundle.sh, not in the repository
    . .deps/env.sh
    export PKG_CONFIG_PATH=$PWD/.deps/usr/lib/x86_64-linux-gnu/pkgconfig${PKG_CONFIG_PATH:+:$PKG_CONFIG_PATH}
fi
export PYTHONUNBUFFERED=1 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
ucx=${SEISFD_UCX:-.ucx}
if [ -f "$ucx/env.sh" ] || jobs/ucx-cuda.sh "$ucx" >"$out/ucx.log" 2>&1; then
    # shellcheck source=/dev/null  # written by jobs/ucx-cuda.sh
    . "$ucx/env.sh"
    unset SEISFD_GPU_AWARE_MPI   # each stage below picks its halo path itself
    note "ucx: $ucx (UCX with CUDA): mpirun $SEISFD_UCX_MPIRUN_FLAGS"
else
    note "ucx: none in $ucx and none could be fetched (ucx.log): device buffers only where the MPI takes them itself"
fi
arch=${CUDA_ARCH_FLAGS:--gencode=arch=compute_90,code=sm_90}
make_args=("CUDA_ARCH_FLAGS=$arch" "PYTHON=${PYTHON:-python3}")
ldconfig -p | grep -q 'libudev.so.1 ' || make_args+=(HWLOC=0)
mpirun_=(mpirun --oversubscribe)
[ "$(id -u)" = 0 ] && mpirun_+=(--allow-run-as-root)

nvidia-smi --query-gpu=name,memory.total,clocks.max.sm,clocks.max.mem,driver_version --format=csv,noheader |
    sed 's/^/gpu: /' | tee -a "$summary"

if wants build; then
    make clean >/dev/null
    start=$SECONDS
    if ! make -j"$(nproc)" "${make_args[@]}" >"$out/build.log" 2>&1; then
        tail -40 "$out/build.log"
        note "build: FAILED"
        exit 1
    fi
    note "build: $((SECONDS - start)) s, $(grep -ci 'warning' "$out/build.log") warnings"
    bin/seisfd --version | tee -a "$summary"
    # Registers, spills and stack of every kernel instantiation.
    # shellcheck disable=SC2086  # $arch may hold several -gencode flags
    # shellcheck disable=SC2046  # one flag per word
    nvcc -O3 -std=c++17 $arch -Iinclude -DOMPI_SKIP_MPICXX -DMPICH_SKIP_MPICXX $(mpicc --showme:compile | tr ' ' '\n' | grep -E '^-[ID]') \
        -Xptxas -v -c src/backends/cuda/kernels/stencil.cu -o /tmp/stencil.o 2>"$out/ptxas.txt"
    python3 - "$out/ptxas.txt" <<'PY' | tee -a "$summary"
import re, sys
name, report = None, {}
for line in open(sys.argv[1]):
    m = re.search(r"(frame_kernel|interior_kernel)ILi(\d)EEv", line)
    if "Compiling entry" in line:
        name = f"{m[1]} R{m[2]}" if m else None
    elif name and "stack frame" in line:
        report[name] = line.strip().split(",")[0] + ", spills" + line.split("spill stores")[0].split(",")[-1]
    elif name and "registers" in line:
        print(f"  ptxas {name}: {line.split(':')[-1].split(',')[0].strip()}, {report[name]}")
PY
    for kernel in frame interior; do
        symbol=$(cuobjdump -sass build/src/backends/cuda/kernels/stencil.o | grep -oE "_Z[0-9]+${kernel}_kernelILi4E[A-Za-z0-9_]*" | head -1)
        cuobjdump -sass -fun "$symbol" build/src/backends/cuda/kernels/stencil.o >"$out/sass-$kernel.txt" 2>&1
        note "  SASS R4 $kernel: $(grep -oE '(LDG|STG|LDS|STS|LDL|STL|BAR)[.A-Z0-9]*' \
            "$out/sass-$kernel.txt" | sort | uniq -c | tr -s ' ' | tr '\n' ',')"
    done
fi

small_job() {   # FILE STEPS CPML NX: free surface; with 31 planes a z layer spans 2 slabs
    cat >"$1" <<EOF
{"grid": {"nx": $4, "ny": 36, "nz": 31, "dx": 10, "dy": 10, "dz": 10},
 "time": {"dt": 0.001, "nt": $2},
 "model": {"type": "layered", "layers": [{"top": 0, "vp": 1800}, {"top": 150, "vp": 2600}]},
 "boundaries": {"cpml": $3, "free_surface": true},
 "source": {"position": [201.3, 178.1, 103.3], "frequency": 12},
 "receivers": {"points": [[150.5, 170.2, 15.5], [250.1, 180.3, 255.7]]},
 "output": {"gather": "$1.h5", "overwrite": true}, "run": {"device": "cuda"}}
EOF
}

sanitize() {   # TOOL RANKS JOB [ENV...]
    local tool=$1 ranks=$2 job=$3
    shift 3
    local log
    log="$out/sanitize-$tool-$(basename "$job" .yaml)-$ranks.log"
    env "$@" timeout 120 "${mpirun_[@]}" -np "$ranks" compute-sanitizer --tool "$tool" \
        --error-exitcode 9 bin/seisfd run "$job" >"$log" 2>&1
    note "compute-sanitizer $tool $(basename "$job") $ranks ranks $*: exit $?;" \
        "$(grep -hE 'SUMMARY' "$log" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')"
}

if wants sanitize; then
    small_job /tmp/layers.yaml 30 8 40     # frame tiles only
    small_job /tmp/bare.yaml 12 0 61       # interior tiles only, an odd nx
    small_job /tmp/clipped.yaml 20 8 100   # an interior row ending inside a group, clipped frame tiles
    for job in layers bare clipped; do sanitize memcheck 2 /tmp/$job.yaml; done
    for job in layers bare clipped; do sanitize racecheck 1 /tmp/$job.yaml; done
fi

if wants test; then
    timeout "${TEST_SECONDS:-540}" make test-gpu "${make_args[@]}" 2>&1 | tee "$out/test-gpu.log"
    note "test-gpu: $(grep -E '^[0-9]+ passed' "$out/test-gpu.log" || echo 'did not finish')"
    grep -E '^(FAILED|skipped)' "$out/test-gpu.log" | cut -c1-300 | tee -a "$summary"
fi

bench() {   # bench LABEL RANKS ENV... -- ARGS...
    local label=$1 ranks=$2
    shift 2
    local envs=()
    while [ "$1" != "--" ]; do envs+=("$1"); shift; done
    shift
    local log="$out/bench-${label// /_}.log"
    env "${envs[@]}" timeout 150 "${mpirun_[@]}" -np "$ranks" bin/seisfd bench --device cuda "$@" >"$log" 2>&1
    local wall kern copy
    wall=$(sed -nE 's/.*throughput +([0-9.]+) Gpoints.*/\1/p' "$log" | head -1)
    kern=$(sed -nE 's/.*stencil kernels.*= ([0-9.]+) Gpoints\/s = ([0-9.]+) of.*/\1 (\2)/p' "$log")
    copy=$(sed -nE 's/.*copy bandwidth +([0-9.]+) GB.*/\1/p' "$log")
    printf '  %-24s wall %8s Gpts/s   kernels %-16s copy %s GB/s\n' "$label" "${wall:-FAIL}" \
        "${kern:-?}" "${copy:-?}" | tee -a "$summary"
}

if wants bench; then
    note "bench: bin/seisfd bench --device cuda [args] (1000^3, CPML 20, 100 steps unless noted);"
    note "  kernels = CUDA-event time of the stencil phase, (its ratio to the copy bandwidth)"
    bench "default" 1 --
    bench "default, again" 1 --
    bench "--cpml 0" 1 -- --cpml 0
    bench "--order 4" 1 -- --order 4
    bench "--order 2" 1 -- --order 2
    bench "--size 512" 1 -- --size 512
    bench "2 ranks on 1 GPU 800" 2 -- --size 800
    grep -E "^  (copy|halo|stencil|time loop)" "$out/bench-2_ranks_on_1_GPU_800.log" | tee -a "$summary"
fi

# bench_path LABEL RANKS host|device BENCH-ARGS...: one bench run on a halo
# path; prints its throughput and halo times and keeps the rate in rate[LABEL].
declare -A rate
bench_path() {
    local label=$1 ranks=$2 path=$3
    shift 3
    local flags=() aware=off log
    if [ "$path" = device ]; then
        read -r -a flags <<<"${SEISFD_UCX_MPIRUN_FLAGS:-}"
        aware=on
    fi
    log="$out/halo-${label//[^A-Za-z0-9]/_}.log"
    SEISFD_GPU_AWARE_MPI=$aware timeout 200 "${mpirun_[@]}" --bind-to none "${flags[@]}" \
        -np "$ranks" bin/seisfd bench --device cuda "$@" >"$log" 2>&1
    rate[$label]=$(sed -nE 's/.*throughput +([0-9.]+) Gpoints.*/\1/p' "$log" | head -1)
    local halo mpi exposed
    halo=$(sed -nE 's/^  halo buffers +([a-z ]+).*/\1/p' "$log")
    mpi=$(sed -nE 's/^  halo exchange +([0-9.]+).*/\1/p' "$log")
    exposed=$(sed -nE 's/^  halo exposed +([0-9.]+).*/\1/p' "$log")
    printf '  %-34s %-15s %9s Gpts/s   MPI %6s s   exposed %6s s\n' "$label" "${halo:-?}" \
        "${rate[$label]:-FAIL}" "${mpi:--}" "${exposed:--}" | tee -a "$summary"
}

# The 2-GPU efficiency of rate[two] against rate[one]: the same formula
# serves strong (same grid) and weak (twice the grid) series.
efficiency() {
    python3 -c "import sys; a, b = map(float, sys.argv[1:]); print(f'{100 * b / (2 * a):.1f}%')" \
        "${rate[$1]:-0}" "${rate[$2]:-0}" 2>/dev/null || echo "?"
}

if wants halo && [ "$(nvidia-smi --list-gpus | wc -l)" -ge 2 ]; then
    note "halo: bench --exchange on 2 GPUs, then bench on 1 GPU and 2 GPUs per halo path"
    SEISFD_GPU_AWARE_MPI=on timeout 120 "${mpirun_[@]}" --bind-to none \
        ${SEISFD_UCX_MPIRUN_FLAGS:-} -np 2 bin/seisfd bench --exchange >"$out/halo-exchange.log" 2>&1
    grep -E "^  (halo buffers|exchange|bytes| +[0-9]+ MiB)" "$out/halo-exchange.log" | tee -a "$summary"
    for job in "acoustic 1000 cpml0:--cpml 0" "acoustic 1000 cpml20:" \
               "elastic 768 cpml0:--physics elastic --size 768 --cpml 0" \
               "elastic 768 cpml20:--physics elastic --size 768"; do
        name=${job%%:*}
        read -r -a args <<<"${job#*:}"
        bench_path "$name, 1 GPU" 1 host "${args[@]}"
        bench_path "$name, 2 GPUs host" 2 host "${args[@]}"
        bench_path "$name, 2 GPUs device" 2 device "${args[@]}"
    done
    for job in "acoustic 1000x1000x512 cpml0:--size 1000 --cpml 0:512" \
               "acoustic 1000x1000x512 cpml20:--size 1000:512" \
               "elastic 512^3 cpml0:--physics elastic --size 512 --cpml 0:512" \
               "elastic 512^3 cpml20:--physics elastic --size 512:512"; do
        name=${job%%:*}
        rest=${job#*:}
        read -r -a args <<<"${rest%%:*}"
        nz=${rest##*:}
        bench_path "weak $name, 1 GPU" 1 host "${args[@]}" --nz "$nz"
        bench_path "weak $name, 2 GPUs device" 2 device "${args[@]}" --nz $((2 * nz))
    done
    note "2-GPU efficiency with device buffers (host staging):"
    for name in "acoustic 1000 cpml0" "acoustic 1000 cpml20" "elastic 768 cpml0" "elastic 768 cpml20"; do
        note "  strong $name: $(efficiency "$name, 1 GPU" "$name, 2 GPUs device")" \
             "($(efficiency "$name, 1 GPU" "$name, 2 GPUs host"))"
    done
    for name in "acoustic 1000x1000x512 cpml0" "acoustic 1000x1000x512 cpml20" "elastic 512^3 cpml0" \
                "elastic 512^3 cpml20"; do
        note "  weak $name: $(efficiency "weak $name, 1 GPU" "weak $name, 2 GPUs device")"
    done
fi

if wants profile; then
    # The third step of 512^3 (22 kernels): each one's time and DRAM throughput.
    timeout 150 ncu --clock-control none \
        --kernel-name regex:'frame|interior|memory' --launch-skip 44 --launch-count 22 \
        --section SpeedOfLight --section Occupancy --section LaunchStats \
        bin/seisfd bench --device cuda --size 512 --steps 3 --warmup 1 >"$out/ncu.txt" 2>&1
    note "ncu (512^3, exit $?): kernel, grid, duration, DRAM throughput, achieved occupancy"
    python3 - "$out/ncu.txt" <<'PY' | tee -a "$summary"
import re, sys
rows, cur = [], None
for line in open(sys.argv[1], errors="replace"):
    m = re.match(r"\s+(?:void )?(\w+_kernel)<([^>]*)>", line)
    if m:
        cur = {"name": f"{m[1]}<{m[2]}>"}
        rows.append(cur)
        continue
    f = line.split()
    if cur is None or len(f) < 2:
        continue
    key = " ".join(f[:2])
    if f[0] == "Duration":
        cur["time"] = f[-1] + " " + f[-2]
    elif key == "DRAM Throughput":
        cur["dram"] = f[-1] + "%"
    elif key == "Grid Size":
        cur["grid"] = f[-1]
    elif key == "Achieved Occupancy":
        cur["occ"] = f[-1] + "%"
for r in rows:
    print(f"  {r['name']:<32} grid {r.get('grid', '?'):>8} {r.get('time', '?'):>12} "
          f"DRAM {r.get('dram', '?'):>7} occupancy {r.get('occ', '?')}")
if not rows:
    print("  (no kernels parsed; the end of ncu's output:)")
    print("".join(open(sys.argv[1], errors="replace").readlines()[-8:]))
PY
fi
