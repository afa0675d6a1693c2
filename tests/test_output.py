"""The gather file: layout and metadata, atomic and non-clobbering writes,
resampling of the record, receiver layouts, and model input."""
import hashlib
import json
import os
import re
import signal
import socket
import time

import h5py
import numpy as np

from testlib import base_job, check, leftovers, limit_file_size, rank_pids, read_gather, run, \
    run_job, signal_ranks, start, time_limit, wait_for_line, write_job


def small_job(**kw):
    job = base_job(n=(40, 40, 40), h=10.0, cpml=8, duration=0.2, dt=0.001,
                   source=[201.0, 198.0, 203.0], **kw)
    job["receivers"] = {"points": [[251.5, 198.0, 203.0], [201.0, 120.0, 100.0],
                                   [300.0, 300.0, 290.5]]}
    return job


def test_gather_layout_and_metadata(tmp):
    job = small_job()
    job["receivers"]["sampling"] = 0.002
    run_job(tmp, job, ranks=2)
    path = os.path.join(tmp, "gather.h5")
    with h5py.File(path, "r") as f:
        traces = f["traces"]
        check(traces.dtype == np.float32 and traces.shape == (3, 101),
              f"traces {traces.dtype} {traces.shape}")
        pos = f["receiver_positions"][:]
        check(np.array_equal(pos, np.array(job["receivers"]["points"])),
              f"receiver positions {pos}")
        check(np.array_equal(f["source_position"][:], job["source"]["position"]),
              "source position")
        a = f.attrs
        check(a["dt"] == 0.002 and a["t0"] == 0.0 and a["nsamples"] == 101, f"sampling {dict(a)}")
        for key in ("time_units", "coordinate_units", "trace_units", "component", "config",
                    "config_path", "physics", "spatial_order", "simulation_dt"):
            check(key in a, f"attribute {key} missing")
        with open(os.path.join(tmp, "job.yaml")) as jf:
            check(a["config"] == jf.read(), "the config attribute is not the job file's text")
        check(a["coordinate_units"] == "m" and a["time_units"] == "s", "units")
    check(not os.path.exists(path + ".partial"), "a partial file was left behind")


def test_refuses_to_overwrite(tmp):
    job = small_job()
    job["output"] = {"gather": "g.h5"}
    path = os.path.join(tmp, "g.h5")
    with open(path, "w") as f:
        f.write("precious")
    rc, out, err = run_job(tmp, job, expect_ok=False)
    check(rc != 0 and "output.gather: 'g.h5' already exists; remove it or set "
                      "output.overwrite: true" in err, err)
    with open(path) as f:
        check(f.read() == "precious", "the existing file was modified")
    rc, out, err_check = run(["check", os.path.join(tmp, "job.yaml")], cwd=tmp)
    check(rc != 0 and output_errors(err_check) == output_errors(err),
          f"check did not refuse it as run does:\n{err_check}")
    job["output"]["overwrite"] = True
    run_job(tmp, job)
    check(read_gather(path)["traces"].shape[0] == 3, "overwrite did not write the gather")


def test_second_run_on_same_outputs_refused(tmp):
    """A run on the outputs of a run under way is refused at once, by run
    and by check, naming the path and the first run's host and process;
    the first run completes and leaves nothing temporary."""
    job = small_job()
    job["output"]["segy"] = "gather.sgy"
    first = start(tmp, job, "first")
    wait_for_line(first, "seisfd:")   # past its checks, so it holds its locks
    holder = rank_pids(first.pid)
    signal_ranks(first, signal.SIGSTOP)   # still running while the second tries
    try:
        started = time.time()
        rc, out, err = run_job(tmp, job, name="second", expect_ok=False)
        took = time.time() - started
        rc_check, _, err_check = run(["check", "second.yaml"], cwd=tmp)
    finally:
        signal_ranks(first, signal.SIGCONT)
    busy = (rf"second\.yaml:\d+:\d+: output\.gather: 'gather\.h5' is in use by another seisfd run "
            rf"\(host {re.escape(socket.gethostname())}, pid {holder[0]}, since [0-9T:Z-]+\); ")
    check(rc != 0 and re.search(busy, err) and "output.segy: 'gather.sgy' is in use" in err,
          f"the second run was not refused with the holder:\n{err}")
    check(rc_check != 0 and re.search(busy, err_check), f"check did not see the lock:\n{err_check}")
    check(took < time_limit(20), f"the refusal took {took:.1f} s")
    out, err = first.communicate(timeout=time_limit(300))
    check(first.returncode == 0, f"the first run failed:\n{err[-3000:]}")
    g = read_gather(os.path.join(tmp, "gather.h5"))
    check(g["traces"].shape == (3, 201) and np.abs(g["traces"]).max() > 0, "the first run's gather")
    check(not leftovers(tmp), f"left behind: {leftovers(tmp)}")
    return f"refused in {took:.1f} s naming pid {holder[0]}; the first run completed"


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def many_receivers(job):
    """400 receivers of 21 samples: the SEG-Y file (133 kB) is much larger
    than the HDF5 gather, so a file size limit between them fails the
    SEG-Y write after the HDF5 gather is complete."""
    job["receivers"] = {"line": {"start": [60, 100, 100], "end": [340, 300, 300], "count": 400},
                        "sampling": 0.01}
    return job


