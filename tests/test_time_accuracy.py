"""Time accuracy: with the time-dispersion transforms (on by default) a
direct wave keeps within 1% out to 2 km at order 8 and dt: auto; elsewhere
the misfit follows the distance the set-up summary predicts; without them
the run is as before, bit for bit."""
import math
import os
import re

import numpy as np

from testlib import ROOT, check, direct_wave, heavy, read_gather, run_job, time_limit

V = 2000.0
REFERENCES = os.path.join(ROOT, "tests", "data", "time_dispersion")


def windowed_misfit(trace, exact, t, arrival, f0):
    """Relative L2 misfit over the direct wave: the Ricker lies within
    1.2 / f0 of its centre, and the window keeps later boundary echoes out."""
    window = np.abs(t - arrival) <= 1.2 / f0
    return float(np.linalg.norm(trace[window] - exact[window]) / np.linalg.norm(exact[window]))


def line_job(n, source, offsets, f0, order, correction, duration, precision="float32"):
    """Homogeneous 2000 m/s, 10 m spacing, dt: auto; receivers off the
    source at the given (dx, dy, dz) offsets."""
    return {"run": {"precision": precision},
            "grid": {"nx": n[0], "ny": n[1], "nz": n[2], "dx": 10, "dy": 10, "dz": 10},
            "time": {"dt": "auto", "duration": duration, "dispersion_correction": correction},
            "physics": {"type": "acoustic", "order": order},
            "model": {"type": "homogeneous", "vp": V}, "boundaries": {"cpml": 20},
            "source": {"position": source, "frequency": f0},
            "receivers": {"points": [[s + o for s, o in zip(source, off)] for off in offsets]},
            "output": {"gather": "g.h5", "overwrite": True}}


def direct_wave_misfits(tmp, job, name):
    """Runs the job; returns (misfit per receiver, distances, stdout, stderr, gather)."""
    job["output"]["gather"] = f"{name}.h5"
    _, out, err = run_job(tmp, job, name=name, ranks=2)
    g = read_gather(os.path.join(tmp, f"{name}.h5"))
    f0 = job["source"]["frequency"]
    t = np.arange(g["traces"].shape[1]) * g["dt"]
    misfits, distances = [], []
    for trace, position in zip(g["traces"], g["receivers"]):
        r = float(np.linalg.norm(position - g["source"]))
        exact = direct_wave(t, r, V, f0, 1.5 / f0)
        misfits.append(windowed_misfit(trace, exact, t, r / V + 1.5 / f0, f0))
        distances.append(r)
    return misfits, distances, out, err, g


def predicted_distance(out):
    """The summary's distance (m) at which a direct wave's misfit reaches 1%."""
    m = re.search(r"misfit reaches 1% after ([\d.]+) (k?m)", out)
    check(m, f"no predicted distance in the set-up summary:\n{out}")
    return float(m.group(1)) * (1000.0 if m.group(2) == "km" else 1.0)


ORDER_8_SOURCE = [300.3, 901.7, 902.2]
ORDER_8_OFFSETS = [[d, 1.3, -2.1] for d in (100, 500, 1000, 1500, 2000)] + [[1200, 250.5, 180.2]]


def order_8_direct_wave(tmp, f0):
    """The issue's job on a grid wide enough that side echoes arrive after
    the direct wave, receivers out to 2 km along x (where the stencil errs
    most) and one oblique, at f0 on 10 m, dt: auto: every receiver within
    1%, amplitude included, with no warning; the worst misfit."""
    job = line_job((261, 181, 181), ORDER_8_SOURCE, ORDER_8_OFFSETS, f0, 8, True, 1.3)
    misfits, distances, out, err, g = direct_wave_misfits(tmp, job, f"f{f0:g}")
    for m, r in zip(misfits, distances):
        check(m <= 0.01, f"{f0:g} Hz, r = {r:.0f} m: misfit {100 * m:.2f}% > 1%")
    check(predicted_distance(out) > 2000.0 and "warning: " not in err,
          f"{f0:g} Hz: the summary predicts trouble before 2 km:\n{out}\n{err}")
    check(g["attrs"]["time_dispersion"].startswith("corrected"),
          f"the gather does not record the correction: {g['attrs']['time_dispersion']}")
    return max(misfits)


