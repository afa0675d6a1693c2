"""Snapshots (HDF5 + XDMF) and the safety of outputs: a killed run or a
full disk never leaves a file that looks complete, and earlier outputs
stay intact."""
import glob
import hashlib
import os
import re
import subprocess
import sys
import time
import xml.etree.ElementTree as ET

import h5py
import numpy as np

from testlib import ROOT, base_job, check, check_sanitizers, kill_job, leftovers, \
    limit_file_size, read_gather, run_job, small_tmpfs, start, time_limit

DECIMATION = [2, 1, 3]
PLOT = os.path.join(ROOT, "io", "seisfd_plot.py")


def snapshot_job(every=10, nt=40):
    job = base_job(n=(30, 26, 31), h=10.0, cpml=5, dt=0.0015, duration=None,
                   source=[151.3, 128.2, 90.7], frequency=12.0, gather="gather.h5")
    # Snapshots hold the run's field, which the time-dispersion transforms
    # (applied to the records) do not touch: off, so the two compare.
    job["time"] = {"dt": 0.0015, "nt": nt, "dispersion_correction": False}
    job["boundaries"]["free_surface"] = True
    # A receiver on a node of the snapshot lattice (i=8, j=13, k=18).
    job["receivers"] = {"points": [[80.0, 130.0, 180.0]]}
    job["output"]["snapshots"] = {"path": "snaps/run.h5", "every": every,
                                  "decimation": DECIMATION}
    return job


def read_xdmf(path):
    grids = ET.parse(path).getroot().findall("./Domain/Grid/Grid")
    check(grids, "the XDMF file has no grids")
    out = []
    for g in grids:
        item = g.find("./Attribute/DataItem")
        out.append({"time": float(g.find("Time").get("Value")),
                    "topology": g.find("Topology").get("Dimensions"),
                    "geometry": [d.text.split() for d in g.findall("./Geometry/DataItem")],
                    "dims": item.get("Dimensions"), "ref": item.text.strip()})
    return out


