"""Physics of the acoustic solver against analytic solutions, across rank
counts, and at the boundaries."""
import math
import os

import numpy as np

from testlib import base_job, check, direct_wave, read_gather, run_job

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


def invariance_job():
    """Layered model, free surface, absorbing layers thicker than the 4-rank
    slabs (12 planes), receivers astride slab boundaries."""
    job = base_job(n=(40, 36, 47), h=10.0, cpml=12, duration=0.3, dt=0.0012,
                   source=[201.7, 178.2, 153.3], frequency=12.0)
    job["model"] = {"type": "layered", "layers": [{"top": 0, "vp": 1800},
                                                  {"top": 180, "vp": 2400},
                                                  {"top": 300, "vp": 3000}]}
    job["boundaries"]["free_surface"] = True
    job["receivers"] = {"line": {"start": [125.5, 150.0, 15.0], "end": [275.5, 190.0, 15.0],
                                 "count": 7},
                        "points": [[200.0, 180.0, 118.7], [210.3, 170.1, 120.0],
                                   [190.0, 150.0, 240.5], [230.0, 175.0, 355.0],
                                   [180.0, 160.0, 345.2]]}
    return job


def test_rank_invariance_with_uneven_and_thin_slabs(tmp):
    """1, 2, 3 (uneven) and 4 ranks (the z absorbing layer spans two slabs)
    give the same gather to 1e-6 of its peak."""
    gathers = {}
    for ranks in (1, 2, 3, 4):
        job = invariance_job()
        job["output"]["gather"] = f"gather{ranks}.h5"
        run_job(tmp, job, name=f"job{ranks}", ranks=ranks)
        gathers[ranks] = read_gather(os.path.join(tmp, f"gather{ranks}.h5"))["traces"]
    reference = gathers[1]
    peak = np.abs(reference).max()
    check(peak > 0, "the reference gather is empty")
    worst = 0.0
    for ranks in (2, 3, 4):
        diff = np.abs(gathers[ranks] - reference).max() / peak
        check(diff <= 1e-6, f"{ranks} ranks differ from 1 rank by {diff:.3g} of the peak")
        worst = max(worst, diff)
    return f"largest difference {worst:.2g} of the peak (limit 1e-6)"


def reflection_job(extend, name):
    """An 80x80x72 box with 20-point CPML, optionally embedded `extend`
    points deeper on every side (same coordinates) as a reflection-free
    reference."""
    h, n = 10.0, (80, 80, 72)
    job = base_job(n=tuple(k + 2 * extend for k in n), h=h, vp=V, cpml=20, duration=0.55,
                   dt=0.0016, source=[401.3, 398.7, 361.1], frequency=16.0,
                   gather=name + ".h5")
    job["grid"]["origin"] = [-extend * h] * 3
    job["receivers"] = {"points": RECEIVERS}
    return job


RECEIVERS = [[581.0, 401.0, 361.0],   # near the +x face
             [401.0, 215.0, 361.0],   # near the -y face
             [401.0, 401.0, 505.0],   # near the +z face
             [565.0, 565.0, 495.0],   # towards a corner
             [215.0, 401.0, 215.0]]   # towards an edge


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


def test_cpml_reflection_below_one_percent(tmp):
    """A 20-point CPML against a domain large enough that no reflection
    arrives: the difference is <= 1% of the direct arrival's peak, on one
    rank and on four ranks whose slabs the z layers span."""
    extend, f0 = 52, 16.0
    run_job(tmp, reflection_job(0, "small"), name="small")
    run_job(tmp, reflection_job(0, "small4"), name="small4", ranks=4)
    run_job(tmp, reflection_job(extend, "large"), name="large")
    small = read_gather(os.path.join(tmp, "small.h5"))
    small4 = read_gather(os.path.join(tmp, "small4.h5"))
    large = read_gather(os.path.join(tmp, "large.h5"))
    t = np.arange(small["traces"].shape[1]) * small["dt"]
    src = small["source"]
    delay = 1.5 / f0
    # Walls of the large box's interior (where its own CPML starts).
    lo = [-extend * 10.0 + 200.0] * 3
    hi = [(80 + extend) * 10.0 - 210.0, (80 + extend) * 10.0 - 210.0,
          (72 + extend) * 10.0 - 210.0]
    # The small box's outer walls: its deepest reflections come from there.
    small_hi = [790.0, 790.0, 710.0]
    worst = 0.0
    for i, pos in enumerate(small["receivers"]):
        usable = first_reflection_time(pos, src, lo, hi, delay, f0)
        needed = first_reflection_time(pos, src, [0.0] * 3, small_hi, delay, f0) + 3.0 / f0
        check(usable > needed, f"receiver {i}: reference reflections arrive too early "
                               f"({usable:.3f} s before {needed:.3f} s)")
        window = t < usable
        reference = large["traces"][i][window]
        peak = np.abs(reference).max()
        for label, g in (("1 rank", small), ("4 ranks", small4)):
            reflection = np.abs(g["traces"][i][window] - reference).max() / peak
            check(reflection <= 0.01, f"receiver {i} at {pos}, {label}: reflection "
                                      f"{100 * reflection:.2f}% of the direct peak")
            worst = max(worst, reflection)
    return f"largest reflection {100 * worst:.2f}% of the direct peak (limit 1%)"


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
