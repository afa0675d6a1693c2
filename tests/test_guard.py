"""The instability guard (README, "Running": "Instability guard"): that
growth after the source has ended stops a run on every physics is the
conformance suite's (tests/test_conformance.py); here long stable jobs
run to their end, a record that overflowed with the guard off is not
written, amplitudes float32 cannot carry are refused, sources and
receivers inside the absorbing layers are warned of, and bench shows the
guard's time. Growth is made by SEISFD_TEST_GROWTH (tests only), which
multiplies the whole state by a factor after every step."""
import hashlib
import json
import os
import re

import numpy as np

from testlib import check, heavy, medium, read_gather, run, run_job


def small_job(physics, gather="out/shot.h5", duration=1.2, cpml=6):
    """24^3 points, 20 Hz in the physics' homogeneous medium (testlib's
    medium: vp 3000 m/s): the guard judges growth from about 0.26 s (0.36 s
    elastic, whose slowest wave is vs = 1700 m/s)."""
    job = {"grid": {"nx": 24, "ny": 24, "nz": 24, "dx": 10, "dy": 10, "dz": 10},
           "time": {"dt": "auto", "duration": duration},
           "physics": {"type": physics, "order": 8},
           "model": medium(physics),
           "boundaries": {"cpml": cpml},
           "source": {"position": [113.3, 117.2, 122.1], "frequency": 20},
           "receivers": {"line": {"start": [80, 120, 80], "end": [160, 120, 80], "count": 5}},
           "output": {"gather": gather, "overwrite": True}}
    return job


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def report_of(tmp, gather="out/shot.h5"):
    with open(os.path.join(tmp, gather[:-3] + ".report.json")) as f:
        return json.load(f)["shots"][0]


GROWTH = re.compile(
    r"seisfd: error: unstable: the wavefield grows after the source has ended: the norm of "
    r"(\w+) rose at each of the last (\d+) checks, x ([0-9.e+]+) from step (\d+) to (\d+) "
    r"\(t = [0-9.e+-]+ to [0-9.e+-]+ s\), to ([0-9.e+]+) times its level when the source ended "
    r"\(step (\d+)\) and [0-9.e+-]+ of its peak; .*(the interior|the [xyz]m(?:in|ax) absorbing "
    r"layer) \(checked every 100 steps\); .*(cfl_safety|boundaries\.cpml)")


def test_overflow_with_the_guard_off_writes_no_gather(tmp):
    """check_every: 0 and a wavefield that overflows float32 (x 1000 a
    step): the record is looked at before it is written, the run fails
    naming the first receiver and time with a non-finite sample and the
    guard being off, and the earlier gather stays."""
    job = small_job("acoustic", duration=0.1)
    run_job(tmp, job)
    gather = os.path.join(tmp, "out", "shot.h5")
    before = digest(gather)
    job["run"] = {"check_every": 0}
    rc, out, err = run_job(tmp, job, expect_ok=False, env={"SEISFD_TEST_GROWTH": "1000"})
    m = re.search(r"seisfd: error: unstable: the record holds a value that is not finite \(NaN or "
                  r"Inf\) as recorded, first at receiver (\d+) of 5, t = ([0-9.e+-]+) s: the "
                  r"wavefield overflowed float32 with the instability guard off "
                  r"\(run\.check_every: 0\); .*no gather is written", err)
    check(rc == 1 and m, f"exit {rc}, no message about the record:\n{err}")
    check(digest(gather) == before and report_of(tmp)["status"] == "failed",
          "the earlier gather changed, or the report does not say failed")
    check("instability guard off (run.check_every: 0)" in out, f"no summary line:\n{out}")
    return f"receiver {m.group(1)} at t = {m.group(2)} s named; earlier gather kept"


def test_nonfinite_value_still_located(tmp):
    """A wavefield that overflows between two checks (x 1000 a step,
    checked every step) is stopped as before: the first non-finite value's
    field, step and grid point."""
    job = small_job("elastic")
    job["run"] = {"check_every": 1}
    rc, out, err = run_job(tmp, job, expect_ok=False, env={"SEISFD_TEST_GROWTH": "1000"})
    m = re.search(r"unstable: a non-finite value \(NaN or Inf\) in (\w+) at step (\d+) \(t = "
                  r"[0-9.e+-]+ s; checked every step\), first at grid point \(i=\d+, j=\d+, "
                  r"k=\d+\)", err)
    check(rc == 1 and m, f"exit {rc}:\n{err}")
    check(not os.path.exists(os.path.join(tmp, "out", "shot.h5")), "a gather was written")
    return f"{m.group(1)} at step {m.group(2)}"