@heavy
def test_order_8_within_one_percent_to_2_km(tmp):
    """order_8_direct_wave at 15 Hz, 5.3 points per minimum wavelength
    (12 Hz, 6.7 points: tests/test_time_accuracy_long.py, make test-long)."""
    return f"15 Hz worst {100 * order_8_direct_wave(tmp, 15.0):.2f}% out to 2 km (limit 1%)"


def mixed_direct_wave_misfit(tmp, n, source, offsets, duration):
    """The order-8 job at 12 Hz with run.precision: mixed on an n grid:
    every receiver within 1% of the analytic direct wave; the worst misfit."""
    job = line_job(n, source, offsets, 12.0, 8, True, duration, "mixed")
    misfits, distances, _, _, _ = direct_wave_misfits(tmp, job, "mixed")
    for m, r in zip(misfits, distances):
        check(m <= 0.01, f"mixed, r = {r:.0f} m: misfit {100 * m:.2f}% > 1%")
    return max(misfits)


def test_order_8_in_mixed_precision_within_one_percent_to_800_m(tmp):
    """Mixed precision on a grid of a sixth the points of the 2 km job,
    receivers from 100 to 800 m along x and one oblique. (To 2 km:
    tests/test_time_accuracy_long.py, make test-long.)"""
    offsets = [[d, 1.3, -2.1] for d in (100, 300, 500, 800)] + [[600, 150.5, 120.2]]
    worst = mixed_direct_wave_misfit(tmp, (121, 121, 121), [200.3, 601.7, 602.2], offsets, 0.6)
    return f"worst {100 * worst:.2f}% out to 800 m (limit 1%)"


def test_misfit_follows_the_predicted_distance(tmp):
    """Order 4 corrected (its stencil errs) at 12 and 15 Hz, and order 8
    uncorrected at 12 Hz (its time step errs): receivers nearer than the
    summary's 1% distance stay within 1%, those 1.5 times farther exceed
    it, and the summary warns about them."""
    source = [300.3, 401.7, 402.2]
    offsets = [[d, 1.3, -2.1] for d in (60, 100, 200, 300, 450, 700)]
    notes = []
    for order, f0, correction in ((4, 12.0, True), (4, 15.0, True), (8, 12.0, False)):
        job = line_job((111, 81, 81), source, offsets, f0, order, correction, 0.6)
        name = f"o{order}-{f0:g}-{'on' if correction else 'off'}"
        misfits, distances, out, err, g = direct_wave_misfits(tmp, job, name)
        reach = predicted_distance(out)
        near = [m for m, r in zip(misfits, distances) if r < 0.8 * reach]
        far = [m for m, r in zip(misfits, distances) if r > 1.5 * reach]
        check(near and far, f"{name}: receivers on both sides of {reach:.0f} m needed")
        check(max(near) <= 0.01 and min(far) > 0.01,
              f"{name}: predicted 1% at {reach:.0f} m, misfits "
              + ", ".join(f"{r:.0f} m {100 * m:.2f}%" for m, r in zip(misfits, distances)))
        advice = "refine the grid" if correction else "turn time.dispersion_correction on"
        check(re.search(r"warning: .*receivers: the farthest lies 700 m from the source, beyond "
                        r"the [\d.]+ k?m after which a direct wave's misfit passes 1%", err)
              and advice in err, f"{name}: no warning about the far receivers:\n{err}")
        if not correction:
            check(g["attrs"]["time_dispersion"].startswith("not corrected"),
                  f"the gather does not record the missing correction")
        notes.append(f"{name}: predicted {reach:.0f} m")
    return "; ".join(notes)


