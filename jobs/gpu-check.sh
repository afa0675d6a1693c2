#!/bin/bash
# One pass over the CUDA backend on a GPU machine: a clean build, the
# kernels' register report and SASS, compute-sanitizer on small jobs (the
# guard's sums every 5 steps), the GPU tests (on both halo paths), the
# benchmark with several options, an ncu profile of one time step and the
# series on 1, 2 and 4 GPUs (as many as there are: SERIES picks its parts,
# "costs strong weak staged survey"). The logs end up in $OUT/logs.tgz
# (default out/gpu-check) and a summary is printed last.
#   jobs/gpu-check.sh                 everything
#   STAGES="build test bench" jobs/gpu-check.sh
# CUDA_ARCH_FLAGS defaults to Hopper only; a prefix with the dependencies
# (.deps/env.sh from jobs/deps-bundle.sh .deps) is used when present. Where the MPI
# does not take device memory itself, a UCX built with CUDA (SEISFD_UCX,
# default .ucx, made by jobs/ucx-cuda.sh here or on a machine with PyPI)
# lets Open MPI take it, so the device-buffer tests and benchmarks run.
set -uo pipefail
cd "$(dirname "$0")/.." || exit 1
out=${OUT:-out/gpu-check}
mkdir -p "$out"
stages=" ${STAGES:-build sanitize test bench profile series} "
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
    # shellcheck source=/dev/null  # written by jobs/deps-bundle.sh
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

small_job() {   # FILE STEPS CPML NX [tti|visco_acoustic|visco_elastic]: free surface; with 31 planes a z layer spans 2 slabs
    local physics='"acoustic"' extra=''
    case "${5:-}" in
    tti) physics='"tti"' extra=', "epsilon": 0.2, "delta": 0.1, "theta": 40, "phi": 30' ;;
    visco_acoustic) physics='"visco_acoustic"' extra=', "qp": 40' ;;
    visco_elastic) physics='"visco_elastic"' extra=', "vs": 1000, "rho": 2000, "qp": 40, "qs": 30' ;;
    esac
    cat >"$1" <<EOF
{"grid": {"nx": $4, "ny": 36, "nz": 31, "dx": 10, "dy": 10, "dz": 10},
 "time": {"dt": 0.001, "nt": $2}, "physics": {"type": $physics},
 "model": {"type": "layered", "layers": [{"top": 0, "vp": 1800$extra}, {"top": 150, "vp": 2600$extra}]},
 "boundaries": {"cpml": $3, "free_surface": true},
 "source": {"position": [201.3, 178.1, 103.3], "frequency": 12},
 "receivers": {"points": [[150.5, 170.2, 15.5], [250.1, 180.3, 255.7]]},
 "output": {"gather": "$1.h5", "overwrite": true}, "run": {"device": "cuda", "check_every": 5}}
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
    small_job /tmp/tilted.yaml 20 8 40 tti # TTI's kernels, its stretched mixed derivatives in the layers
    small_job /tmp/lossy.yaml 20 8 100 visco_acoustic   # the relaxing stencil, clipped groups too
    small_job /tmp/lossy-elastic.yaml 20 8 40 visco_elastic   # the relaxing stress kernels
    for job in layers bare clipped tilted lossy lossy-elastic; do sanitize memcheck 2 /tmp/$job.yaml; done
    for job in layers bare clipped tilted lossy lossy-elastic; do sanitize racecheck 1 /tmp/$job.yaml; done
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

# series LABEL GPUS PATH BENCH-ARGS...: one bench run on GPUS GPUs (one rank
# each) with the halo path PATH: auto (launched as a GPU-aware MPI needs,
# where jobs/ucx-cuda.sh gave one), host (staging forced, Open MPI's own
# transport) or host-ucx (staging through UCX's); its rate, the
# path auto chose and each rank's predicted and measured compute time per
# step go to series.csv and the summary, its report to reports/.
series() {
    local label=$1 gpus=$2 path=$3
    shift 3
    local flags=() aware=off log report
    [ "$path" != host ] && read -r -a flags <<<"${SEISFD_UCX_MPIRUN_FLAGS:-}"
    [ "$path" = auto ] && aware=auto
    log="$out/series-${label//[^A-Za-z0-9]/_}.log"
    report="$out/reports/${label//[^A-Za-z0-9]/_}.json"
    mkdir -p "$out/reports"
    SEISFD_GPU_AWARE_MPI=$aware timeout 240 "${mpirun_[@]}" --bind-to none "${flags[@]}" \
        -np "$gpus" bin/seisfd bench --device cuda --report "$report" "$@" >"$log" 2>&1
    python3 - "$label" "$gpus" "$path" "$log" "$report" "$out/series.csv" "$*" <<'PY' | tee -a "$summary"
import json, os, re, sys
label, gpus, path, log, report, csv, args = sys.argv[1:]
text = open(log, errors="replace").read()
rate = re.search(r"throughput +([\d.]+) Gpoints", text)
halo = re.search(r"^  halo buffers +([a-z ]+?)(,|$)", text, re.M)
slabs = []
if os.path.exists(report):
    slabs = [p["slab"] for p in json.load(open(report))["processes"]]
times = " ".join(f"{s['planes']}:{1e3 * s['predicted_compute_seconds_per_step']:.2f}/"
                 f"{1e3 * s['measured_compute_seconds_per_step']:.2f}" for s in slabs)
new = not os.path.exists(csv)
with open(csv, "a") as f:
    if new:
        f.write("label,gpus,path,halo,gpoints_per_s,slabs_planes_predicted_measured_ms,args\n")
    f.write(f"{label},{gpus},{path},{halo.group(1) if halo else '?'},"
            f"{rate.group(1) if rate else 'FAIL'},{times},{args}\n")
print(f"  {label:<40} {halo.group(1) if halo else '?':<15} "
      f"{rate.group(1) if rate else 'FAIL':>8} Gpts/s  planes:pred/meas ms {times}")
if not rate:
    print("    " + "\n    ".join(text.strip().splitlines()[-6:]))
PY
}