LIMIT = 100_000


def test_failed_rerun_keeps_earlier_outputs(tmp):
    """A re-run with overwrite whose SEG-Y write fails after its HDF5
    gather is complete leaves the earlier gather and SEG-Y file byte for
    byte and nothing temporary, and reports the failure; so does a
    survey's shot computed again."""
    job = many_receivers(small_job(gather="g.h5"))
    job["output"]["segy"] = "g.sgy"
    run_job(tmp, job, name="good", ranks=2)
    names = ["g.h5", "g.sgy"]
    before = {n: digest(os.path.join(tmp, n)) for n in names}
    sizes = {n: os.path.getsize(os.path.join(tmp, n)) for n in names}
    check(sizes["g.h5"] < LIMIT < sizes["g.sgy"], f"sizes {sizes} do not straddle {LIMIT}")
    job["source"]["amplitude"] = 2.0
    again = start(tmp, job, "again", ranks=2)
    limit_file_size(again, LIMIT)
    out, err = again.communicate(timeout=time_limit(300))
    check(again.returncode != 0 and re.search(r"cannot write SEG-Y gather 'g\.sgy\.[\w-]+\.partial' "
                                              r"\(rank 0\): .*File too large", err),
          f"the failed SEG-Y write was not reported:\n{err}")
    for n in names:
        check(digest(os.path.join(tmp, n)) == before[n], f"{n} changed when the re-run failed")
    with open(os.path.join(tmp, "g.report.json")) as f:
        shot = json.load(f)["shots"][0]
    check(shot["status"] == "failed" and "SEG-Y" in shot["reason"], f"report {shot}")
    check(not leftovers(tmp), f"left behind: {leftovers(tmp)}")

    survey = many_receivers(small_job())
    del survey["source"]["position"]
    survey["survey"] = {"shots": [{"position": [201.0, 198.0, 203.0]}]}
    survey["output"] = {"directory": "out", "segy": True}
    run_job(tmp, survey, name="survey")
    shots = [os.path.join(tmp, "out", n) for n in ("shot_0001.h5", "shot_0001.sgy")]
    before = [digest(p) for p in shots]
    survey["source"]["amplitude"] = 2.0
    again = start(tmp, survey, "survey-again", args=("--restart", "fresh"))
    limit_file_size(again, LIMIT)
    out, err = again.communicate(timeout=time_limit(300))
    check(again.returncode != 0 and "shot 1: cannot write SEG-Y gather" in err,
          f"the survey's failed SEG-Y write was not reported:\n{err}")
    check([digest(p) for p in shots] == before, "a shot's files changed when its re-run failed")
    check(not leftovers(tmp), f"left behind: {leftovers(tmp)}")
    return "earlier gather and SEG-Y kept byte for byte (single shot and survey)"