def box_job(physics, duration, model, source, nz=30, frequency=12):
    """A closed box (no absorbing layer, a free surface on top), so that no
    energy leaves: the waves reverberate until the run ends."""
    job = small_job(physics, duration=duration, cpml=0)
    job["grid"]["nz"] = nz
    job["boundaries"]["free_surface"] = True
    job["model"] = model
    job["source"].update(position=source, frequency=frequency)
    job["receivers"] = {"line": {"start": [30, 120, 20], "end": [200, 120, 20], "count": 5}}
    job["run"] = {"check_every": 100}
    return job


def guard_summary(out, envelope=False):
    m = re.search(r"instability guard: (\d+) checks judged from step \d+ \(the source ended\); "
                  r"the longest rise (\d+) checks, the largest x ([0-9.e+-]+) over the level "
                  r"before it .*; the highest of a window of 6 checks x ([0-9.e+-]+) over the "
                  r"first window's", out)
    check(m, f"no guard summary:\n{out}")
    found = int(m.group(1)), int(m.group(2)), float(m.group(3))
    return found + (float(m.group(4)),) if envelope else found


@heavy
def test_long_stable_jobs_do_not_stop(tmp):
    """Jobs that run many times as long as the guard's start, on every
    physics: closed boxes (no layers, a free surface) where the waves
    reverberate, an acoustic layered model with a low-velocity layer and
    layers, and an elastic box whose top layer is slow and light, which
    the waves keep entering after the source ended: there the velocities'
    norm rises for checks in a row past every level since (a wave
    legitimately growing). Each ends normally with a finite gather, the
    guard having judged its checks: the boxes at least 30, five windows
    of the envelope rule."""
    layered = {"type": "layered", "layers": [{"top": 0, "vp": 1400, "vs": 700, "rho": 1200},
                                             {"top": 100, "vp": 3000, "vs": 1800, "rho": 2600}]}
    tilted = {"type": "layered", "layers": [
        {"top": 0, "vp": 1500, "epsilon": 0, "delta": 0, "theta": 0, "phi": 0},
        {"top": 150, "vp": 3000, "epsilon": 0.2, "delta": 0.1, "theta": 30, "phi": 20}]}
    jobs = {
        "acoustic": box_job("acoustic", 8.0, {"type": "homogeneous", "vp": 2000},
                            [113.3, 117.2, 82.1], frequency=15),
        "vti": box_job("vti", 6.0, {"type": "homogeneous", "vp": 2000, "epsilon": 0.2,
                                    "delta": 0.1}, [113.3, 117.2, 82.1], frequency=15),
        "tti": box_job("tti", 5.0, tilted, [113.3, 117.2, 62.1]),
        "elastic-light-top": box_job("elastic", 6.0, layered, [113.3, 117.2, 452.1], nz=60),
    }
    acoustic = small_job("acoustic", duration=3.0, cpml=8)
    acoustic["grid"].update(nx=32, ny=32, nz=40)
    acoustic["boundaries"]["free_surface"] = True
    acoustic["model"] = {"type": "layered", "layers": [{"top": 0, "vp": 3500},
                                                       {"top": 160, "vp": 900},
                                                       {"top": 240, "vp": 3500}]}
    acoustic["source"].update(position=[163.3, 157.2, 102.1], frequency=10)
    acoustic["receivers"] = {"line": {"start": [90, 160, 200], "end": [230, 160, 200], "count": 5}}
    jobs["acoustic-low-velocity-layer"] = acoustic
    notes = []
    for name, job in jobs.items():
        job["output"]["gather"] = f"out/{name}.h5"
        rc, out, err = run_job(tmp, job, name=name)
        judged, longest, largest, envelope = guard_summary(out, envelope=True)
        traces = read_gather(os.path.join(tmp, "out", f"{name}.h5"))["traces"]
        least = 10 if name.startswith("acoustic-") else 30
        check(judged >= least and np.isfinite(traces).all(),
              f"{name}: {judged} checks judged (at least {least}), or non-finite samples")
        if name == "elastic-light-top":
            check(longest >= 3 and largest > 1.1,
                  f"{name}: the waves entering the light layer did not raise the norm "
                  f"(longest rise {longest}, x {largest})")
        notes.append(f"{name} {judged} checks, longest rise {longest}, x {largest:g}, "
                     f"windows x {envelope:g}")
    return "; ".join(notes) + " (6 checks and x 10, or 3 rising windows and x 10, stop a run)"