gpu_count=$(nvidia-smi --list-gpus | wc -l)
counts=()
for g in 1 2 4; do [ "$g" -le "$gpu_count" ] && counts+=("$g"); done
parts=" ${SERIES:-costs strong weak staged survey} "
part() { [[ $parts == *" $1 "* ]]; }
# GPU counts of the strong and weak series (of those there are), e.g. "4".
only() { local g; for g in "${counts[@]}"; do [[ " ${1:-${counts[*]}} " == *" $g "* ]] && echo "$g"; done; }

if wants series; then
    note "series on ${counts[*]} GPUs (SERIES=\"${parts# }\"): bench --device cuda, one rank a GPU, slabs cut by cost"
    if part costs; then
        # This GPU's plane costs for every physics, used by the runs below.
        for physics in acoustic elastic vti tti; do
            timeout 240 "${mpirun_[@]}" -np 1 bin/seisfd bench --device cuda --plane-costs \
                --physics "$physics" >"$out/costs-$physics.log" 2>&1
            sed -nE 's/^  table row +//p' "$out/costs-$physics.log" | tee -a "$out/plane-costs.csv" "$summary"
        done
    fi
    [ -s "$out/plane-costs.csv" ] && SEISFD_PLANE_COSTS=$(cd "$out" && pwd)/plane-costs.csv && export SEISFD_PLANE_COSTS
    if part strong; then
        for job in "acoustic 1000 cpml20:" "acoustic 1000 cpml0:--cpml 0" \
                   "elastic 768 cpml20:--physics elastic --size 768" \
                   "elastic 768 cpml0:--physics elastic --size 768 --cpml 0"; do
            read -r -a args <<<"${job#*:}"
            for g in $(only "${STRONG_GPUS:-}"); do series "strong ${job%%:*} ${g}" "$g" auto "${args[@]}"; done
            [ "$gpu_count" -ge 4 ] && [[ $job == *cpml20* ]] && [ -z "${STRONG_GPUS:-}" ] &&
                series "strong ${job%%:*} 4 equal" 4 auto "${args[@]}" --slabs equal
        done
    fi
    if part weak; then
        # Per GPU 1000 x 1000 x 512 (acoustic) or 512^3 (elastic); the base of
        # G GPUs is one GPU with the z layers' planes each of them holds.
        for job in "acoustic 1000x1000x512:--size 1000:512" "elastic 512^3:--physics elastic --size 512:512"; do
            rest=${job#*:}
            read -r -a args <<<"${rest%%:*}"
            nz=${rest##*:}
            for cpml in 20 0; do
                for g in $(only "${WEAK_GPUS:-}"); do
                    series "weak ${job%%:*} cpml$cpml $g" "$g" auto "${args[@]}" --cpml "$cpml" --nz $((g * nz))
                    [ "$cpml" = 20 ] && [ "$g" -gt 1 ] &&
                        series "weak ${job%%:*} cpml$cpml base$g" 1 auto "${args[@]}" --cpml 20 \
                            --cpml-z $((20 / g)) --nz "$nz"
                done
            done
        done
    fi
    if part staged && [ "$gpu_count" -ge 2 ]; then
        g=${counts[-1]}
        timeout 120 "${mpirun_[@]}" --bind-to none ${SEISFD_UCX_MPIRUN_FLAGS:-} -np "$g" \
            bin/seisfd bench --exchange >"$out/exchange-auto.log" 2>&1
        SEISFD_GPU_AWARE_MPI=off timeout 120 "${mpirun_[@]}" --bind-to none -np "$g" \
            bin/seisfd bench --exchange >"$out/exchange-host.log" 2>&1
        grep -hE "^  (halo buffers|exchange|bytes| +[0-9]+ MiB)" "$out"/exchange-*.log | tee -a "$summary"
        series "staged acoustic 1000 cpml0 $g" "$g" host --cpml 0
        series "staged acoustic 1000 cpml0 $g ucx" "$g" host-ucx --cpml 0
    fi
    if part survey && [ "$gpu_count" -ge 2 ]; then
        g=${counts[-1]}
        read -r -a flags <<<"${SEISFD_UCX_MPIRUN_FLAGS:-}"
        for per in 1 "$g"; do
            sed -e "s/ranks_per_shot: .*/ranks_per_shot: $per/" \
                -e "s|directory: .*|directory: out/survey-$per|" jobs/survey-throughput.yaml >/tmp/survey-$per.yaml
            start=$SECONDS
            log=$(cd "$out" && pwd)/survey-$per.log
            (cd /tmp && timeout 300 "${mpirun_[@]}" --bind-to none "${flags[@]}" -np "$g" \
                "$OLDPWD/bin/seisfd" run survey-$per.yaml >"$log" 2>&1)
            note "  survey 16 shots of 400^3 on $g GPUs, groups of $per: exit $?, $((SECONDS - start)) s;" \
                 "$(grep -rhoE '"shots_per_hour": [0-9.e+]+' /tmp/out/survey-$per | tail -1)"
        done
    fi
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