def test_directory_appearing_at_output_fails_cleanly(tmp):
    """A directory that appears at the gather's name after the checks
    before the run (so the final rename fails) fails the run with a
    message naming it, keeps the earlier SEG-Y file, still writes the run
    report and leaves nothing temporary."""
    job = small_job(gather="g.h5")
    job["output"]["segy"] = "g.sgy"
    run_job(tmp, job, name="good", ranks=2)
    before = digest(os.path.join(tmp, "g.sgy"))
    job["source"]["amplitude"] = 2.0
    again = start(tmp, job, "again", ranks=2)
    wait_for_line(again, "seisfd:")
    signal_ranks(again, signal.SIGSTOP)
    os.remove(os.path.join(tmp, "g.h5"))
    os.makedirs(os.path.join(tmp, "g.h5", "inside"))
    signal_ranks(again, signal.SIGCONT)
    out, err = again.communicate(timeout=time_limit(300))
    reason = "'g.h5' is a directory, which an output cannot replace; none of this run's outputs " \
             "were kept and earlier ones are as they were"
    check(again.returncode != 0 and reason in err, f"unclear error:\n{err}")
    check(digest(os.path.join(tmp, "g.sgy")) == before, "the earlier SEG-Y file changed")
    with open(os.path.join(tmp, "g.report.json")) as f:
        shot = json.load(f)["shots"][0]
    check(shot["status"] == "failed" and reason in shot["reason"], f"report {shot}")
    check(not leftovers(tmp), f"left behind: {leftovers(tmp)}")
    return "failed at the rename with a report, earlier SEG-Y kept, nothing temporary"


def tree(top):
    """Every file and directory under top with its size and time, so that
    even a file made and removed again shows (in its directory's time)."""
    found = {}
    for dirpath, dirnames, filenames in os.walk(top):
        for name in [""] + dirnames + filenames:
            st = os.lstat(os.path.join(dirpath, name))
            found[os.path.join(dirpath, name)] = (st.st_size, st.st_mtime_ns)
    return found


def output_errors(err):
    return [line for line in err.splitlines() if re.match(r"\S+\.yaml:\d+:\d+: output\.", line)]


def test_check_refuses_what_run_refuses_and_creates_nothing(tmp):
    """seisfd check makes the output checks of seisfd run and gives the same
    messages at the same lines, but creates nothing, not even directories
    or probe files: a file name too long for its temporary name, a path
    too long, a file where a directory must be made, a directory at an
    output's path (refused even with overwrite, before any step), a survey
    directory under a file."""
    open(os.path.join(tmp, "plainfile"), "w").close()
    os.makedirs(os.path.join(tmp, "taken.h5", "inside"))
    single = small_job(gather="x" * 200 + ".h5")
    single["output"].update(segy="plainfile/sub/g.sgy", report="a/" * 2100 + "r.json",
                            snapshots={"path": "taken.h5", "every": 50})
    survey = small_job()
    del survey["source"]["position"]
    survey["survey"] = {"shots": [{"position": [201.0, 198.0, 203.0]}]}
    survey["output"] = {"directory": "plainfile/survey"}
    expected = {
        "single": ["output.gather: the file name '" + "x" * 200 + ".h5' has 203 characters, but "
                   "at most 191 fit: its file system allows 255 and seisfd's temporary names add "
                   "up to 64",
                   "output.segy: cannot create directory 'plainfile': a file of that name exists",
                   "output.snapshots.path: 'taken.h5' is a directory, which an output cannot "
                   "replace; remove it or choose another path",
                   "output.report: the path has 4206 characters; seisfd takes at most 4000"],
        "survey": ["output.directory: cannot create directory 'plainfile': a file of that name "
                   "exists"],
    }
    for name, job in (("single", single), ("survey", survey)):
        write_job(os.path.join(tmp, name + ".yaml"), job)
        before = tree(tmp)
        rc, out, err = run(["check", name + ".yaml"], cwd=tmp)
        check(tree(tmp) == before, f"{name}: check changed the disk: "
              f"{sorted(set(tree(tmp).items()) ^ set(before.items()))}")
        rc_run, out_run, err_run = run(["run", name + ".yaml"], cwd=tmp)
        errors = output_errors(err)
        check(rc != 0 and rc_run != 0 and len(errors) >= len(expected[name]) and
              all(any(e in line for line in errors) for e in expected[name]),
              f"{name}: check (exit {rc}) and run (exit {rc_run}) did not refuse it:\n{err}")
        check(all(line.startswith(f"{name}.yaml:") for line in errors) and
              errors == output_errors(err_run), f"{name}: check and run differ:\n{err}\n{err_run}")
        check("step" not in out_run, f"{name}: refused only after stepping:\n{out_run}")

    job = small_job(gather="new/deeper/g.h5")
    job["output"]["snapshots"] = {"path": "snaps/s.h5", "every": 50}
    write_job(os.path.join(tmp, "valid.yaml"), job)
    before = tree(tmp)
    rc, out, err = run(["check", "valid.yaml"], cwd=tmp)
    check(rc == 0 and tree(tmp) == before, f"check of a valid job changed the disk (exit {rc}):\n{err}")
    return "5 refusals alike in check and run; check created nothing"


