"""Bounded for any run length (issue 23): one long run of every physics
seisfd declares with its absorbing layers, and the jobs whose layers grew
before the frequency shift's floor and TTI's stretched mixed derivatives. The field's
norm E(t) is measured as the sum of squares of a lattice of receivers
spread over the grid, the layers included. t0 is when the source has ended
(its signature below 1e-3 of its peak for good) and the slowest wave has
crossed the grid's diagonal; E(t0) is the most E holds in the settling
time after t0, two crossings or three periods of the peak frequency,
whichever is longer (waves that crossed once may still be on their way
back through another layer, and the pseudo-acoustic media's slow qSV
waves ring at about 1 Hz in these small boxes); later, for the rest of the run, E
must stay at or below max(E(t0), 1e-12 of its peak) times BOUND_FACTOR.
make test-long (tests/test_long_matrix.py) runs the full matrix of
physics, layer thicknesses and grid sizes for 50 000 steps."""
import math
import os

import h5py
import numpy as np

from testlib import check, declared_physics, heavy, medium, run_job

# How far above its level at t0 the norm may rise later: a wave that has
# crossed the grid may still focus or turn (layered media), never double.
BOUND_FACTOR = 2.0
NOISE_FLOOR = 1e-12
# The source has ended where its signature stays below this of its peak.
SOURCE_END = 1e-3
# vsz^2 = vp^2 (epsilon - delta) / SIGMA (README, "Anisotropic media").
SIGMA = 0.75


def lattice(n, h, count=5):
    """count^3 receivers from edge to edge of the grid (layers included)."""
    axes = [np.linspace(0.5 * h, (k - 1.5) * h, count) for k in n]
    return [[float(x), float(y), float(z)] for z in axes[2] for y in axes[1] for x in axes[0]]