def reference_job(physics):
    """The jobs whose gathers tests/data/time_dispersion holds, computed by
    seisfd before the correction existed (the acoustic one again when the
    CPML's frequency shift got its floor: it moved by 2.0e-5 of the peak)."""
    if physics == "acoustic":
        return {"grid": {"nx": 40, "ny": 36, "nz": 34, "dx": 10, "dy": 10, "dz": 10},
                "time": {"dt": "auto", "nt": 150},
                "model": {"type": "layered", "layers": [{"top": 0, "vp": 1800},
                                                        {"top": 180, "vp": 2600}]},
                "boundaries": {"cpml": 8, "free_surface": True},
                "source": {"position": [201.3, 178.1, 103.3], "frequency": 14},
                "receivers": {"points": [[150.5, 170.2, 15.5], [250.1, 180.3, 255.7],
                                         [300.2, 90.1, 120.0]]},
                "output": {"gather": "acoustic.h5", "overwrite": True}}
    return {"physics": {"type": "elastic", "order": 8},
            "grid": {"nx": 36, "ny": 32, "nz": 34, "dx": 10, "dy": 10, "dz": 10},
            "time": {"dt": "auto", "nt": 120},
            "model": {"type": "layered", "layers": [
                {"top": 0, "vp": 1500, "vs": 0, "rho": 1000},
                {"top": 120, "vp": 2600, "vs": 1400, "rho": 2200}]},
            "boundaries": {"cpml": 8, "free_surface": True},
            "source": {"type": "explosive", "position": [181.3, 158.1, 203.3], "frequency": 14},
            "receivers": {"components": ["vx", "vy", "vz", "p"],
                          "points": [[150.5, 170.2, 45.5], [250.1, 180.3, 255.7]]},
            "output": {"gather": "elastic.h5", "overwrite": True}}


def test_correction_off_reproduces_earlier_gathers(tmp):
    """time.dispersion_correction: false gives, bit for bit, the gathers
    seisfd wrote before the correction (acoustic and elastic, 2 ranks); on,
    the same jobs differ."""
    for physics in ("acoustic", "elastic"):
        expected = np.load(os.path.join(REFERENCES, f"{physics}.npy"))
        for correction in (False, True):
            job = reference_job(physics)
            job["time"]["dispersion_correction"] = correction
            run_job(tmp, job, name=physics, ranks=2)
            traces = read_gather(os.path.join(tmp, f"{physics}.h5"))["traces"]
            same = traces.shape == expected.shape and np.array_equal(traces, expected)
            check(same != correction, f"{physics}, correction {correction}: the gather "
                  f"{'differs from' if not correction else 'equals'} the earlier one")
    return "acoustic and elastic gathers equal the earlier ones bit for bit"


def explosion_job(n, source, offsets, f0, duration):
    """An explosion in the homogeneous solid of test_elastic, order 8,
    CPML 20, dt: auto, recording p at the given offsets from the source."""
    from test_elastic import RHO, VP, VS
    return {"physics": {"type": "elastic", "order": 8},
            "grid": {"nx": n[0], "ny": n[1], "nz": n[2], "dx": 10, "dy": 10, "dz": 10},
            "time": {"dt": "auto", "duration": duration},
            "model": {"type": "homogeneous", "vp": VP, "vs": VS, "rho": RHO},
            "boundaries": {"cpml": 20},
            "source": {"type": "explosive", "position": source, "frequency": f0},
            "receivers": {"components": ["p"],
                          "points": [[s + o for s, o in zip(source, off)] for off in offsets]},
            "output": {"gather": "p.h5", "overwrite": True}}