def test_creates_directories_and_reports_unwritable(tmp):
    job = small_job(gather="a/b/c/g.h5")
    run_job(tmp, job)
    check(os.path.exists(os.path.join(tmp, "a/b/c/g.h5")), "nested output not written")
    with open(os.path.join(tmp, "plainfile"), "w") as f:
        f.write("x")
    job["output"]["gather"] = "plainfile/g.h5"
    rc, out, err = run_job(tmp, job, expect_ok=False, ranks=2)
    check(rc != 0 and "output.gather: cannot create directory 'plainfile': a file of that "
                      "name exists" in err, err)


def test_run_refused_at_set_up_makes_no_directory(tmp):
    """A run refused at its memory stage (a grid too large) or its model
    stage (dt above the CFL limit) makes none of its output directories,
    single shot or survey; one that passes makes them."""
    big = small_job(gather="mem/g.h5")
    big["grid"].update(nx=100000, ny=100000, nz=100000)
    unstable = small_job(gather="cfl/g.h5")
    unstable["time"]["dt"] = 0.01
    unstable["output"]["segy"] = "cfl/segy/g.sgy"
    survey = small_job()
    del survey["source"]["position"], survey["output"]["gather"]
    survey["time"]["dt"] = 0.01
    survey["survey"] = {"shots": [{"position": [201.0, 198.0, 203.0]}]}
    survey["output"]["directory"] = "shots/out"
    for name, job, stage in (("mem", big, "the job needs about"),
                             ("cfl", unstable, "stability (CFL) limit"),
                             ("shots", survey, "stability (CFL) limit")):
        rc, out, err = run_job(tmp, job, name=name, expect_ok=False)
        check(rc != 0 and stage in err, f"{name}: not refused at its set-up:\n{err}")
        check(not os.path.exists(os.path.join(tmp, name)), f"{name}: a directory was made")
    survey["time"]["dt"] = 0.001
    run_job(tmp, survey, name="shots")
    check(os.path.isfile(os.path.join(tmp, "shots/out/shot_0001.h5")) and not leftovers(tmp),
          "the survey that passed its set-up did not write its directory")
    return "memory and CFL refusals made no directory; a valid survey made its own"


def test_resampled_record_matches_fine_record(tmp):
    """A coarser record interval (not a multiple of dt) is the band-limited
    resampling of the time series at dt."""
    fine = small_job(gather="fine.h5")
    fine["source"]["frequency"] = 8.0
    coarse = small_job(gather="coarse.h5")
    coarse["source"]["frequency"] = 8.0
    coarse["receivers"]["sampling"] = 0.0035
    run_job(tmp, fine, name="fine")
    run_job(tmp, coarse, name="coarse")
    f = read_gather(os.path.join(tmp, "fine.h5"))
    c = read_gather(os.path.join(tmp, "coarse.h5"))
    tf = np.arange(f["traces"].shape[1]) * f["dt"]
    tc = np.arange(c["traces"].shape[1]) * c["dt"]
    # The record reaches the duration: 58 intervals of 3.5 ms, 0.203 s.
    check(c["traces"].shape[1] == 59 and tc[-1] >= 0.2,
          f"{c['traces'].shape[1]} samples for 0.2 s at 3.5 ms")
    inside = tc <= tf[-1]
    worst = 0.0
    for a, b in zip(f["traces"], c["traces"]):
        reference = np.interp(tc[inside], tf, a)   # 1 ms sampling: linear is accurate here
        worst = max(worst, np.abs(b[inside] - reference).max() / np.abs(a).max())
    check(worst < 5e-3, f"resampled record differs by {worst:.3g} of the peak")
    return f"largest difference {worst:.2g} of the peak"


