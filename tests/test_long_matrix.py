"""The long matrix of issue 23 (make test-long on the CPU, make
test-long-gpu on a GPU; not in make test): every physics with absorbing
layers of 6, 10 and 20 points, on a grid smaller than a wavelength and on
one several wavelengths across, for 50 000 steps each, bounded as
tests/test_long_runs.py measures it: after the source has ended and the
slowest wave has crossed the grid, and a settling time, the norm of a
lattice of receivers never exceeds twice its level then. Each case's time
is in its test's line."""
import math
import os
import time

from test_long_runs import check_bounded, crossing_time, long_job
from testlib import check, run, write_job

# A case of 50 000 steps takes minutes on 2 cores (TTI on 71^3 about 15).
CASE_SECONDS = 3600

STEPS = 50000
THICKNESSES = (6, 10, 20)
# vp, and what each physics adds to the model; its slowest wave.
MEDIA = {
    "acoustic": ({}, 1.0),
    "elastic": ({"vs": 1700.0, "rho": 2200.0}, 1700.0 / 3000.0),
    "vti": ({"epsilon": 0.3, "delta": 0.1}, math.sqrt(0.2 / 0.75)),
    "tti": ({"epsilon": 0.3, "delta": 0.1, "theta": 45, "phi": 30}, math.sqrt(0.2 / 0.75)),
}
VP = 3000.0


def grids(thick):
    """(name, points per axis, spacing, peak frequency): 2 thick + 13
    points at 10 m with a 1000 m wavelength, and 2 thick + 31 points at
    20 m with a 500 m one."""
    return (("small", 2 * thick + 13, 10.0, 3.0), ("large", 2 * thick + 31, 20.0, 6.0))


def matrix(tmp, physics, device):
    if device == "cuda":
        from test_gpu import require_gpus
        require_gpus(1)
    model, slowest = MEDIA[physics]
    lines = []
    for thick in THICKNESSES:
        for size, n, h, f in grids(thick):
            name = f"{physics}-{thick}-{size}"
            job = long_job(physics, (n, n, n), h, VP, f, thick, steps=STEPS, model=model,
                           gather=f"{name}.h5")
            job["run"]["device"] = device
            started = time.time()
            path = write_job(os.path.join(tmp, f"{name}.yaml"), job)
            rc, _, err = run(["run", path], cwd=tmp, timeout=CASE_SECONDS)
            check(rc == 0, f"{name} failed (exit {rc}):\n{err[-2000:]}")
            t0, level, rise = check_bounded(os.path.join(tmp, f"{name}.h5"),
                                            crossing_time((n, n, n), h, slowest * VP), f)
            os.remove(os.path.join(tmp, f"{name}.h5"))
            lines.append(f"{thick}-point {size} {n}^3 {time.time() - started:.0f} s: "
                         f"E(t0) {level:.1e} of the peak, later {rise:.2f} x")
    return "; ".join(lines)


def test_cpu_acoustic(tmp):
    return matrix(tmp, "acoustic", "cpu")


def test_cpu_elastic(tmp):
    return matrix(tmp, "elastic", "cpu")


def test_cpu_vti(tmp):
    return matrix(tmp, "vti", "cpu")


def test_cpu_tti(tmp):
    return matrix(tmp, "tti", "cpu")


def test_gpu_acoustic(tmp):
    return matrix(tmp, "acoustic", "cuda")


def test_gpu_elastic(tmp):
    return matrix(tmp, "elastic", "cuda")


def test_gpu_vti(tmp):
    return matrix(tmp, "vti", "cuda")


def test_gpu_tti(tmp):
    return matrix(tmp, "tti", "cuda")