def explosion_misfits(tmp, job, limit=0.01):
    """Runs the job on 2 ranks; checks that the record reaches the duration
    and each receiver's pressure is within limit of K s'(t - r/vp) /
    (4 pi rho vp^4 r); returns the worst misfit."""
    from test_elastic import RHO, VP, VS, ricker_derivative
    f0, duration = job["source"]["frequency"], job["time"]["duration"]
    run_job(tmp, job, ranks=2)
    g = read_gather(os.path.join(tmp, "p.h5"))
    traces = g["traces"][0]
    t = np.arange(traces.shape[1]) * g["dt"]
    check(t[-1] >= duration - 1e-12, f"the record ends at {t[-1]:.6f} s, before {duration} s")
    bulk, worst = RHO * (VP ** 2 - 4.0 / 3.0 * VS ** 2), 0.0
    for trace, position in zip(traces, g["receivers"]):
        r = float(np.linalg.norm(position - g["source"]))
        exact = bulk * ricker_derivative(t - r / VP, f0, 1.5 / f0) / (4 * math.pi * RHO * VP ** 4 * r)
        m = windowed_misfit(trace, exact, t, r / VP + 1.5 / f0, f0)
        check(m <= limit, f"r = {r:.0f} m: pressure misfit {100 * m:.2f}% > {100 * limit:g}%")
        worst = max(worst, m)
    return worst


@heavy
def test_elastic_explosion_p_wave_within_one_percent(tmp):
    """An explosion in a homogeneous solid: at 12 Hz with dt: auto the P
    wave keeps within 1% from 200 to 800 m (order 8), obliquely too, and
    the record reaches the duration asked for."""
    source = [250.3, 651.7, 652.2]
    offsets = [[d, 1.3, -2.1] for d in (200, 400, 600, 800)] + [[500, 150.5, 120.2]]
    worst = explosion_misfits(tmp, explosion_job((141, 131, 131), source, offsets, 12.0, 0.69))
    return f"worst pressure misfit {100 * worst:.2f}% over 200..800 m (limit 1%)"


@heavy
def test_elastic_explosion_in_mixed_precision_within_two_percent(tmp):
    """The explosion with run.precision: mixed, from 200 to 500 m and
    obliquely, on a grid of under half the points of the 800 m one, for
    0.5 s instead of 0.69: within 2%."""
    source = [250.3, 501.7, 502.2]
    offsets = [[d, 1.3, -2.1] for d in (200, 300, 400, 500)] + [[400, 100.5, 80.2]]
    job = explosion_job((111, 101, 101), source, offsets, 12.0, 0.5)
    job["run"] = {"precision": "mixed"}
    worst = explosion_misfits(tmp, job, limit=0.02)
    return f"worst pressure misfit {100 * worst:.2f}% over 200..500 m (limit 2%)"


def auto_step(tmp, job, name):
    """`seisfd check` on the job: (dt, its fraction of the CFL limit, stdout, stderr)."""
    from testlib import run, write_job
    path = write_job(os.path.join(tmp, name + ".yaml"), job)
    rc, out, err = run(["check", path], cwd=tmp)
    check(rc == 0, f"check of {name} failed:\n{err}")
    m = re.search(r"dt = ([\d.e-]+) s = ([\d.]+) of the CFL limit", out)
    check(m, f"no time step in:\n{out}")
    return float(m.group(1)), float(m.group(2)), out, err


def test_auto_step_shortened_for_a_wide_band_source(tmp):
    """A source whose band reaches past what the corrected record keeps
    (below 1/dt rad/s) gets a shorter dt: auto, and the summary says so;
    without the correction the step is the CFL one."""
    steps = {}
    for correction in (True, False):
        job = line_job((50, 50, 50), [250.3, 250.1, 250.2], [[50, 0, 0]], 60.0, 8, correction, 0.05)
        steps[correction] = auto_step(tmp, job, f"wide-{correction}")
    short, fraction, out, _ = steps[True]
    check(fraction < 0.8 and "dt: auto is below 0.80 of the CFL limit" in out,
          f"the step was not shortened, or not said: {fraction}\n{out}")
    check(abs(steps[False][1] - 0.8) < 1e-3, f"without the correction: {steps[False][1]} of the limit")
    return f"60 Hz on 10 m: dt {short:.3g} s = {fraction:.2f} of the CFL limit (0.80 without correction)"


