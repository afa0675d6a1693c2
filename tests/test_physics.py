"""Physics of the acoustic solver against analytic solutions and at the
boundaries (rank invariance and receivers at the grid's edge are the
conformance suite's, tests/test_conformance.py)."""
import math
import os

import numpy as np

from testlib import base_job, check, direct_wave, heavy, read_gather, run_job

V = 2000.0


def misfit(data, reference):
    return float(np.linalg.norm(data - reference) / np.linalg.norm(reference))


def test_homogeneous_matches_analytic(tmp):
    """p = s(t - r/v) / (4 pi r) in amplitude and shape, 8 points per
    minimum wavelength (2.5 f0), several distances and directions."""
    f0, h = 10.0, 10.0
    src = [503.3, 498.1, 501.7]
    offsets = [[100, 0, 0], [0, 200, 0], [200, 100, -100], [-150, 0, 200], [120, -160, 90]]
    job = base_job(n=(100, 100, 100), h=h, vp=V, cpml=20, duration=0.45, dt=0.001,
                   source=src, receivers=[[s + o for s, o in zip(src, off)] for off in offsets],
                   frequency=f0)
    run_job(tmp, job, ranks=2)
    g = read_gather(os.path.join(tmp, "gather.h5"))
    t = np.arange(g["traces"].shape[1]) * g["dt"]
    delay = 1.5 / f0
    check(abs(V / (2.5 * f0 * h) - 8.0) < 1e-9, "test set-up must sample 8 points per wavelength")
    worst = 0.0
    for trace, pos in zip(g["traces"], g["receivers"]):
        r = float(np.linalg.norm(pos - g["source"]))
        exact = direct_wave(t, r, V, f0, delay)
        window = np.abs(t - (r / V + delay)) <= 1.5 / f0
        m = misfit(trace[window], exact[window])
        check(m <= 0.02, f"receiver at r = {r:.1f} m: relative L2 misfit {m:.4f} > 2%")
        peak = trace[window].max() / exact[window].max()
        check(abs(peak - 1.0) < 0.02, f"r = {r:.1f} m: peak amplitude ratio {peak:.4f}")
        worst = max(worst, m)
    return f"worst misfit {100 * worst:.2f}% (limit 2%)"


# The reflection of a 20-point CPML is pinned to the levels the code of
# commit 1be62ef gives (dB of the direct arrival's peak; the same on 1 and 4
# ranks): a level more than LEVEL_TOLERANCE_DB from its recording, above or
# below, means the layer absorbs differently. If that is meant, measure the
# levels again and record them here.
LEVEL_TOLERANCE_DB = 1.0
# The design reflection R of a 20-point layer (README, "Absorbing boundaries").
CPML_R = 1e-4

# Receivers of the 80x80x72 box around a central source: position,
# geometry, recorded level. A level is the largest return at the receiver,
# whichever layer it comes from: at the face receivers the returns from the
# outer walls of the neighbouring faces' layers can exceed the face's own
# (by 5 dB at the +x receiver, 0.4 to 0.5 s).
BOX_RECEIVERS = [
    ([581.0, 401.0, 361.0], "normal incidence, 9 m from the +x CPML", -88.0),
    ([401.0, 215.0, 361.0], "normal incidence, 15 m from the -y CPML", -87.6),
    ([401.0, 401.0, 505.0], "normal incidence, 5 m from the +z CPML", -85.3),
    ([565.0, 565.0, 495.0], "towards the +x+y+z corner, 25, 25, 15 m from its CPML", -84.7),
    ([585.0, 585.0, 505.0], "corner: 5 m from each of the +x, +y, +z CPML", -78.0),
    ([215.0, 401.0, 215.0], "towards the -x-z edge, 15 m from both CPML", -84.5),
]


def reflection_job(extend, name):
    """An 80x80x72 box with 20-point CPML, optionally embedded `extend`
    points deeper on every side (same coordinates) as a reflection-free
    reference."""
    h, n = 10.0, (80, 80, 72)
    job = base_job(n=tuple(k + 2 * extend for k in n), h=h, vp=V, cpml=20, duration=0.63,
                   dt=0.0016, source=[401.3, 398.7, 361.1], frequency=16.0,
                   gather=name + ".h5")
    job["grid"]["origin"] = [-extend * h] * 3
    job["receivers"] = {"points": [pos for pos, _, _ in BOX_RECEIVERS]}
    return job