def test_swinging_growth_is_stopped_by_its_envelope(tmp):
    """A closed acoustic box whose reverberating field is multiplied by
    1.001 a step (SEISFD_TEST_GROWTH): its norm swings, so no run of six
    rises forms, but the highest norm of each window of six checks tops
    the window's before; the guard stops the run once that is ten times
    the first window's, naming the rule, and writes no gather. The same
    box without the hook judges more windows than that and ends normally
    (test_long_stable_jobs_do_not_stop covers the boxes of every
    physics)."""
    job = box_job("acoustic", 8.0, {"type": "homogeneous", "vp": 2000}, [113.3, 117.2, 82.1],
                  frequency=15)
    rc, out, err = run_job(tmp, job, name="growing", expect_ok=False,
                           env={"SEISFD_TEST_GROWTH": "1.001"})
    m = re.search(r"the norm of p swung up: its highest over each of the last (\d+) windows of 6 "
                  r"checks topped the window's before, x ([0-9.e+]+) from step (\d+) to (\d+)", err)
    check(rc != 0 and m and int(m.group(1)) >= 3 and float(m.group(2)) >= 10,
          f"swinging growth not stopped by the envelope rule (exit {rc}):\n{err[-2000:]}")
    check(not os.path.exists(os.path.join(tmp, "out", "shot.h5")), "a gather was written")
    stopped = int(m.group(4))
    rc, out, err = run_job(tmp, job, name="steady")
    judged, longest, largest = guard_summary(out)
    check(judged * 100 > stopped, f"the steady box judged {judged} checks only")
    return (f"stopped at step {stopped} after {m.group(1)} rising windows, x {float(m.group(2)):.3g}; "
            f"the steady box {judged} checks judged, longest rise {longest}")


def amplitude_job(amplitude, **source):
    job = small_job("acoustic")
    job["source"].update(amplitude=amplitude, **source)
    return job


def test_amplitudes_float32_cannot_carry_are_refused(tmp):
    """seisfd check refuses a source whose density at its peak (|amplitude|
    x the wavelet's peak x its largest coefficient / the cell volume) lies
    outside 1e-30 .. 1e30, at the amplitude's line, with the amplitudes
    allowed; a survey shot's own amplitude at its line; 0 and ordinary
    values pass, and so does the elastic example's 1e6."""
    cases = {"big": (1e40, r"job\.yaml:\d+:\d+: source\.amplitude: 1e\+40 makes the source "
                           r"inject 1e\+37 per cubic metre at its peak .* more than float32 "
                           r"fields can carry .*allowed here: 1e-27 <= \|amplitude\| <= "
                           r"1e\+33, or 0"),
             "small": (-1e-40, r"source\.amplitude: -1e-40 makes the source inject 1e-43 per "
                               r"cubic metre at its peak .* less than float32")}
    for name, (amplitude, pattern) in cases.items():
        rc, out, err = run(["check", json_job(tmp, "job", amplitude_job(amplitude))], cwd=tmp)
        check(rc == 1 and re.search(pattern, err) and err.count("source.amplitude") == 1,
              f"{name}: exit {rc}:\n{err}")
    # Mixed precision's blocks reach 2^-110, not float32's denormals: its
    # window starts at 1e-25.
    for precision, refused in (("float32", False), ("mixed", True)):
        job = amplitude_job(1e-24)
        job["run"] = {"precision": precision}
        rc, out, err = run(["check", json_job(tmp, precision, job)], cwd=tmp)
        check((rc == 1) == refused and (not refused or re.search(
                  r"less than mixed precision's fields can carry .*\(1e-25 \.\. 1e\+29\); "
                  r"allowed here: 1e-22 <= \|amplitude\| <= 1e\+32", err)),
              f"amplitude 1e-24 in {precision}: exit {rc}:\n{err}")
    force = small_job("elastic")
    force["model"].update(vs=1700, rho=2200)
    force["source"] = {"type": "force", "position": [113, 117, 122], "frequency": 20,
                       "direction": [0, 0, 1e35]}
    rc, out, err = run(["check", json_job(tmp, "force", force)], cwd=tmp)
    check(rc == 1 and "source.amplitude (not given: 1): 1 makes the source inject 1e+32 per "
          "cubic metre at its peak (|amplitude| x the wavelet's peak 1 x the largest of the "
          "source's coefficients 1e+35 / the cell volume 1000 m^3)" in err,
          f"a force of 1e35 N: exit {rc}:\n{err}")
    survey = amplitude_job(1.0)
    del survey["source"]["position"]
    survey["survey"] = {"ranks_per_shot": 1, "shots": [{"position": [100, 110, 120]},
                                                       {"position": [120, 110, 100],
                                                        "amplitude": 1e34}]}
    survey["output"] = {"directory": "out"}
    rc, out, err = run(["check", json_job(tmp, "survey", survey)], cwd=tmp)
    check(rc == 1 and re.search(r"survey\.yaml:\d+:\d+: survey\.shots\[1\]\.amplitude: 1e\+34 "
                                r"makes the source inject 1e\+31", err),
          f"a shot's amplitude: exit {rc}:\n{err}")
    for amplitude in (0, 1e25, -3.5):
        rc, out, err = run(["check", json_job(tmp, "ok", amplitude_job(amplitude))], cwd=tmp)
        check(rc == 0, f"amplitude {amplitude} refused:\n{err}")
    rc, out, err = run(["check", os.path.join(os.path.dirname(__file__), "..", "configs",
                                              "elastic-seafloor.yaml")], cwd=tmp)
    check(rc == 0, f"the elastic example refused:\n{err}")
    return "1e40, -1e-40, a force of 1e35 and a shot's 1e34 refused; 0, 1e25, -3.5 accepted"


