"""The gather file: layout and metadata, atomic and non-clobbering writes,
resampling of the record, receiver layouts, and model input."""
import os

import h5py
import numpy as np

from testlib import base_job, check, read_gather, run, run_job


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
    job["output"]["overwrite"] = True
    run_job(tmp, job)
    check(read_gather(path)["traces"].shape[0] == 3, "overwrite did not write the gather")


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
    check(c["traces"].shape[1] == 58, f"{c['traces'].shape[1]} samples for 0.2 s at 3.5 ms")
    worst = 0.0
    for a, b in zip(f["traces"], c["traces"]):
        reference = np.interp(tc, tf, a)   # 1 ms sampling: linear is accurate here
        worst = max(worst, np.abs(b - reference).max() / np.abs(a).max())
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
    check(rc != 0 and "usage: seisfd run JOB.yaml" in err, f"exit {rc}: {err}")
    rc, out, err = run(["--version"], cwd=tmp)
    check(rc == 0 and out.startswith("seisfd "), out)


def test_timing_report_and_summary(tmp):
    job = small_job()
    rc, out, err = run_job(tmp, job, ranks=2)
    for text in ("decomposition     2 ranks along z, slabs of 20..20 planes",
                 "of the CFL limit", "points per minimum wavelength", "memory per rank",
                 "stencil + CPML", "halo exchange", "I/O", "throughput"):
        check(text in out, f"'{text}' missing from the output:\n{out}")