# Grazing incidence on the -x face: source and receivers 45.3 m from its
# CPML, the receivers 0.5, 0.9 and 1.35 km from the source along z. By image
# sources, a reflection off the layer's inner edge meets it at 79.7, 84.2
# and 86.2 degrees from the normal, one off its outer wall (200 m deeper) at
# 45.5, 61.4 and 70.0 degrees. The measured return peaks at the outer wall's
# image time: towards grazing the layer damps the wave too little on its
# way in and out (a continuous PML reflects R^cos(theta)).
GRAZING_SOURCE = [245.3, 815.2, 500.7]
GRAZING_RECEIVERS = [
    ([245.3, 815.2, 1000.7], "grazing, 0.5 km along the -x CPML", -66.0),
    ([245.3, 815.2, 1400.7], "grazing, 0.9 km along the -x CPML", -45.0),
    ([245.3, 815.2, 1850.7], "grazing, 1.35 km along the -x CPML", -32.0),
]


def grazing_job(extend, name):
    """A 107x164x230 box, or with `extend` points more on -x the reference.
    Their other faces are the same, and far enough out that the reference's
    reflections off them come after the small box's -x reflection has
    passed (reflection_levels checks it): the window holds only the -x
    face's."""
    h = 10.0
    job = base_job(n=(107 + extend, 164, 230), h=h, vp=V, cpml=20, duration=0.915, dt=0.0016,
                   source=GRAZING_SOURCE, frequency=16.0, gather=name + ".h5")
    job["grid"]["origin"] = [-extend * h, 0.0, 0.0]
    job["receivers"] = {"points": [pos for pos, _, _ in GRAZING_RECEIVERS]}
    return job


def walls(job, depth):
    """Planes `depth` points inside a job's grid on each axis: (lo, hi)."""
    g = job["grid"]
    origin = g.get("origin", [0.0] * 3)
    spacing = [g["dx"], g["dy"], g["dz"]]
    n = [g["nx"], g["ny"], g["nz"]]
    return ([o + depth * h for o, h in zip(origin, spacing)],
            [o + (k - 1 - depth) * h for o, h, k in zip(origin, spacing, n)])


def first_reflection_time(pos, src, lo, hi, delay, f0):
    """Earliest arrival of a reflection off planes at lo/hi on each axis,
    minus the wavelet's half length."""
    best = math.inf
    for a in range(3):
        for wall in (lo[a], hi[a]):
            image = list(src)
            image[a] = 2 * wall - src[a]
            best = min(best, math.dist(image, pos) / V)
    return best + delay - 1.5 / f0


def reflection_levels(small, reference, small_job, reference_job):
    """Per receiver, 20 log10 of the largest |small - reference| over the
    reference's peak, in the window before the reference's own reflections
    (off the inner edges of its layers) arrive. The window must hold the
    whole of the small box's reflection, whose latest start is that off its
    outer walls."""
    f0 = small_job["source"]["frequency"]
    delay = 1.5 / f0
    t = np.arange(small["traces"].shape[1]) * small["dt"]
    src = small["source"]
    reference_walls = walls(reference_job, reference_job["boundaries"]["cpml"])
    levels = []
    for i, pos in enumerate(small["receivers"]):
        usable = first_reflection_time(pos, src, *reference_walls, delay, f0)
        needed = first_reflection_time(pos, src, *walls(small_job, 0), delay, f0) + 3.0 / f0
        check(usable > needed, f"receiver at {pos}: reference reflections arrive too early "
                               f"({usable:.3f} s before {needed:.3f} s)")
        check(t[-1] >= usable, f"receiver at {pos}: the record ends at {t[-1]:.3f} s, before "
                               f"the window does ({usable:.3f} s)")
        window = t < usable
        ref = reference["traces"][i][window]
        diff = np.abs(small["traces"][i][window] - ref).max()
        levels.append(20 * math.log10(diff / np.abs(ref).max()))
    return levels


def check_level(receiver, ranks, level, limit_db, limit_name):
    """The level below an absolute limit, and within LEVEL_TOLERANCE_DB of
    its recording."""
    pos, geometry, recorded = receiver
    where = f"receiver at {pos} ({geometry}), {ranks} rank{'s' if ranks > 1 else ''}"
    check(level <= limit_db, f"{where}: reflection {level:.1f} dB of the direct peak, "
                             f"above {limit_name} ({limit_db:.1f} dB)")
    check(abs(level - recorded) <= LEVEL_TOLERANCE_DB,
          f"{where}: reflection {level:.1f} dB of the direct peak, "
          f"{abs(level - recorded):.1f} dB {'above' if level > recorded else 'below'} the "
          f"{recorded:.1f} dB recorded (tolerance {LEVEL_TOLERANCE_DB:g} dB): the CPML absorbs "
          f"differently; if that is meant, measure the levels again and record them in "
          f"test_physics.py")


