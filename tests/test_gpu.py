"""The CUDA backend beyond what the conformance suite checks of every
physics (tests/test_conformance.py, which uses the helpers here): the same
gathers as the CPU backend (to 1e-5 of the peak) on ranks sharing a GPU
and on two GPUs, the elastic kernels' z chunks, energy and signatures, the
halo paths, the cost model, and the errors for a missing GPU and a job too
large for one. Every run on several ranks goes
once with host staging and once with device buffers (GPU-aware MPI), and
the two must agree bit for bit; where MPI cannot take device memory the
second is left out and the test says so. Tests that need a GPU skip with a
reason where the build has no CUDA or no GPU is visible; the missing-GPU
error is checked everywhere (a CUDA build with no device visible)."""
import json
import math
import os
import re
import subprocess

import numpy as np

from testlib import MPIRUN, NeedsGpu, Skipped, base_job, check, read_gather, run, run_job, \
    tolerance, write_job

TOLERANCE = tolerance("gpu")   # of the gather's peak
NO_DEVICE = {"CUDA_VISIBLE_DEVICES": ""}
HOST_STAGING = {"SEISFD_GPU_AWARE_MPI": "off"}
_probe = {}
_device_path = {}


def probe():
    """What `seisfd --version` says: CUDA built in, GPUs visible, and the
    free memory of the first one in GiB."""
    if not _probe:
        rc, out, err = run(["--version"])
        check(rc == 0, f"seisfd --version failed:\n{err}")
        count = re.search(r"GPUs\s+(\d+) visible", out)
        free = re.search(r"([\d.]+) of ([\d.]+) GiB free", out)
        _probe.update(cuda=bool(re.search(r"backends\s+.*cuda", out)),
                      gpus=int(count.group(1)) if count else 0,
                      free_gib=float(free.group(1)) if free else 0.0)
    return _probe


def require_gpus(n=1):
    p = probe()
    if not p["cuda"]:
        raise NeedsGpu("this build of seisfd has no CUDA backend (no nvcc, or CUDA=0)")
    if p["gpus"] < n:
        raise NeedsGpu(f"needs {n} GPU{'s' if n > 1 else ''}, {p['gpus']} visible")


def halo_path_chosen(tmp, env=None, launcher_flags=()):
    """The halo path `seisfd check` reports for a small GPU job on 2 ranks,
    and its output."""
    job = base_job(n=(24, 24, 24), cpml=4, duration=0.01)
    job["run"] = {"device": "cuda"}
    path = write_job(os.path.join(tmp, "halo-path.yaml"), job)
    rc, out, err = run(["check", path], ranks=2, cwd=tmp, env=env, launcher_flags=launcher_flags)
    m = re.search(r"halo buffers +(host staging|device buffers)", out)
    return (m.group(1) if rc == 0 and m else None), out + err


def device_path(tmp):
    """How to launch so that MPI takes device buffers: {"flags", "env"},
    or {"flags": None, "why"}. Open MPI with a UCX built with CUDA needs
    mpirun flags, which jobs/gpu-check.sh exports as
    SEISFD_UCX_MPIRUN_FLAGS; an MPI that says it is GPU-aware needs none.
    Either way `auto` must find the device path by itself."""
    if not _device_path:
        flags = os.environ.get("SEISFD_UCX_MPIRUN_FLAGS", "").split()
        env = {"SEISFD_GPU_AWARE_MPI": "auto"}
        chosen, text = halo_path_chosen(tmp, env, flags)
        if chosen == "device buffers":
            _device_path.update(flags=flags, env=env)
        elif flags:
            raise AssertionError(f"SEISFD_UCX_MPIRUN_FLAGS is set (UCX with CUDA), but auto did "
                                 f"not choose device buffers:\n{text[-3000:]}")
        else:
            _device_path.update(flags=None, why="this MPI does not say it takes device memory "
                                "(jobs/gpu-check.sh prepares a UCX built with CUDA)")
    return _device_path


def paths_note(tmp):
    p = device_path(tmp)
    return ("host staging and device buffers bit for bit alike" if p["flags"] is not None
            else f"host staging only: {p['why']}")


