"""run.precision: mixed (the user guide's "Mixed precision"): wavefields,
memory variables and the medium stored as 16-bit blocks (sf_block16.h),
float32 arithmetic. Its accuracy against float32 over a long run in a box
that keeps every wave, for every physics seisfd declares; the guard still
stops a run that grows; the absorbing layers reflect as in float32. Rank
invariance is the conformance suite's, Thomsen's traveltimes
test_anisotropic's, the analytic direct waves test_time_accuracy's."""
import os

import numpy as np

from test_physics import BOX_RECEIVERS, misfit, reflection_job, reflection_levels
from testlib import LAYER_VALUES, check, declared_physics, heavy, medium, physics_parameters, \
    read_gather, run_job

# The difference from float32 after LONG_STEPS, as a fraction of float32's
# own L2 norm over the whole gather (every component).
LONG_STEPS = 5000
LONG_LIMIT = 0.01


def trapped_job(physics, precision, n=24, h=10.0):
    """The physics' homogeneous medium in a box that loses nothing: a free
    surface on top and no absorbing layers (the grid's edges reflect), so
    that every step's rounding stays in the record; LONG_STEPS steps of a
    12 Hz source, a line of receivers under the surface. (Layers would do
    for every physics but TTI, whose tilt changing from layer to layer makes
    the closed box's float32 record itself grow a hundredfold.)"""
    side = (n - 1) * h
    return {"grid": {"nx": n, "ny": n, "nz": n, "dx": h, "dy": h, "dz": h},
            "time": {"dt": "auto", "nt": LONG_STEPS},
            "physics": {"type": physics, "order": 8},
            "model": medium(physics),
            "boundaries": {"cpml": 0, "free_surface": True},
            "source": {"position": [0.35 * side + 0.3, 0.45 * side + 0.7, 0.5 * side + 0.2],
                       "frequency": 12.0},
            "receivers": {"line": {"start": [3.1 * h, 0.5 * side, 2.2 * h],
                                   "end": [side - 3.1 * h, 0.5 * side, 2.2 * h], "count": 12}},
            "output": {"gather": f"{physics}-{precision}.h5", "overwrite": True},
            "run": {"precision": precision, "check_every": 0}}


@heavy
def test_every_physics_within_one_percent_of_float32_after_5000_steps(tmp):
    """LONG_STEPS steps in the trapped box: mixed records within LONG_LIMIT
    of float32 (L2 over the gather), and not bit for bit the same."""
    notes, failed = [], []
    for physics in declared_physics("cpu"):
        traces = {}
        for precision in ("float32", "mixed"):
            run_job(tmp, trapped_job(physics, precision), name=f"{physics}-{precision}")
            traces[precision] = read_gather(os.path.join(tmp, f"{physics}-{precision}.h5"))["traces"]
        single, mixed = traces["float32"].astype(np.float64), traces["mixed"].astype(np.float64)
        off = misfit(mixed, single)
        if not (np.isfinite(mixed).all() and 0.0 < off <= LONG_LIMIT):
            failed.append(physics)
        notes.append(f"{physics} {100 * off:.3f}%")
    check(not failed, f"after {LONG_STEPS} steps mixed is too far from float32 (or the same) for "
                      f"{', '.join(failed)}: " + ", ".join(notes) + f" (limit {100 * LONG_LIMIT:g}%)")
    return f"after {LONG_STEPS} steps: " + ", ".join(notes) + f" (limit {100 * LONG_LIMIT:g}%)"