def run_reflection_study(tmp, make_job, extend):
    """The small box on 1 and on 4 ranks (z slabs: the 72-plane box's z
    layers span two, the grazing wave crosses all four) and its reference
    on 1: {ranks: levels}."""
    reference_job = make_job(extend, "reference")
    run_job(tmp, reference_job, name="reference")
    reference = read_gather(os.path.join(tmp, "reference.h5"))
    levels = {}
    for ranks in (1, 4):
        small_job = make_job(0, f"small{ranks}")
        run_job(tmp, small_job, name=f"small{ranks}", ranks=ranks)
        small = read_gather(os.path.join(tmp, f"small{ranks}.h5"))
        levels[ranks] = reflection_levels(small, reference, small_job, reference_job)
    return levels


def levels_summary(measured, receivers):
    return "levels " + ", ".join(f"{level:.1f}" for level in measured) + " dB (recorded " + \
        ", ".join(f"{r[2]:.1f}" for r in receivers) + ")"


@heavy
def test_cpml_reflection_levels_normal_edge_corner(tmp):
    """A 20-point CPML against the same box embedded 52 points deeper, where
    no reflection arrives: at normal incidence, towards an edge and at a
    corner, each receiver's reflection is <= 1% of the direct peak and
    within 1 dB of today's level."""
    levels = run_reflection_study(tmp, reflection_job, 52)
    for ranks, measured in levels.items():
        for receiver, level in zip(BOX_RECEIVERS, measured):
            check_level(receiver, ranks, level, -40.0, "1%")
    return levels_summary(levels[1], BOX_RECEIVERS)


@heavy
def test_cpml_reflection_levels_grazing(tmp):
    """The same at grazing incidence, against the box extended 57 points on
    -x: each level within 1 dB of today's, and below a continuous PML's
    plane-wave reflection R^cos(theta) at the angle of the outer wall's
    image (a 20-point layer reflects far more than 1% this near grazing)."""
    levels = run_reflection_study(tmp, grazing_job, 57)
    depth = GRAZING_SOURCE[0] - walls(grazing_job(0, "small"), 0)[0][0]
    for ranks, measured in levels.items():
        for receiver, level in zip(GRAZING_RECEIVERS, measured):
            theta = math.atan2(math.dist(receiver[0], GRAZING_SOURCE) / 2, depth)
            check_level(receiver, ranks, level, 20 * math.cos(theta) * math.log10(CPML_R),
                        f"R^cos({math.degrees(theta):.1f} deg)")
    return levels_summary(levels[1], GRAZING_RECEIVERS)


def test_free_surface_ghost(tmp):
    """With free_surface the image source at -z arrives at r_image / v with
    opposite polarity: the trace matches direct - ghost."""
    f0, src, rec = 12.0, [300.0, 300.0, 100.0], [300.0, 300.0, 350.0]
    job = base_job(n=(60, 60, 60), h=10.0, vp=V, cpml=15, duration=0.5, dt=0.001,
                   source=src, receivers=[rec], frequency=f0)
    job["boundaries"]["free_surface"] = True
    run_job(tmp, job, ranks=2)
    g = read_gather(os.path.join(tmp, "gather.h5"))
    trace = g["traces"][0]
    t = np.arange(trace.size) * g["dt"]
    delay = 1.5 / f0
    r_direct = rec[2] - src[2]
    r_ghost = rec[2] + src[2]
    direct = direct_wave(t, r_direct, V, f0, delay)
    ghost = -direct_wave(t, r_ghost, V, f0, delay)
    window = (t > r_direct / V + delay - 1.5 / f0) & (t < r_ghost / V + delay + 1.5 / f0)
    m = misfit(trace[window], (direct + ghost)[window])
    check(m <= 0.05, f"direct + ghost misfit {m:.4f} > 5%")
    t_ghost = r_ghost / V + delay
    near = np.abs(t - t_ghost) < 0.25 / f0
    i_min = np.argmin(trace[near])
    t_min = t[near][i_min]
    check(abs(t_min - t_ghost) <= 2 * g["dt"],
          f"ghost trough at {t_min:.4f} s, image-source time {t_ghost:.4f} s")
    ratio = trace[near][i_min] / (-1.0 / (4 * math.pi * r_ghost))
    check(0.9 < ratio < 1.1, f"ghost amplitude is {ratio:.3f} of -1/(4 pi r_image)")
    i_direct = np.argmax(np.where(np.abs(t - (r_direct / V + delay)) < 0.25 / f0, trace, -np.inf))
    check(trace[i_direct] > 0, "the direct arrival should be a positive peak")
    return (f"misfit {100 * m:.2f}%, ghost trough {1000 * (t_min - t_ghost):+.1f} ms from the "
            f"image time, amplitude ratio {ratio:.3f}")