def long_job(physics, n, h, vp, frequency, cpml, duration=None, steps=None, model=None,
             gather="long.h5"):
    job = {"grid": {"nx": n[0], "ny": n[1], "nz": n[2], "dx": h, "dy": h, "dz": h},
           "time": {"dt": "auto", **({"duration": duration} if duration else {"nt": steps})},
           "physics": {"type": physics, "order": 8},
           "model": {"type": "homogeneous", "vp": vp, **(model or {})},
           "boundaries": {"cpml": cpml},
           "source": {"position": [h * (k // 2) + 0.3 * h for k in n], "frequency": frequency},
           "receivers": {"points": lattice(n, h)},
           "output": {"gather": gather, "overwrite": True},
           "run": {"check_every": 0}}
    if physics == "elastic":
        job["receivers"]["components"] = ["vx", "vy", "vz"]
    return job


def norm_series(path):
    """E(t) (sum over receivers and components of the squared samples),
    the sample interval, and t0: the source's end plus the longest travel
    time, from the gather's own record of its signature and grid."""
    with h5py.File(path, "r") as f:
        traces = f["traces"][:].astype(np.float64)
        dt = float(f.attrs["dt"])
        wavelet = f["source_wavelet"]
        signature = np.abs(wavelet[:])
        step = float(wavelet.attrs["sample_interval"])
        start = float(wavelet.attrs["start_time"])
    check(np.all(np.isfinite(traces)), f"{path}: non-finite samples")
    above = np.nonzero(signature > SOURCE_END * signature.max())[0]
    source_end = start + step * float(above[-1])
    energy = (traces.reshape(-1, traces.shape[-1]) ** 2).sum(axis=0)
    return energy, dt, source_end


def check_bounded(path, crossing, frequency):
    """E after t0 = source end + crossing time against its level then;
    returns (t0, E(t0)/peak, the largest later E over max(E(t0), floor))."""
    energy, dt, source_end = norm_series(path)
    t0 = source_end + crossing
    settle = max(2.0 * crossing, 3.0 / frequency)
    i0, i1 = int(math.ceil(t0 / dt)), int(math.ceil((t0 + settle) / dt))
    check(i1 + 10 < len(energy), f"{path}: the run ends before t0 + {settle:.3f} s = {t0 + settle:.3f} s")
    peak = energy.max()
    level = max(energy[i0:i1].max(), NOISE_FLOOR * peak)
    later = energy[i1:].max()
    worst_at = (i1 + int(np.argmax(energy[i1:]))) * dt
    check(later <= BOUND_FACTOR * level,
          f"{path}: E grows after t0 = {t0:.2f} s: {later / level:.3g} times its level there "
          f"({later / peak:.2e} of the peak, at {worst_at:.2f} s)")
    return t0, level / peak, later / level


def crossing_time(n, h, slowest):
    return math.sqrt(sum(((k - 1) * h) ** 2 for k in n)) / slowest


def bounded_case(tmp, name, physics, n, h, vp, frequency, cpml, duration, model=None, ranks=1,
                 slowest=None, precision="float32"):
    job = long_job(physics, n, h, vp, frequency, cpml, duration=duration, model=model,
                   gather=f"{name}.h5")
    job["run"]["precision"] = precision
    run_job(tmp, job, name=name, ranks=ranks)
    t0, level, rise = check_bounded(os.path.join(tmp, f"{name}.h5"),
                                    crossing_time(n, h, slowest or vp), frequency)
    return f"{name}: t0 {t0:.2f} s, E(t0) {level:.1e} of its peak, later at most {rise:.2f} x that"


@heavy
def test_acoustic_low_frequency_long_record(tmp):
    """The 25^3 job at 4500 m/s and 3 Hz with 6-point layers, 12 s (it grew
    to 3.9e5 from a peak of 2.6e-3), and the 41^3 one with 10-point layers
    on 2 ranks (3.3e6)."""
    notes = [bounded_case(tmp, "small", "acoustic", (25, 25, 25), 10.0, 4500.0, 3.0, 6, 12.0),
             bounded_case(tmp, "ranks", "acoustic", (41, 41, 41), 10.0, 4500.0, 3.0, 10, 8.0,
                          ranks=2)]
    return "; ".join(notes)


def slowest_wave(model):
    """The slowest wave of a homogeneous medium, from the parameters it
    has: its shear waves (vs) where it has them, the pseudo-acoustic axis
    shear velocity vp sqrt((epsilon - delta) / 0.75) where it is
    anisotropic (README, "Anisotropic media"), else vp."""
    speeds = [model["vp"]] + ([model["vs"]] if model.get("vs") else [])
    if "epsilon" in model:
        speeds.append(model["vp"] * math.sqrt((model["epsilon"] - model["delta"]) / SIGMA))
    return min(speeds)


def every_physics_long_record(tmp, precision="float32"):
    notes = []
    for physics in declared_physics("cpu"):
        model = medium(physics)
        extra = {k: v for k, v in model.items() if k not in ("type", "vp")}
        notes.append(bounded_case(tmp, physics, physics, (25, 25, 25), 10.0, model["vp"], 3.0, 6,
                                  4.0, model=extra, slowest=slowest_wave(model),
                                  precision=precision))
    return "; ".join(notes)


@heavy
def test_every_physics_long_record(tmp):
    """Each physics seisfd declares, in its homogeneous medium (testlib's
    medium: vp 3000 m/s; TTI tilted 30 degrees, where its mixed
    derivatives grew unstretched), on the 25^3 grid with 6-point layers at
    3 Hz, 4 s."""
    return every_physics_long_record(tmp)


@heavy
def test_every_physics_long_record_in_mixed_precision(tmp):
    """The same with run.precision: mixed, whose 16-bit blocks round the
    memory variables of the layers too."""
    return every_physics_long_record(tmp, "mixed")


def test_tti_fast_long_record(tmp):
    """TTI at 45 degrees with vp 20000 m/s, epsilon 2, delta 1.6 and 15 Hz
    for 0.5 s on the 25^3 grid with 6-point layers (1.1e17 within 0.3 s)."""
    return bounded_case(tmp, "fast", "tti", (25, 25, 25), 10.0, 20000.0, 15.0, 6, 0.5,
                        model={"epsilon": 2.0, "delta": 1.6, "theta": 45, "phi": 30},
                        slowest=20000.0 * math.sqrt(0.4 / 0.75))