def json_job(tmp, name, job):
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        json.dump(job, f, indent=1)
    return path


def test_sources_and_receivers_inside_layers_warned(tmp):
    """A source inside a layer and a line of receivers crossing two of them
    are warned of at set-up: the first three named with their layer, the
    rest counted, and where the layers leave the wavefield alone; a job
    with none inside warns of nothing."""
    job = small_job("acoustic")
    job["source"]["position"] = [113, 117, 20]
    job["receivers"] = {"line": {"start": [0, 120, 80], "end": [230, 120, 80], "count": 24}}
    rc, out, err = run(["check", json_job(tmp, "inside", job)], cwd=tmp)
    check(rc == 0 and re.search(
        r"inside\.yaml:\d+:\d+: source\.position: 1 of 1 source lies inside an absorbing layer, "
        r"which damps what they inject from the start: the source at \(113, 117, 20\) m in the "
        r"zmin layer; keep them within x 60 \.\. 170 m, y 60 \.\. 170 m, z 60 \.\. 170 m", err),
        f"no warning of the source:\n{err}")
    check(re.search(r"inside\.yaml:\d+:\d+: receivers: 12 of 24 receivers lie inside an "
                    r"absorbing layer, where it damps the wavefield, so that their amplitudes "
                    r"mean little: receiver 1 at \(0, 120, 80\) m in the xmin layer, receiver 2 "
                    r"at \(10, 120, 80\) m in the xmin layer, receiver 3 at \(20, 120, 80\) m in "
                    r"the xmin layer, and 9 more;", err), f"no warning of the receivers:\n{err}")
    rc, out, err = run(["check", json_job(tmp, "outside", small_job("acoustic"))], cwd=tmp)
    check(rc == 0 and "absorbing layer" not in err, f"a warning without cause:\n{err}")
    return "the source and 12 of 24 receivers warned of"


def test_bench_shows_the_guard(tmp):
    """bench checks as a job does (--check-every, default 100) and says
    what the checks cost; the timing table has their row."""
    rc, out, err = run(["bench", "--device", "cpu", "--size", "32", "--steps", "20",
                        "--warmup", "2", "--cpml", "4", "--check-every", "5", "--copy-mib", "16"], cwd=tmp)
    m = re.search(r"instability guard   ([0-9.]+) s in 5 checks every 5 steps \(([0-9.e+-]+) ms "
                  r"a check\), ([0-9.]+)% of the time loop", out)
    check(rc == 0 and m and re.search(r"\n  instability guard +[0-9.]+ ", out),
          f"bench (exit {rc}) shows no guard time:\n{out}\n{err}")
    return f"{m.group(2)} ms a check on 32^3, {m.group(3)}% of the loop"


def test_bad_growth_setting_is_one_message(tmp):
    rc, out, err = run_job(tmp, small_job("acoustic"), expect_ok=False,
                           env={"SEISFD_TEST_GROWTH": "fast"})
    check(rc == 1 and "SEISFD_TEST_GROWTH: 'fast' is not FACTOR or FACTOR:SHOT" in err and
          err.count("seisfd: error") == 1, f"exit {rc}:\n{err}")