def test_receiver_line_and_grid(tmp):
    job = small_job()
    job["receivers"] = {"line": {"start": [100, 100, 50], "end": [300, 200, 150], "count": 5},
                        "grid": {"origin": [100, 100, 20], "spacing": [50, 25], "count": [3, 2]}}
    run_job(tmp, job, ranks=3)
    pos = read_gather(os.path.join(tmp, "gather.h5"))["receivers"]
    line = np.linspace([100, 100, 50], [300, 200, 150], 5)
    grid = np.array([[100 + 50 * i, 100 + 25 * j, 20] for j in range(2) for i in range(3)])
    check(np.allclose(pos, np.vstack([line, grid])), f"receiver positions:\n{pos}")


def layered(job):
    job["model"] = {"type": "layered", "layers": [{"top": 0, "vp": 1800}, {"top": 155, "vp": 2600},
                                                  {"top": 260, "vp": 3100}]}
    return job


def test_raw_model_equals_layered(tmp):
    """The same velocities given as a raw file (little and big endian) give
    the same gather as the layered description."""
    job = layered(small_job(gather="layered.h5"))
    run_job(tmp, job, name="layered", ranks=2)
    z = np.arange(40) * 10.0
    vz = np.where(z >= 260, 3100.0, np.where(z >= 155, 2600.0, 1800.0))
    volume = np.broadcast_to(vz[:, None, None], (40, 40, 40))
    for endian, dtype in (("little", "<f4"), ("big", ">f4")):
        np.asarray(volume, dtype=dtype).tofile(os.path.join(tmp, f"vp-{endian}.bin"))
        raw = small_job(gather=f"raw-{endian}.h5")
        raw["model"] = {"type": "raw", "path": f"vp-{endian}.bin", "dims": [40, 40, 40],
                        "endian": endian}
        run_job(tmp, raw, name=f"raw-{endian}", ranks=3)
    reference = read_gather(os.path.join(tmp, "layered.h5"))["traces"]
    for endian in ("little", "big"):
        got = read_gather(os.path.join(tmp, f"raw-{endian}.h5"))["traces"]
        check(np.array_equal(got, reference), f"{endian}-endian raw model gives another gather")


def test_command_line_usage(tmp):
    rc, out, err = run([], cwd=tmp)
    check(rc == 2 and err.startswith("seisfd: error: no command given\n\nusage: seisfd COMMAND"),
          f"exit {rc}: {err}")
    rc, out, err = run(["--version"], cwd=tmp)
    check(rc == 0 and out.startswith("seisfd "), out)


def test_timing_report_and_summary(tmp):
    job = small_job()
    rc, out, err = run_job(tmp, job, ranks=2)
    for text in ("decomposition     2 ranks along z, slabs of 20..20 planes",
                 "of the CFL limit", "points per minimum wavelength", "memory per rank",
                 "stencil + CPML", "halo exchange", "I/O", "throughput"):
        check(text in out, f"'{text}' missing from the output:\n{out}")
    check_setup_times(out, os.path.join(tmp, "gather.report.json"))


SETUP_PARTS = ["devices", "slab_cut", "model", "checks", "medium", "backend"]


def check_setup_times(out, report_path):
    """The summary's set-up line gives each part as the most any rank's
    report entry took, and the slowest rank's sum."""
    m = re.search(r"set-up +([\d.]+) s on the slowest rank: (.*) s \(each part the most a rank took\)", out)
    check(m, f"no set-up line:\n{out}")
    shown = dict(re.fullmatch(r"([a-z ]+) ([\d.]+)", part).groups() for part in m.group(2).split(", "))
    check(list(shown) == [p.replace("_", " ") for p in SETUP_PARTS], f"set-up parts {list(shown)}")
    with open(report_path) as f:
        ranks = [p["setup_seconds"] for p in json.load(f)["processes"]]
    check(all(sorted(r) == sorted(SETUP_PARTS) and min(r.values()) >= 0 for r in ranks),
          f"report set-up times {ranks}")
    for part in SETUP_PARTS:
        most = max(r[part] for r in ranks)
        check(abs(float(shown[part.replace("_", " ")]) - most) <= 0.0005 + 1e-9,
              f"{part}: summary {shown[part.replace('_', ' ')]} s, ranks {[r[part] for r in ranks]}")
    slowest = max(sum(r.values()) for r in ranks)
    check(abs(float(m.group(1)) - slowest) <= 0.0005 + 1e-9, f"set-up {m.group(1)} s, slowest rank {slowest}")
