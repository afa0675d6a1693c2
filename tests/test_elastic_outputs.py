"""Elastic jobs' inputs and outputs: the gather's component axis, one SEG-Y
file per component, snapshots of velocity and pressure, the energy
series, the picture of a component, and vp, vs, rho read from HDF5, raw
and SEG-Y files on several ranks."""
import os
import re
import subprocess
import sys
import xml.etree.ElementTree as ET

import h5py
import numpy as np
import segyio

from test_elastic import elastic_job
from test_models import write_hdf5, write_segy
from testlib import ROOT, check, read_gather, run_job

PLOT = os.path.join(ROOT, "io", "seisfd_plot.py")


def output_job():
    job = elastic_job("force", n=(30, 28, 26), h=10.0, cpml=6, duration=0.16, dt=0.002,
                      source=[151.3, 138.7, 122.1], frequency=12.0,
                      components=["vx", "vy", "vz", "p"])
    job["source"]["direction"] = [0.0, 0.6, 0.8]
    # Snapshots are the run's fields, which the time-dispersion transforms
    # (applied to the records) leave as they are: off, so the two compare.
    job["time"]["dispersion_correction"] = False
    job["receivers"]["points"] = [[180.0, 140.0, 120.0], [120.0, 100.0, 90.0],
                                  [150.0, 200.0, 170.0]]
    job["output"].update({"segy": "shot.sgy", "energy": "energy.csv",
                          "snapshots": {"path": "snaps.h5", "every": 20}})
    return job


def test_elastic_gather_segy_snapshots_and_energy(tmp):
    """A 2-rank run: /traces [4][3][nsamples] with a components attribute;
    shot_vx.sgy .. shot_p.sgy hold the same samples bit for bit; snapshots
    of vx, vy, vz and p with an XDMF attribute each (equal to a 1-rank
    run's: the conformance suite), p on a node equal to the p receiver
    there; one energy row per step; the picture of a chosen component."""
    run_job(tmp, output_job(), ranks=2)
    g = read_gather(os.path.join(tmp, "gather.h5"))
    a = g["attrs"]
    check(g["traces"].shape == (4, 3, 81) and g["traces"].dtype == np.float32,
          f"traces {g['traces'].dtype} {g['traces'].shape}")
    check(a["components"] == "vx,vy,vz,p" and a["physics"] == "elastic" and "component" not in a,
          f"attributes {dict(a)}")
    check("particle velocity in m/s" in a["trace_units"], a["trace_units"])
    for c, name in enumerate(("vx", "vy", "vz", "p")):
        with segyio.open(os.path.join(tmp, f"shot_{name}.sgy"), ignore_geometry=True) as f:
            check(np.array_equal(f.trace.raw[:], g["traces"][c]),
                  f"shot_{name}.sgy differs from component {c} of the HDF5 gather")
            text = bytes(f.text[0]).decode("ascii", errors="replace")
            check(name in text and "physics: elastic" in text, f"textual header:\n{text[:240]}")
    with h5py.File(os.path.join(tmp, "snaps.h5"), "r") as f:
        group = f["snapshots"]
        check(group.attrs["fields"] == "vx,vy,vz,p", f"fields {group.attrs['fields']}")
        check(list(group.attrs["steps"]) == [20, 40, 60, 80], f"steps {group.attrs['steps']}")
        p40 = f["snapshots/p/00000040"][:]
    # Receiver 0 lies on node (18, 14, 12); the gather's sample 40 is step 40.
    check(p40[12, 14, 18] == g["traces"][3, 0, 40],
          f"p snapshot {p40[12, 14, 18]} != receiver {g['traces'][3, 0, 40]}")
    xdmf = ET.parse(os.path.join(tmp, "snaps.xdmf")).getroot()
    grids = xdmf.findall(".//Grid[@GridType='Uniform']")
    names = [att.get("Name") for att in grids[0].findall("Attribute")]
    check(len(grids) == 4 and names == ["vx", "vy", "vz", "p"], f"XDMF grids {len(grids)}: {names}")
    check(grids[1].find("Attribute[@Name='vz']/DataItem").text.strip() ==
          "snaps.h5:/snapshots/vz/00000040", "XDMF dataset path")
    with open(os.path.join(tmp, "energy.csv")) as f:
        rows = f.read().splitlines()
    check(rows[0] == "step,time,kinetic,strain,total" and len(rows) == 81, f"{len(rows)} rows")
    picture = os.path.join(tmp, "vz.png")
    p = subprocess.run([sys.executable, PLOT, "gather", os.path.join(tmp, "gather.h5"), picture,
                        "--component", "vz"], capture_output=True, text=True)
    check(p.returncode == 0 and os.path.getsize(picture) > 10000, f"plot: {p.stderr}")
    p = subprocess.run([sys.executable, PLOT, "gather", os.path.join(tmp, "gather.h5"),
                        os.path.join(tmp, "x.png"), "--component", "vw"], capture_output=True,
                       text=True)
    check(p.returncode == 1 and "has no component vw (components: vx, vy, vz, p)" in p.stderr,
          f"plot of a missing component: {p.stderr}")
    return "4 components in HDF5, SEG-Y and snapshots; energy and picture written"