@heavy
def test_water_beside_rock_along_x(tmp):
    """Every physics with shear waves (a vs), its first layer's medium
    (testlib's LAYER_VALUES: a fluid, vs 0) beside its third (a solid)
    across x = 195 m, inside a block of 16 points along x. The fluid's
    lambda + 2 mu and lambda share their blocks' exponents, and so do its
    three normal stresses, so that its 2 mu (their difference) stays 0 and
    its stress a pressure, whatever the solid's values round to (2 mu came
    out at +-1e5 Pa, 1.9% off float32). 3000 steps with a free surface:
    mixed within 1% of float32."""
    n, h, split = (40, 24, 24), 10.0, 20
    notes = []
    for physics in declared_physics("cpu"):
        names = physics_parameters(physics)
        if "vs" not in names:
            continue
        paths = {}
        for name in names:
            fluid, solid = LAYER_VALUES[name][0], LAYER_VALUES[name][2]
            volume = np.full((n[2], n[1], n[0]), solid, dtype="<f4")
            volume[:, :, :split] = fluid
            paths[name] = f"{physics}-{name}.bin"
            volume.tofile(os.path.join(tmp, paths[name]))
        traces = {}
        for precision in ("float32", "mixed"):
            job = {"grid": {"nx": n[0], "ny": n[1], "nz": n[2], "dx": h, "dy": h, "dz": h},
                   "time": {"dt": "auto", "nt": 3000},
                   "physics": {"type": physics, "order": 8},
                   "model": {"type": "raw", "paths": paths, "dims": list(n)},
                   "boundaries": {"cpml": 6, "free_surface": True},
                   "source": {"type": "explosive", "position": [120.3, 115.2, 110.7],
                              "frequency": 15.0},
                   "receivers": {"components": ["vx", "vz", "p"],
                                 "line": {"start": [70.0, 115.0, 20.0],
                                          "end": [330.0, 115.0, 20.0], "count": 14}},
                   "output": {"gather": f"{physics}-{precision}.h5", "overwrite": True},
                   "run": {"precision": precision}}
            run_job(tmp, job, name=f"{physics}-{precision}")
            traces[precision] = read_gather(os.path.join(tmp, f"{physics}-{precision}.h5"))[
                "traces"].astype(np.float64)
        off = misfit(traces["mixed"], traces["float32"])
        check(off <= 0.01, f"{physics}, fluid beside solid: mixed {100 * off:.3f}% from float32 "
                           f"(limit 1%)")
        notes.append(f"{physics} {100 * off:.3f}%")
    check(notes, "no declared physics has a vs")
    return ", ".join(notes) + " from float32 after 3000 steps (limit 1%)"


# The layer thickness of the reflection study here: thin enough that its
# reflection stands above mixed's rounding noise, which lies near -65 dB of
# the direct peak after the study's 394 steps (a 20-point layer's -78 to
# -88 dB would be that noise, not the layer).
THIN_CPML = 5


@heavy
def test_cpml_reflects_as_in_float32(tmp):
    """test_physics's reflection study (the small box against itself
    embedded 52 points deeper) with THIN_CPML-point layers, on 1 rank, in
    each precision: every receiver's reflection in mixed within 3 dB of
    float32's."""
    levels = {}
    for precision in ("float32", "mixed"):
        jobs = {}
        for extend, name in ((52, f"reference-{precision}"), (0, f"small-{precision}")):
            job = jobs[extend] = reflection_job(extend, name)
            job["boundaries"]["cpml"] = THIN_CPML
            job["time"]["duration"] = 0.8   # the reference's thinner layers echo later
            job["run"] = {"precision": precision}
            run_job(tmp, job, name=name)
        levels[precision] = reflection_levels(
            read_gather(os.path.join(tmp, f"small-{precision}.h5")),
            read_gather(os.path.join(tmp, f"reference-{precision}.h5")), jobs[0], jobs[52])
    for (pos, geometry, _), single, mixed in zip(BOX_RECEIVERS, levels["float32"], levels["mixed"]):
        check(abs(mixed - single) <= 3.0,
              f"receiver at {pos} ({geometry}): a {THIN_CPML}-point CPML reflects {mixed:.1f} dB "
              f"of the direct peak in mixed, {single:.1f} dB in float32 (limit 3 dB apart)")
    return f"{THIN_CPML}-point layers: mixed " + ", ".join(f"{x:.1f}" for x in levels["mixed"]) + \
        " dB, float32 " + ", ".join(f"{x:.1f}" for x in levels["float32"])


def test_gpu_mixed_precision_is_refused_on_cuda_and_auto_runs_it_on_the_cpu(tmp):
    """Where a GPU is (mixed has no CUDA kernels yet): run.device: cuda is
    one error naming the key; auto runs the job on the CPU with a note,
    recording what run.device: cpu records."""
    from test_gpu import require_gpus
    require_gpus()
    gathers = {}
    for device in ("cuda", "auto", "cpu"):
        job = trapped_job("acoustic", "mixed", n=24)
        job["time"]["nt"] = 60
        job["run"]["device"] = device
        job["output"]["gather"] = f"{device}.h5"
        rc, out, err = run_job(tmp, job, name=device, expect_ok=device != "cuda")
        if device == "cuda":
            check(rc == 1 and "run.device: precision mixed has no cuda kernels yet; use cpu, or "
                  "precision float32 on cuda" in err and err.count("seisfd: error") == 1,
                  f"cuda with mixed: exit {rc}:\n{err}")
            continue
        check(device == "cpu" or "note: precision mixed has no cuda kernels yet; auto runs it "
              "on the cpu" in out + err, f"auto with mixed: no note:\n{out}\n{err}")
        gathers[device] = read_gather(os.path.join(tmp, f"{device}.h5"))["traces"]
    check(np.array_equal(gathers["auto"], gathers["cpu"]), "auto's gather is not the cpu's")
    return "cuda refused; auto ran on the cpu with its note"