def on_both_paths(tmp, run_once):
    """run_once(tag, env, launcher_flags) runs a GPU job on several ranks
    and returns (dict of arrays, stdout, stderr). It runs with host staging
    and, where MPI takes device memory, with device buffers; each says so in
    its set-up, and every array must be the same bit for bit. Returns the
    host-staged run's results."""
    host = run_once("host", HOST_STAGING, ())
    check("halo buffers      host staging" in host[1], f"not host staging:\n{host[1][-3000:]}")
    p = device_path(tmp)
    if p["flags"] is None:
        return host
    device = run_once("device", p["env"], p["flags"])
    check("halo buffers      device buffers" in device[1],
          f"device buffers were not used:\n{device[1][-3000:]}")
    check(host[0].keys() == device[0].keys(), f"results differ: {sorted(host[0])} vs "
                                             f"{sorted(device[0])}")
    for key, value in host[0].items():
        other = device[0][key]
        check(value.shape == other.shape and np.array_equal(value, other),
              f"{key}: device buffers and host staging differ:\n{value}\n{other}")
    return host


def layered_job(n, cpml, free_surface=False, duration=0.25):
    """Layered model, off-grid source and receivers (some astride slab
    boundaries and inside the absorbing layers)."""
    nx, ny, nz = n
    h = 10.0
    job = base_job(n=n, h=h, cpml=cpml, duration=duration, dt=0.001,
                   source=[h * nx / 2 + 3.3, h * ny / 2 - 1.9, h * nz / 3 + 2.7], frequency=12.0)
    job["model"] = {"type": "layered", "layers": [{"top": 0, "vp": 1800},
                                                  {"top": h * nz * 0.4, "vp": 2400},
                                                  {"top": h * nz * 0.7, "vp": 3000}]}
    job["boundaries"]["free_surface"] = free_surface
    job["receivers"] = {
        "line": {"start": [25.5, h * ny / 2 + 0.4, 15.2], "end": [h * (nx - 3) - 0.5, h * ny / 2,
                                                                 h * nz / 2 + 4.1], "count": 9},
        "points": [[h * nx / 2 + 0.7, h * (ny - 4) + 1.1, h * (nz - 5) + 0.3],
                   [32.1, 41.7, h * nz / 2 - 0.6], [h * nx / 2, h * ny / 2, h * (nz // 2)]]}
    return job


def gather_of(tmp, job, device, name, ranks=1):
    """Runs the job on a device (on both halo paths when it is the GPU on
    several ranks); returns its traces and the run's stdout and stderr."""
    def once(tag, env, launcher_flags):
        named = f"{name}-{tag}" if tag else name
        run_it = dict(job, run={"device": device},
                      output={"gather": named + ".h5", "overwrite": True})
        _, out, err = run_job(tmp, run_it, name=named, ranks=ranks, env=env,
                              launcher_flags=launcher_flags)
        gather = read_gather(os.path.join(tmp, named + ".h5"))
        traces = gather["traces"]
        check(np.isfinite(traces).all(), f"the {device} gather holds NaN or infinity")
        # Every comparison is made with the time-dispersion correction as
        # the job sets it (on unless said otherwise), on both devices.
        corrected = job.get("time", {}).get("dispersion_correction", True)
        recorded = gather["attrs"]["time_dispersion"]
        check(recorded.startswith("corrected" if corrected else "not corrected"),
              f"the {device} gather says '{recorded}'")
        if device == "cuda":
            check("cuda backend" in out, f"the run did not use the CUDA backend:\n{out}")
        return {"traces": traces}, out, err
    result, out, err = (on_both_paths(tmp, once) if device == "cuda" and ranks > 1
                        else once("", None, ()))
    return result["traces"], out, err


def difference(traces, reference, what):
    """The largest difference over the reference's peak, checked against
    the tolerance."""
    peak = np.abs(reference).max()
    check(peak > 0, "the CPU gather is empty")
    diff = float(np.abs(traces - reference).max() / peak)
    check(diff <= TOLERANCE, f"{what} differs from the CPU by {diff:.3g} of the peak "
                             f"(limit {TOLERANCE:g})")
    return diff


def compare_with_cpu(tmp, job, gpu_ranks, cpu_ranks=1):
    """Runs the job on the CPU and on the GPU; returns (largest difference
    over the peak, the GPU run's stdout and stderr)."""
    reference, _, _ = gather_of(tmp, job, "cpu", "cpu", ranks=cpu_ranks)
    traces, out, err = gather_of(tmp, job, "cuda", "gpu", ranks=gpu_ranks)
    return difference(traces, reference, f"GPU on {gpu_ranks} rank(s)"), out, err


def slab_job():
    """Free surface; 31 planes make uneven slabs on 2 ranks (16 + 15) and
    on 4 (8, 8, 8, 7); the 12-plane z layer at the bottom reaches across
    slab boundaries, so its memory variable is exchanged too."""
    return layered_job((48, 44, 31), cpml=12, free_surface=True)


def test_four_ranks_sharing_one_gpu(tmp):
    """Four ranks on one GPU: the same gather, and one warning for the node."""
    require_gpus(1)
    diff, out, err = compare_with_cpu(tmp, slab_job(), gpu_ranks=4)
    warnings = re.findall(r"warning: host \S+: 4 ranks share 1 GPU", err)
    if probe()["gpus"] == 1:
        check(len(warnings) == 1, f"expected one sharing warning, got {len(warnings)}:\n{err}")
    return (f"largest difference {diff:.2g} of the peak, {len(warnings)} sharing warning; "
            f"{paths_note(tmp)}")


def test_two_ranks_on_two_gpus(tmp):
    require_gpus(2)
    diff, out, err = compare_with_cpu(tmp, slab_job(), gpu_ranks=2)
    devices = set(re.findall(r"rank \d+ -> \S+, GPU (\d+) ", out))
    check(devices == {"0", "1"}, f"ranks did not take GPUs 0 and 1:\n{out}")
    check(not re.search(r"ranks share \d+ GPU", err), f"unexpected sharing warning:\n{err}")
    return f"largest difference {diff:.2g} of the peak on GPUs 0 and 1; {paths_note(tmp)}"


def test_cuda_without_gpu_is_a_clear_error(tmp):
    """device: cuda where no GPU is visible (or CUDA is not built in)."""
    job = base_job(n=(30, 30, 30), cpml=5, duration=0.02)
    job["run"] = {"device": "cuda"}
    rc, out, err = run_job(tmp, job, ranks=2, expect_ok=False, env=NO_DEVICE)
    check(rc != 0, f"device: cuda without a GPU was accepted:\n{out}")
    if probe()["cuda"]:
        pattern = r"run\.device: cuda was asked for, but rank \d+ on host \S+ sees no CUDA device"
    else:
        pattern = r"run\.device: cuda was asked for, but this build of seisfd has no CUDA backend"
    check(re.search(pattern, err), f"no /{pattern}/ in:\n{err}")
    check(err.count("seisfd: error") == 1 and "MPI_ABORT" not in err,
          f"not one clean message:\n{err}")
    return err.strip().splitlines()[0]


def test_auto_without_gpu_runs_on_cpu(tmp):
    job = base_job(n=(30, 30, 30), cpml=5, duration=0.02)
    _, out, _ = run_job(tmp, job, env=NO_DEVICE)
    check("cpu backend" in out, f"device: auto without a GPU did not choose the CPU:\n{out}")


def test_job_too_large_fails_before_stepping(tmp):
    """A grid whose fields need about 1.2 times the GPU's free memory (the
    model on the host takes a third of that)."""
    require_gpus(1)
    free = probe()["free_gib"]
    check(free > 0, "the probe found no free memory figure")
    side = math.ceil((1.2 * free * 2**30 / 12) ** (1 / 3))
    job = base_job(n=(side, side, side), cpml=10, duration=0.002, dt=0.001)
    job["run"] = {"device": "cuda"}
    rc, out, err = run_job(tmp, job, expect_ok=False)
    check(rc != 0, f"a {side}^3 grid was accepted on a GPU with {free} GiB free")
    pattern = (r"GPU memory: this rank's slab of \d+ x \d+ x \d+ points needs ([\d.]+) GiB, "
               r"([\d.]+) GiB free \(of [\d.]+ GiB\) on GPU \d+ \(.+\) of host \S+, rank 0")
    m = re.search(pattern, err)
    check(m, f"no /{pattern}/ in:\n{err[-2000:]}")
    check(float(m.group(1)) > float(m.group(2)), f"the message contradicts itself: {m.group(0)}")
    check(not re.search(r"step \d+/", out), f"time stepping started:\n{out[-2000:]}")
    return f"{side}^3: needs {m.group(1)} GiB, {m.group(2)} GiB free"


def test_bench_runs_on_gpu(tmp):
    require_gpus(1)
    rc, out, err = run(["bench", "--device", "cuda", "--size", "96", "--steps", "20",
                        "--warmup", "5", "--copy-mib", "256"], cwd=tmp)
    check(rc == 0, f"bench failed:\n{err}")
    rate = re.search(r"stencil kernels\s+[\d.]+ s .* = ([\d.]+) Gpoints/s", out)
    check(rate and float(rate.group(1)) > 0, f"no kernel throughput in:\n{out}")
    return f"96^3: {rate.group(1)} Gpoints/s in the stencil kernels"


def snapshots_of(tmp, device, make_job, read, ranks=2):
    """Runs make_job(device) writing snapshots, on both halo paths on the
    GPU; returns read(file) of the host-staged (or CPU) run."""
    import h5py

    def once(tag, env, launcher_flags):
        name = f"{device}-{tag}" if tag else device
        job = make_job(device)
        job["run"] = {"device": device}
        job["output"] = {"gather": f"{name}.h5", "overwrite": True,
                         "snapshots": {"path": f"{name}-snaps.h5", "every": 40,
                                       "decimation": [2, 1, 3]}}
        _, out, err = run_job(tmp, job, name=name, ranks=ranks, env=env,
                              launcher_flags=launcher_flags)
        with h5py.File(os.path.join(tmp, f"{name}-snaps.h5"), "r") as f:
            return read(f), out, err
    return (on_both_paths(tmp, once) if device == "cuda" else once("", None, ()))[0]


def elastic_gpu_job(source_type="explosive", n=(44, 40, 37), duration=0.2):
    """A water layer (vs = 0) over two solids, a free surface, CPML on all
    faces, an off-grid source in the first solid and receivers of all four
    components, some in the water, the layers and astride slab boundaries."""
    from test_elastic import elastic_job
    nx, ny, nz = n
    h = 10.0
    job = elastic_job(source_type, n=n, h=h, cpml=8, duration=duration, dt=0.0012,
                      source=[h * nx / 2 + 3.3, h * ny / 2 - 1.9, h * nz / 2 + 2.7],
                      frequency=12.0, components=["vx", "vy", "vz", "p"])
    job["model"] = {"type": "layered", "layers": [
        {"top": 0, "vp": 1500, "vs": 0, "rho": 1000},
        {"top": h * nz * 0.3, "vp": 2400, "vs": 1300, "rho": 2100},
        {"top": h * nz * 0.7, "vp": 3000, "vs": 1700, "rho": 2400}]}
    if source_type == "force":
        job["source"]["direction"] = [0.3, -0.5, 0.8]
    job["boundaries"]["free_surface"] = True
    job["receivers"]["line"] = {"start": [25.5, h * ny / 2 + 0.4, 15.2],
                                "end": [h * (nx - 3) - 0.5, h * ny / 2, h * nz / 2 + 4.1],
                                "count": 9}
    job["receivers"]["points"] = [[h * nx / 2 + 0.7, h * (ny - 4) + 1.1, h * (nz - 5) + 0.3],
                                  [32.1, 41.7, h * nz / 2 - 0.6], [h * nx / 2, h * ny / 2, 0.0]]
    return job


def elastic_difference(traces, reference, what):
    """Each component against its own peak."""
    check(traces.shape == reference.shape and reference.shape[0] == 4,
          f"{what}: gather shapes {traces.shape} and {reference.shape}")
    return max(difference(traces[c], reference[c], f"{what}, component {c}") for c in range(4))


def test_elastic_thick_layers_and_long_slabs_match_cpu(tmp):
    """A 12-point CPML on 80 planes: on 1 rank the interior is cut at the
    z layers into pieces of several z chunks; on 3 ranks (27 + 27 + 26
    planes) each z layer lies partly in two slabs. Tiles do not divide
    nx or ny."""
    require_gpus(1)
    job = elastic_gpu_job("force", n=(40, 36, 80), duration=0.15)
    job["boundaries"]["cpml"] = 12
    reference, _, _ = gather_of(tmp, job, "cpu", "cpu-thick")
    worst = {}
    for ranks in (1, 3):
        traces, _, _ = gather_of(tmp, job, "cuda", f"gpu-thick-{ranks}", ranks=ranks)
        worst[ranks] = elastic_difference(traces, reference, f"{ranks} rank(s)")
    return ("largest differences: " + ", ".join(f"{k} rank(s) {v:.2g}" for k, v in worst.items())
            + f"; {paths_note(tmp)}")


def test_elastic_energy_matches_cpu(tmp):
    """The energy series on 2 ranks, relative 1e-5 of the series' peak."""
    require_gpus(1)
    series = {}
    for device in ("cpu", "cuda"):
        def once(tag, env, launcher_flags):
            name = f"{device}-{tag}" if tag else device
            job = elastic_gpu_job("force", duration=0.15)
            job["run"] = {"device": device}
            job["output"] = {"gather": f"{name}.h5", "overwrite": True, "energy": f"{name}.csv"}
            _, out, err = run_job(tmp, job, name=name, ranks=2, env=env,
                                  launcher_flags=launcher_flags)
            table = np.genfromtxt(os.path.join(tmp, f"{name}.csv"), delimiter=",", names=True)
            return {n: table[n] for n in table.dtype.names}, out, err
        series[device] = (on_both_paths(tmp, once) if device == "cuda" else once("", None, ()))[0]
    worst = 0.0
    for name in ("kinetic", "strain", "total"):
        ref = series["cpu"][name]
        diff = float(np.abs(series["cuda"][name] - ref).max() / np.abs(ref).max())
        check(diff <= TOLERANCE, f"{name} energy differs by {diff:.3g} of its peak")
        worst = max(worst, diff)
    return f"largest difference {worst:.2g} of the peak (limit {TOLERANCE:g}); {paths_note(tmp)}"


def survey_on(tmp, job, device, ranks=2, env_added=None):
    """Runs a survey on a device in a directory of its own (on the GPU on
    both halo paths), with env_added in its environment; returns the
    manifest's lines about shots, the gathers of the shots done and the
    run's stdout."""
    def once(tag, env, launcher_flags):
        directory = f"{device}-{tag}-out" if tag else f"{device}-out"
        run_it = dict(job, run={"device": device, "check_every": 5},
                      output={"directory": directory})
        _, out, err = run_job(tmp, run_it, name=f"{device}-{tag}-survey", ranks=ranks,
                              expect_ok=False, env=dict(env or {}, **(env_added or {})),
                              launcher_flags=launcher_flags)
        with open(os.path.join(tmp, directory, "manifest.jsonl")) as f:
            lines = [json.loads(line) for line in f if '"shot"' in line]
        shots = {m["shot"]: m for m in lines}
        arrays = {"statuses": np.array([shots[n]["status"] for n in sorted(shots)])}
        for n, m in shots.items():
            if m["status"] == "done":
                arrays[f"shot {n}"] = read_gather(os.path.join(tmp, directory,
                                                               f"shot_{n:04d}.h5"))["traces"]
        shots_by_number.update(shots)
        return arrays, out, err
    shots_by_number = {}
    arrays, out, _ = on_both_paths(tmp, once) if device == "cuda" else once("", None, ())
    return shots_by_number, arrays, out


def compare_survey(tmp, job, shots, unstable, compare):
    """The same survey on the CPU and, one group of 2 ranks, on the GPU:
    the stable shots agree to the tolerance (the GPU backend reset between
    shots), the unstable one (its wavefield overflowing float32 through
    SEISFD_TEST_GROWTH, the test hook that multiplies it by 1000 a step)
    fails on both with the GPU's guard."""
    require_gpus(1)
    overflow = {"SEISFD_TEST_GROWTH": f"1000:{unstable}"}
    results = {d: survey_on(tmp, job, d, env_added=overflow) for d in ("cpu", "cuda")}
    check("cuda backend" in results["cuda"][2], "the survey did not use the CUDA backend")
    worst = 0.0
    for n in range(1, shots + 1):
        statuses = {d: results[d][0][n]["status"] for d in results}
        if n == unstable:
            check(statuses == {"cpu": "failed", "cuda": "failed"} and
                  "non-finite" in results["cuda"][0][n]["reason"], f"shot {n}: {statuses}")
            continue
        check(statuses == {"cpu": "done", "cuda": "done"}, f"shot {n}: {statuses}")
        worst = max(worst, compare(results["cuda"][1][f"shot {n}"], results["cpu"][1][f"shot {n}"],
                                   f"survey shot {n}"))
    return worst


def test_device_buffers_reported_and_timed_apart(tmp):
    """With device buffers the set-up names the path and its reason on
    every rank, the timing table has no host-copy rows and the run report
    says the same; host staging keeps both copy rows. bench takes the path
    too, and bench --exchange times both against a peer copy."""
    require_gpus(1)
    p = device_path(tmp)
    if p["flags"] is None:
        raise Skipped(p["why"])
    job = slab_job()
    job["run"] = {"device": "cuda"}
    outs = {}
    for tag, env, flags in (("host", HOST_STAGING, ()), ("device", p["env"], p["flags"])):
        job["output"] = {"gather": f"{tag}.h5", "report": f"{tag}.json"}
        _, outs[tag], _ = run_job(tmp, job, name=tag, ranks=2, env=env, launcher_flags=flags)
        with open(os.path.join(tmp, f"{tag}.json")) as f:
            report = json.load(f)
        copies = {k: report["shots"][0]["phases"][k] for k in ("halo_d2h", "halo_h2d")}
        rows = re.findall(r"^  halo (D2H|H2D) ", outs[tag], re.M)
        if tag == "host":
            check(rows == ["D2H", "H2D"] and all(v > 0 for v in copies.values()),
                  f"host staging: rows {rows}, report {copies}")
        else:
            check(rows == [] and all(v is None for v in copies.values()),
                  f"device buffers: rows {rows}, report {copies}")
        check(report["config"]["halo_transport"] == {"host": "host staging",
                                                     "device": "device buffers"}[tag] and
              all(q["halo"].startswith(report["config"]["halo_transport"]) for q in report["processes"]),
              f"report: {report['config']}, {[q['halo'] for q in report['processes']]}")
    reason = re.search(r"ranks 0-1: (device buffers: gpu_aware_mpi \w+ \(.+\); .+; checked with the "
                       r"neighbours before the first step)", outs["device"])
    check(reason, f"no reason for the device path:\n{outs['device']}")
    rc, out, err = run(["bench", "--size", "64", "--steps", "5", "--warmup", "1", "--copy-mib", "64"],
                       ranks=2, cwd=tmp, env=p["env"], launcher_flags=p["flags"])
    check(rc == 0 and "halo buffers      device buffers" in out and "halo D2H" not in out,
          f"bench on device buffers (exit {rc}):\n{out}\n{err[-2000:]}")
    rc, out, err = run(["bench", "--exchange"], ranks=2, cwd=tmp, env=p["env"],
                       launcher_flags=p["flags"])
    rows = re.findall(r"^ +(\d+) MiB +([\d.]+) \([\d.]+ ms\) +([\d.]+) \(", out, re.M)
    check(rc == 0 and len(rows) == 4, f"bench --exchange (exit {rc}):\n{out}\n{err[-2000:]}")
    return f"{reason.group(1)[:60]}...; 64 MiB each way: {rows[-1][1]} GB/s device, {rows[-1][2]} staged"


def test_wrong_gpu_aware_on_is_one_clear_message(tmp):
    """gpu_aware_mpi: on with an MPI that cannot take device memory (Open
    MPI over its shared-memory transport, no UCX): the check before the
    first step ends the run with one message that says what to do."""
    require_gpus(1)
    version = subprocess.run([MPIRUN, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" not in version:
        raise Skipped("needs Open MPI, to launch it without its GPU-aware transports")
    flags = ["--mca", "pml", "ob1", "--mca", "btl", "self,vader"]
    chosen, text = halo_path_chosen(tmp, {"SEISFD_GPU_AWARE_MPI": "auto"}, flags)
    check(chosen is not None, f"the plain launch failed:\n{text[-3000:]}")
    if chosen == "device buffers":
        raise Skipped("this Open MPI takes device memory over shared memory too")
    job = slab_job()
    job["run"] = {"device": "cuda", "gpu_aware_mpi": "on"}
    rc, out, err = run_job(tmp, job, ranks=2, expect_ok=False, launcher_flags=flags)
    messages = re.findall(r"seisfd: error: the GPU-aware MPI check before the first step failed "
                          r"on GPU \d+ \(.+\) of host \S+, rank \d, (.+?)\. Device buffers were "
                          r"chosen \(gpu_aware_mpi on \(run\.gpu_aware_mpi at .+:\d+\); .+\), "
                          r"but this MPI, as launched, does not take device memory: set "
                          r"gpu_aware_mpi to off", err)
    check(rc != 0 and len(messages) == 1, f"expected one clear message (exit {rc}):\n{err[-3000:]}")
    check(not re.search(r"step \d+/", out) and not os.path.exists(os.path.join(tmp, "gpu.h5")),
          f"the run went on:\n{out[-2000:]}")
    return messages[0]


def test_signatures_match_cpu(tmp):
    """A signature file (acoustic) and an Ormsby wavelet on a moment-tensor
    source (elastic) give the CPU's gathers on the GPU."""
    require_gpus(1)
    from test_wavelets import ricker_samples, write_text
    write_text(os.path.join(tmp, "sig.txt"), 0.7 * ricker_samples(14.0, 0.1, 0.002, 0.2), 0.002)
    job = layered_job((56, 52, 60), cpml=10)
    job["source"].update({"wavelet": "file", "file": "sig.txt", "delay": 0.01})
    del job["source"]["frequency"]
    acoustic, _, _ = compare_with_cpu(tmp, job, gpu_ranks=1)
    job = elastic_gpu_job("moment")
    job["source"].update({"wavelet": "ormsby", "frequencies": [3, 6, 18, 26],
                          "moment": [1.0, -0.5, 0.3, 0.2, -0.1, 0.4]})
    del job["source"]["frequency"]
    reference, _, _ = gather_of(tmp, job, "cpu", "cpu-ormsby")
    traces, _, _ = gather_of(tmp, job, "cuda", "gpu-ormsby")
    elastic = elastic_difference(traces, reference, "elastic Ormsby, moment source")
    return f"largest differences: file {acoustic:.2g}, elastic Ormsby {elastic:.2g} of the peak"


def test_predicted_compute_time_per_step_matches_the_kernels(tmp):
    """Slabs cut by cost on every GPU (up to 4, one rank each): each rank's
    predicted compute time per step (the cost model, from the plane-cost
    table's row for this GPU or timed at set-up) is within 10% of its
    measured kernel time, for the acoustic and elastic steps with 20-point
    layers; the run's halo path is auto's."""
    require_gpus(1)
    ranks = min(probe()["gpus"], 4)
    p = device_path(tmp)
    flags = p["flags"] or ()
    notes, worst = [], 0.0
    # The default grids' rows (the table's are timed on them) and slabs of
    # production thickness: the 1000^3 and 768^3 of the strong series on
    # four GPUs.
    for physics, size, nz in (("acoustic", 1000, 250 * ranks), ("elastic", 768, 192 * ranks)):
        report = os.path.join(tmp, f"{physics}.json")
        rc, out, err = run(["bench", "--device", "cuda", "--physics", physics, "--size", str(size),
                            "--nz", str(nz), "--steps", "30", "--warmup", "5", "--copy-mib", "64",
                            "--report", report], ranks=ranks, cwd=tmp,
                           env={"SEISFD_GPU_AWARE_MPI": "auto"}, launcher_flags=flags)
        check(rc == 0, f"bench {physics} failed (exit {rc}):\n{err[-3000:]}")
        with open(report) as f:
            slabs = [q["slab"] for q in json.load(f)["processes"]]
        for r, s in enumerate(slabs):
            predicted = s["predicted_compute_seconds_per_step"]
            measured = s["measured_compute_seconds_per_step"]
            off = abs(predicted / measured - 1.0)
            worst = max(worst, off)
            check(off <= 0.10, f"{physics} rank {r} ({s['planes']} planes): predicted "
                  f"{1e3 * predicted:.3f} ms a step, measured {1e3 * measured:.3f} ms:\n{out}")
        source = re.search(r"point costs .*?: (.*)", out)
        notes.append(f"{physics} {size}x{size}x{nz} on {ranks}: " + ", ".join(
            f"{s['planes']} planes {1e3 * s['measured_compute_seconds_per_step']:.2f} ms"
            for s in slabs) + f" ({source.group(1)[:60] if source else '?'})")
    return f"worst {100 * worst:.1f}% (limit 10%); " + "; ".join(notes)


def test_staging_with_several_gpu_ranks_on_a_node_warns(tmp):
    """auto ending on host staging (Open MPI over shared memory, no UCX)
    with 2 GPU ranks on the node warns once, with the measured cost and
    what to do; with device buffers chosen there is no warning."""
    require_gpus(1)
    version = subprocess.run([MPIRUN, "--version"], capture_output=True, text=True).stdout
    if "Open MPI" not in version:
        raise Skipped("needs Open MPI, to launch it without its GPU-aware transports")
    flags = ["--mca", "pml", "ob1", "--mca", "btl", "self,vader"]
    chosen, text = halo_path_chosen(tmp, {"SEISFD_GPU_AWARE_MPI": "auto"}, flags)
    if chosen == "device buffers":
        raise Skipped("this Open MPI takes device memory over shared memory too")
    warnings = re.findall(r"seisfd: warning: halos are staged through host memory with 2 GPU "
                          r"ranks on a node: .*Gpoints/s.*GPU-aware MPI", text)
    check(chosen == "host staging" and len(warnings) == 1, f"expected one warning:\n{text[-3000:]}")
    p = device_path(tmp)
    if p["flags"] is not None:
        chosen, text = halo_path_chosen(tmp, p["env"], p["flags"])
        check(chosen == "device buffers" and "halos are staged" not in text,
              f"device buffers warned or were not chosen:\n{text[-3000:]}")
    return warnings[0][:120] + "..."


def growth_stop(tmp, physics, device, ranks=1):
    """The guard's message for test_guard's small job of the physics made
    to grow by 3% a step (SEISFD_TEST_GROWTH, the test hook)."""
    from test_guard import GROWTH, small_job
    job = small_job(physics)
    job["run"] = {"device": device}
    env = dict(HOST_STAGING, SEISFD_TEST_GROWTH="1.03")
    rc, out, err = run_job(tmp, job, name=f"{physics}-{device}-{ranks}", ranks=ranks,
                           expect_ok=False, env=env)
    m = GROWTH.search(err)
    check(rc == 1 and m, f"{physics} on {device}, {ranks} rank(s): exit {rc}, no growth stop:\n{err}")
    return m


def test_guard_on_gpu_decides_alike_on_2_ranks_and_a_stable_box(tmp):
    """The guard's measure on the GPU (its reduction kernel's partial sums
    per block, added on the host; that each physics stops as on the CPU is
    the conformance suite's): acoustic made to grow on 2 ranks sharing the
    GPU stops as on one; a long stable box judges as many checks with the
    same longest rise as on the CPU; and bench shows the checks' time."""
    require_gpus(1)
    from test_guard import box_job, guard_summary
    one = growth_stop(tmp, "acoustic", "cuda")
    two = growth_stop(tmp, "acoustic", "cuda", ranks=2)
    check(two.group(1, 2, 4, 5, 7, 8) == one.group(1, 2, 4, 5, 7, 8),
          f"2 ranks decided otherwise:\n{one.group(0)}\n{two.group(0)}")
    summaries = {}
    for device in ("cpu", "cuda"):
        job = box_job("acoustic", 3.0, {"type": "homogeneous", "vp": 2000}, [113.3, 117.2, 82.1],
                      frequency=15)
        job["run"]["device"] = device
        job["output"]["gather"] = f"out/box-{device}.h5"
        _, out, _ = run_job(tmp, job, name=f"box-{device}")
        summaries[device] = guard_summary(out)
    (judged, longest, largest), gpu = summaries["cpu"], summaries["cuda"]
    check(gpu[:2] == (judged, longest) and abs(gpu[2] - largest) <= 1e-2 * largest,
          f"stable box: CPU {summaries['cpu']}, GPU {gpu}")
    rc, out, err = run(["bench", "--device", "cuda", "--size", "96", "--steps", "20", "--warmup",
                        "2", "--check-every", "5", "--copy-mib", "256"], cwd=tmp)
    m = re.search(r"instability guard   [0-9.]+ s in 5 checks every 5 steps \(([0-9.e+-]+) ms a "
                  r"check\), ([0-9.]+)% of the time loop", out)
    check(rc == 0 and m, f"bench (exit {rc}) shows no guard time:\n{out}\n{err}")
    return f"2 ranks stop alike; 96^3 acoustic: {m.group(1)} ms a check ({m.group(2)}% of the loop)"