GRID = (20, 18, 16)
H = 10.0


def smooth_fields(seed=1):
    """[nz][ny][nx] vp, vs, rho varying on every axis, with a fluid patch."""
    nz, ny, nx = GRID[2], GRID[1], GRID[0]
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    rng = np.random.default_rng(seed)
    vp = 2600 + 300 * np.sin(0.4 * x) * np.cos(0.3 * y) + 20 * z + rng.uniform(-30, 30, x.shape)
    vs = 0.5 * vp + 50 * np.cos(0.5 * z)
    vs[:3, :5, :6] = 0.0
    rho = 2000 + 150 * np.sin(0.2 * x + 0.3 * z) + rng.uniform(-20, 20, x.shape)
    return [v.astype(np.float32) for v in (vp, vs, rho)]


def file_job(model, name):
    job = elastic_job("moment", n=GRID, h=H, cpml=4, duration=0.04, dt=0.001,
                      source=[95.0, 85.0, 75.0], receivers=[[105.0, 85.0, 75.0],
                                                            [60.0, 40.0, 110.0]],
                      frequency=15.0, gather=name + "-gather.h5",
                      components=["vx", "vz", "p"])
    job["source"]["moment"] = [1.0, 0.5, -0.7, 0.3, 0.2, -0.4]
    job["model"] = model
    job["output"]["model"] = name + "-model.h5"
    return job


def test_elastic_models_from_files_on_1_and_3_ranks(tmp):
    """vp, vs, rho as HDF5 datasets (named in datasets), raw files and SEG-Y
    files come back exactly through output.model on 1 and 3 ranks, and a
    3-D varying model gives the same gather on 1 and 3 ranks (the averages
    across slab boundaries)."""
    fields = smooth_fields()
    names = ("vp", "vs", "rho")
    with h5py.File(os.path.join(tmp, "m.h5"), "w") as f:
        for n, v in zip(("P", "S", "density"), fields):
            f.create_dataset(n, data=v)
    for n, v in zip(names, fields):
        v.astype("<f4").tofile(os.path.join(tmp, n + ".bin"))
        write_segy(os.path.join(tmp, n + ".sgy"), v)
    models = {
        "hdf5": {"type": "hdf5", "path": "m.h5", "datasets": {"vp": "P", "vs": "S", "rho": "density"}},
        "raw": {"type": "raw", "paths": {n: n + ".bin" for n in names}, "dims": list(GRID)},
        "segy": {"type": "segy", "paths": {n: n + ".sgy" for n in names}, "spacing": [H] * 3},
    }
    gathers = {}
    for kind, model in models.items():
        for ranks in (1, 3):
            name = f"{kind}{ranks}"
            run_job(tmp, file_job(model, name), name=name, ranks=ranks)
            with h5py.File(os.path.join(tmp, name + "-model.h5"), "r") as f:
                for n, v in zip(names, fields):
                    check(np.array_equal(f[n][:], v), f"{kind} on {ranks} ranks: {n} differs")
            gathers[name] = read_gather(os.path.join(tmp, name + "-gather.h5"))["traces"]
    reference = gathers["hdf51"]
    check(np.abs(reference).max() > 0, "empty gather")
    for name, traces in gathers.items():
        check(np.array_equal(traces, reference), f"gather of {name} differs from hdf5 on 1 rank")
    return "3 formats x 2 rank counts: models exact, gathers identical"


def test_bad_elastic_model_files(tmp):
    """A negative vs names its file, key and index; a vs too close to vp in
    files is refused at the grid point."""
    vp, vs, rho = smooth_fields()
    bad = vs.copy()
    bad[5, 4, 3] = -1.0
    for n, v in zip(("vp", "vs", "rho"), (vp, bad, rho)):
        v.astype("<f4").tofile(os.path.join(tmp, n + ".bin"))
    model = {"type": "raw", "paths": {n: n + ".bin" for n in ("vp", "vs", "rho")},
             "dims": list(GRID)}
    rc, out, err = run_job(tmp, file_job(model, "bad"), name="bad", ranks=2, expect_ok=False)
    check(rc != 0 and re.search(r"bad\.yaml:\d+:\d+: model\.paths\.vs: model file 'vs\.bin': vs at "
                                r"index \(i=3, j=4, k=5\) is -1; velocities must be finite and "
                                r"within 0\.\.15000 m/s \(model\.vs_range\)", err), err)
    close = vs.copy()
    close[9, 2, 7] = 0.9 * vp[9, 2, 7]
    close.astype("<f4").tofile(os.path.join(tmp, "vs.bin"))
    rc, out, err = run_job(tmp, file_job(model, "close"), name="close", ranks=3, expect_ok=False)
    check(rc != 0 and re.search(r"model: at grid point \(i=7, j=2, k=9\), \(70, 20, 90\) m, vs = "
                                r"[0-9.]+ m/s is not below 0\.8660 vp", err), err)