def test_snapshots_xdmf_and_receiver_equality(tmp):
    """The XDMF index of a run on 3 ranks parses and matches the HDF5
    file; a snapshot value equals the receiver on that node. (That 1 and 3
    ranks write the same values is the conformance suite's.)"""
    run_job(tmp, snapshot_job(), name="snap3", ranks=3)
    snaps = os.path.join(tmp, "snaps", "run.h5")
    grids = read_xdmf(os.path.join(tmp, "snaps", "run.xdmf"))
    gather = read_gather(os.path.join(tmp, "gather.h5"))
    with h5py.File(snaps, "r") as parallel:
        group = parallel["snapshots"]
        steps = list(group.attrs["steps"])
        check(steps == [10, 20, 30, 40], f"snapshot steps {steps}")
        check(list(group.attrs["dims"]) == [15, 26, 11], f"dims {list(group.attrs['dims'])}")
        check(len(grids) == len(steps), f"{len(grids)} XDMF grids for {len(steps)} snapshots")
        for grid, step, t in zip(grids, steps, group.attrs["times"]):
            name = f"{step:08d}"
            check(grid["ref"] == f"run.h5:/snapshots/p/{name}", f"XDMF points at {grid['ref']}")
            data = group["p"][name]
            shape = " ".join(str(n) for n in data.shape)
            check(grid["dims"] == shape and grid["topology"] == shape,
                  f"XDMF dimensions {grid['dims']} / {grid['topology']} vs dataset {shape}")
            check(abs(grid["time"] - t) < 1e-9 and abs(data.attrs["time"] - t) < 1e-12,
                  f"time of step {step}")
            check(grid["geometry"][1] == ["30", "10", "20"], f"spacing {grid['geometry'][1]}")
            check(np.abs(data[:]).max() > 0, f"step {step} is empty")
            node = data[18 // 3, 13, 8 // 2]
            trace = gather["traces"][0][step]
            check(abs(node - trace) <= 1e-6 * np.abs(gather["traces"]).max(),
                  f"step {step}: snapshot {node} but the receiver on that node {trace}")
    png = os.path.join(tmp, "slices.png")
    plot = subprocess.run([sys.executable, PLOT, "snapshot", snaps, png, "--step", "30"],
                          capture_output=True, text=True)
    check(plot.returncode == 0 and open(png, "rb").read(8) == b"\x89PNG\r\n\x1a\n",
          f"the plot tool did not draw the snapshot:\n{plot.stderr}")
    return f"{len(steps)} snapshots on 3 ranks, XDMF consistent, equal to the receiver, plotted"


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def kill_when(proc, condition, timeout=120):
    end = time.time() + time_limit(timeout)
    while not condition():
        check(proc.poll() is None, "the run ended before it could be killed")
        check(time.time() < end, "the run never reached the point to kill it")
        time.sleep(0.05)
    kill_job(proc)


OUTPUTS = ["gather.h5", "gather.sgy", "snaps/run.h5", "snaps/run.xdmf"]


def long_job():
    job = snapshot_job(every=5, nt=20000)
    job["receivers"]["sampling"] = 0.003
    job["output"]["segy"] = "gather.sgy"
    return job


def partials(path):
    """The temporary files of an output, whichever run wrote them."""
    return glob.glob(glob.escape(path) + ".*.partial")


def test_killed_run_leaves_no_complete_output(tmp):
    """SIGKILL mid-run: no output appears under its final name, and the
    outputs of an earlier complete run stay byte for byte; the next run
    removes what the killed one left."""
    proc = start(tmp, long_job(), "killed", ranks=2)
    snaps = os.path.join(tmp, "snaps", "run.h5")
    kill_when(proc, lambda: any(os.path.getsize(p) > 0 for p in partials(snaps)))
    for name in OUTPUTS:
        check(not os.path.exists(os.path.join(tmp, name)), f"{name} exists after the kill")

    done = long_job()
    done["time"]["nt"] = 20
    run_job(tmp, done, name="complete", ranks=2)
    check(not leftovers(tmp), f"left after the complete run: {leftovers(tmp)}")
    before = {name: digest(os.path.join(tmp, name)) for name in OUTPUTS}
    proc = start(tmp, long_job(), "killed-again", ranks=2)
    started = time.time()
    kill_when(proc, lambda: any(os.path.getmtime(p) > started for p in partials(snaps)))
    for name in OUTPUTS:
        check(digest(os.path.join(tmp, name)) == before[name],
              f"{name} of the earlier run changed when a later run was killed")
    return "nothing complete-looking after two kills; earlier outputs unchanged"


def test_full_disk_is_a_clear_error(tmp):
    """Outputs that do not fit are refused before time stepping; a write
    that fails mid-run ends with a clear message and no complete output."""
    with small_tmpfs(os.path.join(tmp, "disk"), "256k") as disk:
        job = snapshot_job()
        job["receivers"] = {"line": {"start": [60, 100, 100], "end": [240, 100, 100],
                                     "count": 400}}
        job["output"] = {"gather": "disk/first.h5", "overwrite": True}
        job["time"]["nt"] = 5
        run_job(tmp, job, name="fits", ranks=2)
        before = digest(os.path.join(disk, "first.h5"))
        job["time"]["nt"] = 400
        rc, out, err = run_job(tmp, job, name="full", ranks=2, expect_ok=False)
        check(rc != 0, "a gather larger than the disk was accepted")
        check("full.yaml" in err and re.search(r"output\.gather: the outputs on the file system "
                                               r"of 'disk/first\.h5' need [\d.e+]+ MiB, but it "
                                               r"has [\d.e+]+ MiB free", err),
              f"unclear error:\n{err}")
        check(digest(os.path.join(disk, "first.h5")) == before, "the earlier gather changed")
    return "refused before stepping; earlier output intact"


def test_failed_write_mid_run(tmp):
    """A write that fails at the end (file size limit imposed on the running
    ranks) reports the HDF5 failure and leaves no file, not even a
    temporary one."""
    job = snapshot_job(nt=300)
    job["output"] = {"gather": "out/g.h5"}
    job["receivers"] = {"line": {"start": [60, 100, 100], "end": [240, 100, 100], "count": 300}}
    proc = start(tmp, job, "limited", ranks=2)
    limit_file_size(proc, 8192)
    out, err = proc.communicate(timeout=time_limit(300))
    check_sanitizers(err, "seisfd run with a file size limit")
    check(proc.returncode != 0, "the run succeeded despite the failed write")
    check("HDF5 failed while" in err and re.search(r"out/g\.h5\.[\w-]+\.partial", err),
          f"unclear error:\n{err}")
    check(not os.path.exists(os.path.join(tmp, "out", "g.h5")), "g.h5 exists after the failure")
    check(not partials(os.path.join(tmp, "out", "g.h5")), "a temporary file was left behind")
    return "HDF5 failure reported, no complete-looking file"