def test_survey_step_serves_its_widest_band_shot(tmp):
    """A survey's shots share one time step: with a 60 Hz shot among 12 Hz
    ones, dt: auto is the step a single 60 Hz shot gets, and the accuracy
    summary speaks of 60 Hz and of the farthest receiver of any shot."""
    single = auto_step(tmp, line_job((50, 50, 50), [250.3, 250.1, 250.2], [[50, 0, 0]], 60.0, 8,
                                     True, 0.05), "single60")[0]
    survey = line_job((50, 50, 50), [250.3, 250.1, 250.2], [[50, 0, 0]], 12.0, 8, True, 0.05)
    del survey["output"]["gather"]
    del survey["source"]["position"]
    survey["output"]["directory"] = "shots"
    survey["survey"] = {"shots": [{"position": [250.3, 250.1, 250.2]},
                                  {"position": [150.3, 250.1, 250.2], "frequency": 60.0}]}
    shared, _, out, err = auto_step(tmp, survey, "survey60")
    check(shared == single, f"the survey's step {shared} s is not the 60 Hz shot's {single} s")
    check("phase error per wavelength travelled at 60 Hz" in out and
          "dt: auto is below 0.80 of the CFL limit" in out,
          f"the summary does not speak of the 60 Hz shot:\n{out}")
    # The fixed receiver lies 150 m from shot 2 but 50 m from shot 1: the
    # warning (the order-8 60 Hz reach is well under 150 m) names shot 2.
    check("from the source (in shot 2)" in err, f"no warning naming shot 2:\n{err}")
    return f"survey dt {shared:.3g} s = the single 60 Hz shot's; warning names shot 2"


def test_time_stepping_study_ranks_the_schemes(tmp):
    """docs/time_stepping_study.py, whose table the README quotes: the
    leapfrog's misfit is the 3D run's (5.17% at 800 m), the transforms beat
    the modified equation at its cheapest and dearest, and both beat the
    leapfrog at a third of the step."""
    import subprocess
    import sys
    p = subprocess.run([sys.executable, os.path.join(ROOT, "docs", "time_stepping_study.py")],
                       capture_output=True, text=True, timeout=time_limit(120))
    check(p.returncode == 0, p.stderr)
    # After two heading lines: scheme, cost, misfit at 800 m and 2 km.
    cells = [re.split(r" {2,}", line.strip()) for line in p.stdout.splitlines()[2:]]
    rows = {c[0]: (float(c[2].rstrip("%")), float(c[3].rstrip("%"))) for c in cells if len(c) == 4}
    check(len(rows) == 5, f"expected 5 schemes:\n{p.stdout}")
    leapfrog = rows["leapfrog, dt: auto"]
    check(5.0 < leapfrog[0] < 5.4, f"leapfrog at 800 m: {leapfrog[0]}% (the 3D run: 5.17%)")
    tdt = rows["leapfrog + transforms"]
    for other in ("modified equation, 1 dt", "modified equation, 1.5 dt", "leapfrog, dt/3"):
        check(all(a < b for a, b in zip(tdt, rows[other])),
              f"the transforms {tdt} do not beat {other} {rows[other]}")
    return (f"at 800 m: leapfrog {leapfrog[0]}%, transforms {tdt[0]}%, modified equation "
            f"{rows['modified equation, 1 dt'][0]}% (2 Laplacians a step)")


