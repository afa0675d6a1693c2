"""The pseudo-acoustic VTI and TTI physics: the isotropic limit, Thomsen's
exact group velocities, the tilt, long-run stability and the job checks of
their parameters (rank invariance, survey shots and the guard are the
conformance suite's, tests/test_conformance.py)."""
import copy
import math
import os
import re

import numpy as np

from testlib import base_job, check, heavy, read_gather, run, run_job, write_job

SIGMA = 0.75   # vsz^2 = vp^2 (epsilon - delta) / sigma (README, "Anisotropic media")


def anisotropic(job, kind, **params):
    job = copy.deepcopy(job)
    job["physics"] = {"type": kind, "order": 8}
    job["model"].update(params)
    return job


def peak_ratio(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


def test_isotropic_limit_is_the_acoustic_gather(tmp):
    """epsilon = delta = 0 (any tilt) gives the acoustic gather to 1e-5 of
    its peak: p = q, and H1 + H2 is the Laplacian."""
    job = base_job(n=(44, 40, 42), cpml=10, duration=0.25, dt=0.001, frequency=15.0)
    job["receivers"] = {"line": {"start": [100, 200, 100], "end": [340, 200, 330], "count": 9}}
    run_job(tmp, job, name="acoustic", ranks=2)
    reference = read_gather(os.path.join(tmp, "gather.h5"))["traces"]
    worst = []
    for kind, extra in (("vti", {}), ("tti", {"theta": 37.0, "phi": 21.0})):
        run_job(tmp, anisotropic(job, kind, epsilon=0.0, delta=0.0, **extra), name=kind, ranks=2)
        traces = read_gather(os.path.join(tmp, "gather.h5"))["traces"]
        worst.append(peak_ratio(traces, reference))
        check(worst[-1] < 1e-5, f"{kind}: differs from the acoustic gather by {worst[-1]:.2e} "
                                "of its peak")
    return "vti %.1e, tti %.1e of the peak" % tuple(worst)


def thomsen_phase(theta, vp, eps, delta, vs):
    """Thomsen's (1986) exact qP phase velocity at phase angle theta from the axis."""
    f = 1.0 - (vs / vp) ** 2
    s2 = math.sin(theta) ** 2
    root = math.sqrt((1.0 + 2.0 * eps * s2 / f) ** 2 - 2.0 * (eps - delta) * math.sin(2 * theta) ** 2 / f)
    return vp * math.sqrt(1.0 + eps * s2 - f / 2.0 + f / 2.0 * root)


def thomsen_group(psi, vp, eps, delta, vs):
    """The exact group velocity at group angle psi: the phase angle whose
    ray leaves at psi, found by bisection (no cusps for qP)."""
    def ray(theta):
        h = 1e-6
        v = thomsen_phase(theta, vp, eps, delta, vs)
        dv = (thomsen_phase(theta + h, vp, eps, delta, vs) -
              thomsen_phase(theta - h, vp, eps, delta, vs)) / (2 * h)
        angle = math.atan2(math.sin(theta) * v + math.cos(theta) * dv,
                           math.cos(theta) * v - math.sin(theta) * dv)
        return angle, math.hypot(v, dv)
    lo, hi = 0.0, math.pi / 2
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        lo, hi = (mid, hi) if ray(mid)[0] < psi else (lo, mid)
    return ray(0.5 * (lo + hi))[1]


def peak_time(trace, dt):
    """The time of the largest sample, refined by a parabola through its neighbours."""
    n = int(np.argmax(trace))
    a, b, c = trace[n - 1], trace[n], trace[n + 1]
    return (n + 0.5 * (a - c) / (a - 2 * b + c)) * dt


ANGLES = (0, 15, 30, 45, 60, 75, 90)


def traveltime_errors(tmp, kind, precision="float32"):
    """A point source in a homogeneous medium with Thomsen's epsilon 0.24,
    delta 0.1: the relative error of the direct wave's peak time at
    receivers 400 m away, at each of ANGLES from the symmetry axis, against
    Thomsen's exact group velocity (with the axis shear velocity the
    formulation adds). vti: the axis along z; tti: tilted 45 degrees from z
    towards x (theta 45, phi 0), where its mixed derivatives weigh most, the
    receivers in the x-z plane at 45 degrees less each angle from z."""
    vp, eps, delta, f0, r = 2000.0, 0.24, 0.1, 12.0, 400.0
    vs = vp * math.sqrt((eps - delta) / SIGMA)
    src = [450.0, 150.0, 450.0]
    tilt = 45.0 if kind == "tti" else 0.0
    from_z = [tilt - a if tilt else a for a in ANGLES]   # away from the x-min layer
    points = [[src[0] + r * math.sin(math.radians(z)), src[1], src[2] + r * math.cos(math.radians(z))]
              for z in from_z]
    job = base_job(n=(96, 31, 96), cpml=12, duration=0.42, dt=0.0008, source=src,
                   receivers=points, frequency=f0)
    job["receivers"]["sampling"] = 0.0002
    job["run"] = {"precision": precision}
    job = anisotropic(job, kind, epsilon=eps, delta=delta,
                      **({"theta": tilt, "phi": 0.0} if kind == "tti" else {}))
    name = f"{kind}-{precision}"
    job["output"]["gather"] = f"{name}.h5"
    run_job(tmp, job, name=name, ranks=2)
    g = read_gather(os.path.join(tmp, f"{name}.h5"))
    errors = []
    for angle, trace in zip(ANGLES, g["traces"]):
        expected = r / thomsen_group(math.radians(angle), vp, eps, delta, vs)
        errors.append((peak_time(trace, g["dt"]) - 1.5 / f0) / expected - 1.0)
    return np.array(errors)


def test_vti_first_arrivals_follow_thomsen_group_velocity(tmp):
    """VTI's peak times at angles 0..90 degrees (traveltime_errors) are
    Thomsen's group velocity's, to 0.5%."""
    errors = traveltime_errors(tmp, "vti")
    lines = ", ".join(f"{a}: {e:+.4f}" for a, e in zip(ANGLES, errors))
    check(np.abs(errors).max() < 0.005, "travel times against Thomsen's group velocity: " + lines)
    return f"worst {100 * np.abs(errors).max():.2f}% over 0..90 degrees (limit 0.5%)"


@heavy
def test_mixed_precision_first_arrivals_follow_thomsen_group_velocity(tmp):
    """run.precision: mixed, VTI and TTI (tilted 45 degrees): the peak
    times keep within 0.5% of Thomsen's group velocity and within 0.05% of
    float32's own."""
    notes = []
    for kind in ("vti", "tti"):
        single = traveltime_errors(tmp, kind)
        mixed = traveltime_errors(tmp, kind, "mixed")
        apart = np.abs((1 + mixed) / (1 + single) - 1).max()
        check(np.abs(mixed).max() < 0.005 and apart < 0.0005,
              f"{kind} mixed: errors {', '.join(f'{e:+.5f}' for e in mixed)} (float32 "
              f"{', '.join(f'{e:+.5f}' for e in single)}), {100 * apart:.3f}% from float32's")
        notes.append(f"{kind} worst {100 * np.abs(mixed).max():.2f}%, {100 * apart:.4f}% from float32")
    return "; ".join(notes) + " (limits 0.5%, 0.05%)"


def swapped(job, a, b):
    """The same job with grid axes a and b exchanged (0 x, 1 y, 2 z)."""
    job = copy.deepcopy(job)
    names = ("nx", "ny", "nz")
    g = job["grid"]
    g[names[a]], g[names[b]] = g[names[b]], g[names[a]]

    def swap(p):
        p = list(p)
        p[a], p[b] = p[b], p[a]
        return p
    job["source"]["position"] = swap(job["source"]["position"])
    job["receivers"]["points"] = [swap(p) for p in job["receivers"]["points"]]
    return job


def test_tilt_of_90_degrees_is_vti_with_axes_exchanged(tmp):
    """TTI with its axis along x (theta 90, phi 0) or y (theta 90, phi 90)
    records what VTI records on the grid with that axis and z exchanged,
    to 1e-5 of the peak."""
    job = base_job(n=(46, 38, 42), cpml=10, duration=0.3, dt=0.001, frequency=14.0,
                   source=[203.0, 171.0, 188.0],
                   receivers=[[303.0, 171.0, 188.0], [203.0, 271.0, 188.0], [203.0, 171.0, 308.0],
                              [281.0, 242.0, 260.0], [130.0, 100.0, 95.0]])
    eps, delta = 0.22, 0.08
    results = []
    for axis, phi in ((0, 0.0), (1, 90.0)):
        run_job(tmp, anisotropic(job, "tti", epsilon=eps, delta=delta, theta=90.0, phi=phi),
                name="tti", ranks=2)
        tilted = read_gather(os.path.join(tmp, "gather.h5"))["traces"]
        run_job(tmp, anisotropic(swapped(job, axis, 2), "vti", epsilon=eps, delta=delta),
                name="vti", ranks=2)
        vti = read_gather(os.path.join(tmp, "gather.h5"))["traces"]
        results.append(peak_ratio(tilted, vti))
        check(results[-1] < 1e-5, f"axis {'xy'[axis]}: TTI differs from the exchanged VTI by "
                                  f"{results[-1]:.2e} of the peak")
    return "axis x %.1e, axis y %.1e of the peak" % tuple(results)


def layered_tti_job(n=(36, 30, 44), duration=0.3, dt=0.001, cpml=10):
    """A tilted, layered medium with a free surface: the tilt and the
    anisotropy change across the layers."""
    job = base_job(n=n, cpml=cpml, duration=duration, dt=dt, frequency=12.0,
                   source=[171.3, 148.2, 121.7])
    job["physics"] = {"type": "tti", "order": 8}
    job["model"] = {"type": "layered", "layers": [
        {"top": 0, "vp": 1800, "epsilon": 0.1, "delta": 0.05, "theta": 30, "phi": 20},
        {"top": 170, "vp": 2400, "epsilon": 0.25, "delta": 0.1, "theta": 50, "phi": -40},
        {"top": 300, "vp": 2800, "epsilon": 0.15, "delta": -0.05, "theta": -20, "phi": 75}]}
    job["boundaries"]["free_surface"] = True
    job["receivers"] = {"line": {"start": [60.5, 150.0, 15.0], "end": [290.5, 150.0, 15.0],
                                 "count": 8},
                        "points": [[170.0, 140.0, 118.7], [190.0, 150.0, 240.5],
                                   [150.0, 160.0, 345.2]]}
    return job


@heavy
def test_tti_stays_bounded_for_20000_steps(tmp):
    """20 000 steps of a tilted, layered medium with a free surface: the
    energy leaves through the absorbing layers and nothing grows (the
    guard finds no non-finite value, and the last traces are far below the
    direct wave). Growth that only long runs of other media would show is
    what tests/test_long_runs.py and make test-long look for."""
    job = layered_tti_job(n=(24, 22, 26), duration=None, dt=0.001, cpml=8)
    job["time"] = {"dt": 0.001, "nt": 20000}
    job["source"]["position"] = [111.3, 98.2, 121.7]
    job["receivers"] = {"points": [[60.0, 100.0, 50.0], [180.0, 120.0, 200.0]]}
    job["run"] = {"check_every": 1000}
    run_job(tmp, job, ranks=2)
    traces = read_gather(os.path.join(tmp, "gather.h5"))["traces"]
    check(np.all(np.isfinite(traces)), "non-finite samples")
    peak = np.abs(traces).max()
    middle = np.abs(traces[:, 10000:12000]).max()
    tail = np.abs(traces[:, -2000:]).max()
    # The formulation's qSV wave leaves slowly through layers where the
    # tilt is oblique (halving in about 2 s here): the late field decays,
    # more slowly than VTI's.
    check(tail < 1e-4 * peak and tail < 0.25 * middle,
          f"the last 2000 samples reach {tail / peak:.2e} of the peak, steps 10000..12000 "
          f"{middle / peak:.2e}")
    return f"steps 10000..12000 at {middle / peak:.1e}, the last 2000 at {tail / peak:.1e} of the peak"


def test_tti_growth_where_the_tilt_jumps_is_stopped(tmp):
    """A known limit of the pseudo-acoustic TTI system, kept in view: in a
    closed box (no absorbing layers, a free surface) of three layers whose
    tilt, azimuth, epsilon and delta jump, the reverberating field grows
    (the tilt's weights at each point times the second and mixed
    derivatives are not a symmetric operator where they change). The norm
    swings as it grows, so that no run of rises forms; the guard's
    envelope rule stops the run with its message, and no gather is
    written. The test fails if the run ends (the system made stable: then
    keep the box as a bound test instead)."""
    job = layered_tti_job(n=(40, 40, 40), duration=None, dt=None, cpml=0)
    job["time"] = {"dt": "auto", "nt": 12000}
    job["source"].update(position=[200.0, 200.0, 100.0], frequency=15.0)
    job["receivers"] = {"line": {"start": [50, 200, 50], "end": [350, 200, 50], "count": 31}}
    rc, out, err = run_job(tmp, job, expect_ok=False)
    m = re.search(r"unstable: the wavefield grows after the source has ended: the norm of (\w) "
                  r"(swung up|rose at each).* x ([0-9.e+]+) from step (\d+) to (\d+)", err)
    check(rc != 0 and m, f"the growing box was not stopped (exit {rc}):\n{err[-2000:]}")
    check(not os.path.exists(os.path.join(tmp, "gather.h5")), "a gather was written")
    return f"stopped at step {m.group(5)}: the norm of {m.group(1)} {m.group(2)}, x {m.group(3)}"


def test_tti_beside_the_layers(tmp):
    """TTI (theta 45, phi 30, epsilon 0.3, delta 0.1) with 8-point layers:
    receivers 10 to 300 m from the x-min layer, off the source along the
    layer and in line with it, record what the same receivers record on a
    grid 40 points longer on that side, to 0.1% of each one's peak until
    50 ms after it (the stretched mixed derivatives and the unturned tilt
    leave no fast path along the layer; the turned tilt sent a precursor
    up to 3.2% of the peak, 0.18 ms early, 90 to 120 m away)."""
    distances = (10, 30, 60, 100, 300)

    def gather(name, extend):
        job = {"grid": {"nx": 64 + extend, "ny": 44, "nz": 36, "dx": 10, "dy": 10, "dz": 10,
                        "origin": [-10.0 * extend, 0, 0]},
               "time": {"dt": "auto", "duration": 0.28},
               "physics": {"type": "tti", "order": 8},
               "model": {"type": "homogeneous", "vp": 3000, "epsilon": 0.3, "delta": 0.1,
                         "theta": 45, "phi": 30},
               "boundaries": {"cpml": 8},
               "source": {"position": [300.3, 110.2, 180.1], "frequency": 12},
               "receivers": {"points": [[80.0 + d, 310.0, 180.0] for d in distances] +
                                       [[80.0 + d, 110.0, 180.0] for d in (10, 60)]},
               "output": {"gather": f"{name}.h5", "overwrite": True}}
        run_job(tmp, job, name=name)
        g = read_gather(os.path.join(tmp, f"{name}.h5"))
        return g["traces"], g["dt"]

    traces, dt = gather("layer", 0)
    reference, _ = gather("extended", 40)
    worst = []
    for r in range(len(reference)):
        peak_at = int(np.argmax(np.abs(reference[r])))
        end = peak_at + int(0.05 / dt)
        off = float(np.abs(traces[r, :end] - reference[r, :end]).max() / np.abs(reference[r]).max())
        worst.append(off)
        check(off < 1e-3, f"receiver {r}: {100 * off:.3f}% of its peak off the extended grid's")
    return (f"{100 * max(worst[:len(distances)]):.3f}% off at 10..300 m along the layer, "
            f"{100 * max(worst[len(distances):]):.3f}% in line with the source")


# A valid VTI job; the cases below edit single lines, so line numbers are known.
VTI = """\
grid: {nx: 40, ny: 40, nz: 40, dx: 10, dy: 10, dz: 10}
time: {dt: 0.001, duration: 0.1}
physics:
  type: vti
model:
  type: homogeneous
  vp: 2000
  epsilon: 0.2
  delta: 0.1
boundaries: {cpml: 10}
source: {position: [200, 200, 200], frequency: 10}
receivers:
  points: [[250, 200, 200]]
output:
  gather: g.h5
"""


def test_anisotropic_job_checks(tmp):
    """Every mistake in the parameters of a VTI or TTI job is reported at
    its key and line: a delta above epsilon (unstable), a gap the shear
    velocity cannot keep, other physics' keys, missing parameters, ranges,
    source types and components the pseudo-acoustic physics do not have."""
    from test_config import check_job, edit, expect_error
    rc, out, err = check_job(tmp, VTI)
    check(rc == 0, f"the valid VTI job was refused:\n{err}")
    expect_error(tmp, edit(VTI, "  delta: 0.1", "  delta: 0.3"),
                 r"job\.yaml:9:10: model\.delta: delta = 0\.3 exceeds epsilon = 0\.2: the "
                 r"pseudo-acoustic system is unstable where delta > epsilon")
    expect_error(tmp, edit(VTI, "  epsilon: 0.2", "  epsilon: 0.7"),
                 r"job\.yaml:9:10: model\.delta: epsilon - delta = 0\.7 - 0\.1 exceeds 0\.5")
    expect_error(tmp, edit(VTI, "  delta: 0.1", "  delta: 0.1\n  vs: 100\n  theta: 10"),
                 r"job\.yaml:10:7: model\.vs: only an elastic or visco_elastic job takes this key "
                 r"\(physics\.type: elastic or visco_elastic\); this job is vti",
                 r"job\.yaml:11:10: model\.theta: only a tti job takes this key")
    tti = edit(edit(VTI, "  type: vti", "  type: tti"), "  delta: 0.1", "  delta: 0.1\n  theta: 30")
    expect_error(tmp, tti, r"job\.yaml:6:3: model\.phi: required key is missing \(physics: tti "
                           r"needs vp, epsilon, delta, theta and phi\)")
    expect_error(tmp, edit(tti, "  theta: 30", "  theta: 200\n  phi: 0"),
                 r"job\.yaml:10:10: model\.theta: .*200")
    # A subnormal number is a number (strtod's underflow), within theta's range.
    rc, out, err = check_job(tmp, edit(tti, "  theta: 30", "  theta: 1e-320\n  phi: 0"))
    check(rc == 0, f"theta: 1e-320 was refused:\n{err}")
    expect_error(tmp, edit(VTI, "  epsilon: 0.2", "  epsilon: -0.6"),
                 r"job\.yaml:8:12: model\.epsilon: .*-0\.6")
    expect_error(tmp, edit(VTI, "frequency: 10}", "frequency: 10, type: explosive}"),
                 r"job\.yaml:11:\d+: source\.type: explosive sources need physics\.type: elastic or "
                 r"visco_elastic \(a vti job takes pressure\)")
    expect_error(tmp, edit(VTI, "  points: [[250, 200, 200]]",
                           "  points: [[250, 200, 200]]\n  components: [vz]"),
                 r"job\.yaml:14:16: receivers\.components: a vti job has pressure \(p\) only")
    expect_error(tmp, edit(VTI, "  gather: g.h5", "  gather: g.h5\n  energy: e.csv"),
                 r"job\.yaml:16:11: output\.energy: only an elastic job takes this key")
    layered = edit(VTI, "  type: homogeneous\n  vp: 2000\n  epsilon: 0.2\n  delta: 0.1\n",
                   "  type: layered\n  layers:\n    - {top: 0, vp: 2000, epsilon: 0.1, delta: 0.2}\n")
    expect_error(tmp, layered, r"job\.yaml:8:47: model\.layers\[0\]\.delta: delta = 0\.2 exceeds "
                               r"epsilon = 0\.1")
    return "10 kinds of mistake, each at its line"


def test_speed_bounds_of_a_model_file_are_its_points(tmp):
    """The qP phase velocities a VTI job reports (and takes dt from) are
    the least and greatest over a file of random points, on 1 and 3 ranks:
    the bounds' pass skips points by their squared speeds, and must skip
    no point that sets one. Many points have delta < 0, whose least speed
    lies between the axes (the vertex of Thomsen's g(s))."""
    rng = np.random.default_rng(7)
    n = (23, 19, 31)
    shape = (n[2], n[1], n[0])
    vp = rng.uniform(1500.0, 4500.0, shape)
    eps = rng.uniform(-0.1, 0.4, shape)
    delta = eps - rng.uniform(0.0, 0.45, shape)
    delta = np.maximum(delta, -0.29)
    fields = {"vp": vp, "epsilon": eps, "delta": delta}
    for name, values in fields.items():
        values.astype("<f4").tofile(os.path.join(tmp, name + ".bin"))
    v, e, d = (fields[k].astype("f4").astype("f8") for k in ("vp", "epsilon", "delta"))
    speeds, inside = qp_phase_speeds(v, e, d)
    slowest, fastest = speeds[0].min(), speeds[1].max()
    check(inside.sum() > 1000 and np.argmin(speeds[0]) != np.argmin(v),
          "the random model does not test the vertex")
    job = base_job(n=n, dt="auto", duration=0.05, cpml=5)
    job["physics"] = {"type": "vti", "order": 8}
    job["model"] = {"type": "raw", "paths": {k: k + ".bin" for k in fields}, "dims": list(n)}
    write_job(os.path.join(tmp, "job.yaml"), job)
    check_reported_speed_bounds(tmp, slowest, fastest)
    return f"{slowest:.2f} .. {fastest:.2f} m/s on 1 and 3 ranks"


def qp_phase_speeds(v, e, d):
    """The least and greatest qP phase speeds of points of vp v, epsilon e
    and delta d (Thomsen's g(s), with its vertex where it lies inside),
    and where the vertex counts."""
    ends = 1.0 + 2.0 * e
    gmin = np.minimum(ends, 1.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        vertex = -d / (2.0 * (e - d))
        least = 1.0 - d * d / (2.0 * (e - d))
    inside = (e > d) & (vertex > 0.0) & (vertex < 1.0)
    gmin = np.where(inside, np.minimum(gmin, least), gmin)
    return (v * np.sqrt(gmin), v * np.sqrt(np.maximum(ends, 1.0))), inside


def check_reported_speed_bounds(tmp, slowest, fastest):
    for ranks in (1, 3):
        rc, out, err = run(["check", "job.yaml"], ranks=ranks, cwd=tmp)
        check(rc == 0, err)
        found = re.search(r"qP phase velocities (\S+) \.\. (\S+) m/s", out)
        check(found, out)
        reported = [float(x) for x in found.groups()]
        expected = [float(f"{slowest:g}"), float(f"{fastest:g}")]
        check(reported == expected, f"{ranks} ranks: reported {reported}, the points' {expected}")


def test_speed_bounds_of_layers_are_those_in_the_grid(tmp):
    """A layered VTI job's qP phase velocities come from one point per
    plane: on 1 and 3 ranks they are the bounds over the layers the grid
    holds (the slowest of them at the vertex), and a faster layer below
    the grid does not count."""
    n = (18, 16, 30)
    h = 10.0
    layers = [  # top (m), vp, epsilon, delta
        (0.0, 2000.0, 0.1, 0.05),
        (90.0, 1900.0, 0.3, -0.2),     # the vertex's least, slowest of all
        (200.0, 3000.0, 0.25, 0.1),
        (400.0, 6000.0, 0.0, 0.0),     # below the grid's last plane at 290 m
    ]
    v, e, d = (np.array([layer[q] for layer in layers[:3]], "f4").astype("f8") for q in (1, 2, 3))
    speeds, inside = qp_phase_speeds(v, e, d)
    check(inside[1] and speeds[0].argmin() == 1, "the layers do not test the vertex")
    job = base_job(n=n, h=h, dt="auto", duration=0.05, cpml=5, receivers=[[100.0, 80.0, 50.0]])
    job["physics"] = {"type": "vti", "order": 8}
    job["model"] = {"type": "layered", "layers": [
        {"top": top, "vp": vp, "epsilon": eps, "delta": delta} for top, vp, eps, delta in layers]}
    write_job(os.path.join(tmp, "job.yaml"), job)
    check_reported_speed_bounds(tmp, speeds[0].min(), speeds[1].max())
    return f"{speeds[0].min():.2f} .. {speeds[1].max():.2f} m/s on 1 and 3 ranks"


def write_model_h5(path, fields):
    import h5py
    with h5py.File(path, "w") as f:
        for name, values in fields.items():
            f[name] = values   # [nz][ny][nx]


def test_tti_model_files_match_the_layered_model_and_name_bad_points(tmp):
    """A TTI model in one HDF5 file (a dataset per parameter) and in raw
    files (one per parameter) gives the layered model's gather bit for bit;
    a point with delta above epsilon in a file ends the run naming the grid
    point and both values. The layered model written out (output.model)
    holds each parameter with its declared unit."""
    job = layered_tti_job()
    job["output"]["model"] = "written.h5"
    run_job(tmp, job, ranks=2)
    del job["output"]["model"]
    reference = read_gather(os.path.join(tmp, "gather.h5"))["traces"]
    nx, ny, nz = (job["grid"][k] for k in ("nx", "ny", "nz"))
    layers = job["model"]["layers"]
    depth = np.arange(nz) * 10.0
    fields = {}
    for name in ("vp", "epsilon", "delta", "theta", "phi"):
        column = np.array([[l[name] for l in layers if l["top"] <= z][-1] for z in depth], "f4")
        fields[name] = np.broadcast_to(column[:, None, None], (nz, ny, nx)).copy()
    units = {"vp": "m/s", "epsilon": "dimensionless", "delta": "dimensionless",
             "theta": "degrees", "phi": "degrees"}
    import h5py
    with h5py.File(os.path.join(tmp, "written.h5"), "r") as f:
        check(sorted(f) == sorted(fields), f"output.model holds {sorted(f)}")
        for name, values in fields.items():
            unit = f[name].attrs["units"]
            unit = unit.decode() if isinstance(unit, bytes) else unit
            check(np.array_equal(f[name][:], values) and unit.startswith(units[name] + "; "),
                  f"output.model's {name}: units '{unit}', values differ: "
                  f"{not np.array_equal(f[name][:], values)}")
    write_model_h5(os.path.join(tmp, "model.h5"), fields)
    for name, values in fields.items():
        values.astype("<f4").tofile(os.path.join(tmp, name + ".bin"))
    for model in ({"type": "hdf5", "path": "model.h5"},
                  {"type": "raw", "paths": {n: n + ".bin" for n in fields}, "dims": [nx, ny, nz]}):
        filed = copy.deepcopy(job)
        filed["model"] = model
        run_job(tmp, filed, ranks=3)
        traces = read_gather(os.path.join(tmp, "gather.h5"))["traces"]
        check(np.array_equal(traces, reference), f"{model['type']}: differs from the layered model")
    bad = dict(fields)
    bad["delta"] = fields["delta"].copy()
    bad["delta"][7, 5, 3] = 0.4
    write_model_h5(os.path.join(tmp, "bad.h5"), bad)
    filed = copy.deepcopy(job)
    filed["model"] = {"type": "hdf5", "path": "bad.h5"}
    rc, out, err = run_job(tmp, filed, name="bad", ranks=2, expect_ok=False)
    check(rc != 0 and "model: at grid point (i=3, j=5, k=7), (30, 50, 70) m, delta = 0.4 exceeds "
          "epsilon = 0.1" in err, err)
    return "hdf5 and raw identical to layered; bad point named"