def test_survey_dispersion_warning_names_the_widest_band_shot(tmp):
    """The points-per-wavelength warning of a survey speaks of its highest
    frequency, at the key that sets it: a shot's own frequency, or the
    source's for a shot that keeps it while shot 1 takes a lower one."""
    survey = line_job((50, 50, 50), [0, 0, 0], [[50, 0, 0]], 12.0, 8, True, 0.05)
    del survey["output"]["gather"]
    del survey["source"]["position"]
    survey["output"]["directory"] = "shots"
    survey["receivers"] = {"points": [[300.5, 250.1, 250.2]]}
    cases = {"own": ([{"position": [250.3, 250.1, 250.2]},
                      {"position": [150.3, 250.1, 250.2], "frequency": 60.0}],
                     12.0, r"survey\.shots\[1\]\.frequency \(shot 2\): 1\.33 points per minimum"),
             "source's": ([{"position": [250.3, 250.1, 250.2], "frequency": 12.0},
                           {"position": [150.3, 250.1, 250.2]}],
                          60.0, r"source\.frequency \(shot 2\): 1\.33 points per minimum")}
    for name, (shots, base, pattern) in cases.items():
        job = dict(survey, survey={"shots": shots})
        job["source"] = dict(survey["source"], frequency=base)
        err = auto_step(tmp, job, name.replace("'", ""))[3]
        check(re.search(pattern, err), f"{name}: no /{pattern}/ in:\n{err}")
    return "the 60 Hz shot named by its own key and by the source's"


def test_survey_farthest_receiver_in_every_geometry(tmp):
    """The warning's farthest receiver of a survey, against numpy over every
    shot-receiver pair: fixed receivers with few pairs (exact) and with 18
    million (the receivers extreme along 13 directions), moving receivers
    (shots at several depths)."""
    survey = line_job((50, 50, 50), [0, 0, 0], [], 60.0, 8, True, 0.05)
    del survey["output"]["gather"]
    del survey["source"]["position"]
    survey["output"]["directory"] = "shots"
    rng = np.random.default_rng(20261125)
    line = {"start": [20.5, 30.5, 30.0], "end": [470.5, 440.5, 45.0], "count": 200}
    cases = {
        "fixed-few": ({"shots": [{"position": list(p)} for p in
                                 rng.uniform([50, 50, 20], [450, 450, 450], (7, 3))]}, line),
        "fixed-many": ({"grid": {"start": [150.25, 120.75, 60], "step": [0.75, 0.5],
                                 "count": [300, 300]}}, line),
        "moving": ({"receivers": "moving",
                    "shots": [{"position": [200 + 10 * i, 250, 30 + 55 * (i % 4)]}
                              for i in range(6)]},
                   {"start": [-150, -20, 20], "end": [150, 20, 25], "count": 120}),
    }
    found = []
    for name, (geometry, receivers) in cases.items():
        job = dict(survey, survey=geometry, receivers={"line": receivers})
        _, _, _, err = auto_step(tmp, job, name)
        m = re.search(r"the farthest lies ([\d.]+) (k?m) from the source \(in shot (\d+)\)", err)
        check(m, f"{name}: no warning about the farthest receiver:\n{err}")
        reported = float(m.group(1)) * (1000.0 if m.group(2) == "km" else 1.0)
        if "grid" in geometry:
            g = geometry["grid"]
            ix, iy = np.meshgrid(np.arange(g["count"][0]), np.arange(g["count"][1]), indexing="ij")
            shots = np.stack([g["start"][0] + g["step"][0] * ix.ravel(),
                              g["start"][1] + g["step"][1] * iy.ravel(),
                              np.full(ix.size, g["start"][2])], axis=1)
        else:
            shots = np.array([s["position"] for s in geometry["shots"]], float)
        f = np.linspace(0, 1, receivers["count"])[:, None]
        spread = np.array(receivers["start"]) + f * (np.array(receivers["end"]) -
                                                     np.array(receivers["start"]))
        if geometry.get("receivers") == "moving":
            offsets = spread[None, :, :] - np.array([0, 0, 1.0]) * shots[:, None, :]
        else:
            offsets = spread[None, :, :] - shots[:, None, :]
        exact = np.sqrt((offsets ** 2).sum(axis=2)).max()
        check(abs(reported - exact) <= 0.0051 * exact,
              f"{name}: reported {reported} m, exact {exact:.1f} m")
        found.append(f"{name} {exact:.0f} m")
    return "farthest receivers as numpy finds them: " + ", ".join(found)
