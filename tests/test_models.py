"""Velocity models from files: HDF5, SEG-Y and raw volumes read back
through seisfd's readers (written out again with output.model) on 1 and 3
ranks; resampling exact on coincident grids and linear between; 2D
sections extruded along y; clear errors for bad files."""
import contextlib
import io
import os

import h5py
import numpy as np
import segyio

from testlib import base_job, check, run_job

GRID = (24, 20, 22)   # nx, ny, nz of the simulation grid
H = 10.0


def smooth_model(shape, seed=0):
    """[nz][ny][nx] velocities that vary on every axis, 1500..3500 m/s."""
    nz, ny, nx = shape
    rng = np.random.default_rng(seed)
    z, y, x = np.meshgrid(np.arange(nz), np.arange(ny), np.arange(nx), indexing="ij")
    v = 2500 + 400 * np.sin(0.3 * x + 1) * np.cos(0.2 * y) + 30 * z
    v += rng.uniform(-50, 50, size=v.shape)
    return np.clip(v, 1500, 3500).astype(np.float32)


def model_job(model, name):
    job = base_job(n=GRID, h=H, cpml=4, dt=0.001, duration=0.001,
                   source=[115.0, 95.0, 105.0], receivers=[[125.0, 95.0, 105.0]],
                   gather=name + "-gather.h5")
    job["model"] = model
    job["output"]["model"] = name + "-model.h5"
    return job


def run_model(tmp, model, name, ranks):
    """The velocities seisfd put on the simulation grid, [nz][ny][nx]."""
    run_job(tmp, model_job(model, name), name=name, ranks=ranks)
    with h5py.File(os.path.join(tmp, name + "-model.h5"), "r") as f:
        return f["vp"][:]


def write_hdf5(path, v, origin=None, spacing=None, name="vp"):
    with h5py.File(path, "w") as f:
        d = f.create_dataset(name, data=v)
        if origin is not None:
            d.attrs["origin"] = np.asarray(origin, dtype=np.float64)
        if spacing is not None:
            d.attrs["spacing"] = np.asarray(spacing, dtype=np.float64)


def write_segy(path, v, format=5):
    """[nz][ny][nx] as an inline-sorted 3D SEG-Y (x along crosslines), or
    [nz][nx] as a 2D line, IEEE (5) or IBM (1) floats."""
    data = np.moveaxis(v, 0, -1) if v.ndim == 3 else v.T
    with contextlib.redirect_stdout(io.StringIO()):   # segyio 1.8 prints line numbers
        segyio.tools.from_array(path, np.ascontiguousarray(data), format=format)


def linear_axis(coords, n, origin, spacing):
    u = np.clip((coords - origin) / spacing, 0, n - 1)
    i = np.minimum(np.floor(u).astype(int), max(n - 2, 0))
    w = u - i if n > 1 else np.zeros_like(u)
    return i, w


def trilinear(v, origin, spacing):
    """Reference sampling of v ([nz][ny][nx] on its own grid) at the
    simulation grid's points, in float64."""
    out = v.astype(np.float64)
    for axis, n_grid in ((2, GRID[0]), (1, GRID[1]), (0, GRID[2])):
        a = {2: 0, 1: 1, 0: 2}[axis]
        n = v.shape[axis]
        i, w = linear_axis(np.arange(n_grid) * H, n, origin[a], spacing[a])
        lo = np.take(out, i, axis=axis)
        hi = np.take(out, np.minimum(i + 1, n - 1), axis=axis)
        shape = [1, 1, 1]
        shape[axis] = n_grid
        w = w.reshape(shape)
        out = (1 - w) * lo + w * hi
    return out


def test_round_trip_hdf5_segy_raw_on_1_and_3_ranks(tmp):
    """A model on the simulation grid itself comes back identical from each
    format and on any rank count."""
    nx, ny, nz = GRID
    v = smooth_model((nz, ny, nx))
    write_hdf5(os.path.join(tmp, "vp.h5"), v)
    # Plain floats in one run are read directly, after a user block too;
    # chunked, compressed or other types through HDF5.
    with h5py.File(os.path.join(tmp, "vp-userblock.h5"), "w", userblock_size=4096) as f:
        f.create_dataset("vp", data=v.astype(">f4"))
    with h5py.File(os.path.join(tmp, "vp-chunked.h5"), "w") as f:
        f.create_dataset("vp", data=v.astype("<f8"), chunks=(4, 8, 8), compression="gzip")
    write_segy(os.path.join(tmp, "vp.sgy"), v)
    write_segy(os.path.join(tmp, "vp-ibm.sgy"), v, format=1)
    # IBM floats round the values: the reference is what segyio reads back.
    v_ibm = np.moveaxis(segyio.tools.cube(os.path.join(tmp, "vp-ibm.sgy")), -1, 0).astype("<f4")
    v.astype("<f4").tofile(os.path.join(tmp, "vp.bin"))
    v.astype(">f4").tofile(os.path.join(tmp, "vp-big.bin"))
    models = {
        "hdf5": {"type": "hdf5", "path": "vp.h5"},
        "hdf5userblock": {"type": "hdf5", "path": "vp-userblock.h5"},
        "hdf5chunked": {"type": "hdf5", "path": "vp-chunked.h5"},
        "segy": {"type": "segy", "path": "vp.sgy", "spacing": [H, H, H]},
        "segyibm": {"type": "segy", "path": "vp-ibm.sgy", "spacing": [H, H, H]},
        "raw": {"type": "raw", "path": "vp.bin", "dims": [nx, ny, nz]},
        "rawbig": {"type": "raw", "path": "vp-big.bin", "dims": [nx, ny, nz], "endian": "big"},
    }
    for name, model in models.items():
        expected = v_ibm if name == "segyibm" else v
        for ranks in (1, 3):
            got = run_model(tmp, model, f"{name}{ranks}", ranks)
            check(got.shape == v.shape, f"{name} on {ranks} ranks: shape {got.shape}")
            check(np.array_equal(got, expected), f"{name} on {ranks} ranks: values differ from the file "
                                                 f"(largest {np.abs(got - expected).max()})")
    ibm_rounding = np.abs(v_ibm - v).max() / np.abs(v).max()
    return f"8 files x 2 rank counts identical (IBM floats round by {ibm_rounding:.1e})"


def test_resampling_linear_between_samples(tmp):
    """A coarser model grid, shifted by a fraction of a sample, is sampled
    trilinearly; nearest takes the closest sample."""
    origin, spacing = [-7.0, -3.0, -12.5], [17.0, 13.0, 15.0]
    shape = (18, 18, 16)   # nz, ny, nx: covers the grid
    v = smooth_model(shape, seed=1)
    write_hdf5(os.path.join(tmp, "coarse.h5"), v, origin=origin, spacing=spacing)
    worst = 0.0
    for ranks in (1, 3):
        got = run_model(tmp, {"type": "hdf5", "path": "coarse.h5"}, f"lin{ranks}", ranks)
        want = trilinear(v, origin, spacing)
        err = np.abs(got - want).max() / np.abs(want).max()
        check(err < 2e-7, f"{ranks} ranks: trilinear sampling off by {err:.2e} (relative)")
        worst = max(worst, err)
    near = run_model(tmp, {"type": "hdf5", "path": "coarse.h5", "interpolation": "nearest"},
                     "near", 3)
    idx = [np.clip(np.floor((np.arange(n) * H - o) / s + 0.5).astype(int), 0, m - 1)
           for n, o, s, m in zip(GRID, origin, spacing, (16, 18, 18))]
    want = v[np.ix_(idx[2], idx[1], idx[0])]
    check(np.array_equal(near, want), "nearest sampling picked other samples")
    # The job's keys override the file's attributes.
    over = run_model(tmp, {"type": "hdf5", "path": "coarse.h5", "origin": [0, 0, 0],
                           "spacing": [H, H, H], "extend": True}, "over", 1)
    edge = [np.minimum(np.arange(n), m - 1) for n, m in zip(GRID, (16, 18, 18))]
    check(np.array_equal(over, v[np.ix_(edge[2], edge[1], edge[0])]),
          "model.origin/spacing did not override the file's attributes, or extend did not "
          "repeat the edge values")
    return f"largest relative difference from float64 trilinear {worst:.1e}"


def test_2d_sections_extruded_along_y(tmp):
    """[nz][nx] HDF5 datasets and 2D SEG-Y lines give the same section at
    every y."""
    nx, ny, nz = GRID
    section = smooth_model((nz, 1, nx), seed=2)[:, 0, :]
    write_hdf5(os.path.join(tmp, "s.h5"), section)
    write_segy(os.path.join(tmp, "s.sgy"), section)
    want = np.repeat(section[:, None, :], ny, axis=1)
    for name, model in (("h5", {"type": "hdf5", "path": "s.h5"}),
                        ("sgy", {"type": "segy", "path": "s.sgy", "spacing": [H, H, H]})):
        got = run_model(tmp, model, "sec-" + name, 2)
        check(np.array_equal(got, want), f"{name}: the section is not repeated along y")


def bad_model_error(tmp, model, name, ranks=2):
    rc, out, err = run_job(tmp, model_job(model, name), name=name, ranks=ranks, expect_ok=False)
    check(rc != 0, f"{name}: seisfd accepted the bad model")
    check("Traceback" not in err and "MPI_ABORT" not in err, f"{name}: not a clean error:\n{err}")
    check(not os.path.exists(os.path.join(tmp, name + "-gather.h5")),
          f"{name}: a gather was written")
    return err


def expect(err, *parts):
    for part in parts:
        check(part in err, f"no '{part}' in the error:\n{err}")


def test_bad_model_files(tmp):
    nx, ny, nz = GRID
    v = smooth_model((nz, ny, nx))
    write_hdf5(os.path.join(tmp, "other.h5"), v, name="velocity")
    err = bad_model_error(tmp, {"type": "hdf5", "path": "other.h5"}, "missing")
    expect(err, "missing.yaml:", "model.path: 'other.h5' has no dataset 'vp' (it holds: velocity)")

    write_hdf5(os.path.join(tmp, "line.h5"), v[:, 0, 0])
    err = bad_model_error(tmp, {"type": "hdf5", "path": "line.h5"}, "line")
    expect(err, "'line.h5:/vp' has 1 dimension; a model is [nz][ny][nx] or a 2D section [nz][nx]")

    small = v[:, :, :nx - 3]
    write_hdf5(os.path.join(tmp, "small.h5"), small)
    err = bad_model_error(tmp, {"type": "hdf5", "path": "small.h5"}, "small")
    expect(err, "covers x = 0 .. 200 m, but the grid spans x = 0 .. 230 m", "model.extend: true")
    small.astype("<f4").tofile(os.path.join(tmp, "small.bin"))
    err = bad_model_error(tmp, {"type": "raw", "path": "small.bin", "dims": [nx, ny, nz]},
                          "short")
    expect(err, f"holds {small.size * 4} bytes, but dims {nx} x {ny} x {nz} of float32 need "
                f"{v.size * 4}")

    nan = v.copy()
    nan[13, 4, 7] = np.nan
    write_hdf5(os.path.join(tmp, "nan.h5"), nan)
    err = bad_model_error(tmp, {"type": "hdf5", "path": "nan.h5"}, "nan", ranks=3)
    expect(err, "model file 'nan.h5:/vp': vp at index (i=7, j=4, k=13) is nan")

    negative = v.copy()
    negative[20, 0, 3] = -1500.0
    write_segy(os.path.join(tmp, "neg.sgy"), negative)
    err = bad_model_error(tmp, {"type": "segy", "path": "neg.sgy", "spacing": [H, H, H]}, "neg")
    expect(err, "model file 'neg.sgy': vp at index (i=3, j=0, k=20) is -1500; velocities must be "
                "finite and within 100..15000 m/s (model.vp_range)")
    write_segy(os.path.join(tmp, "ok.sgy"), v)
    err = bad_model_error(tmp, {"type": "segy", "path": "ok.sgy", "spacing": [H, H, H],
                                "vp_range": [1600, 3400]}, "range")
    expect(err, "velocities must be finite and within 1600..3400 m/s (model.vp_range)")

    write_segy(os.path.join(tmp, "cut.sgy"), v)
    size = os.path.getsize(os.path.join(tmp, "cut.sgy"))
    os.truncate(os.path.join(tmp, "cut.sgy"), size - 100)
    err = bad_model_error(tmp, {"type": "segy", "path": "cut.sgy", "spacing": [H, H, H]}, "cut")
    expect(err, "model.path: 'cut.sgy': the file is truncated or not SEG-Y")
    err = bad_model_error(tmp, {"type": "segy", "path": "absent.sgy", "spacing": [H, H, H]},
                          "absent")
    expect(err, "cannot open SEG-Y file 'absent.sgy': No such file")
    return "missing dataset, one dimension, grid not covered, wrong size, NaN, negative, " \
           "truncated, absent"


def test_unreadable_model_files_say_why(tmp):
    """An HDF5 model that cannot be read says why, as the SEG-Y and raw
    readers do (once all four said "cannot open HDF5 file: no detail"):
    missing, a directory, empty, not HDF5, truncated (superblock versions
    0 and 3), damaged (found by fuzzing: MPI-IO printed a line of its own;
    the headers are now read by one rank without MPI-IO), a dataset without
    planes, planes too large to hold. A directory is refused by the SEG-Y
    and raw readers too."""
    nx, ny, nz = GRID
    v = smooth_model((nz, ny, nx))
    write_hdf5(os.path.join(tmp, "v0.h5"), v)
    with h5py.File(os.path.join(tmp, "v3.h5"), "w", libver="latest") as f:
        f["vp"] = v
    for name in ("v0", "v3"):
        data = open(os.path.join(tmp, name + ".h5"), "rb").read()
        with open(os.path.join(tmp, name + "-cut.h5"), "wb") as f:
            f.write(data[:len(data) // 2])
    open(os.path.join(tmp, "empty.h5"), "wb").close()
    with open(os.path.join(tmp, "text.h5"), "w") as f:
        f.write("not a model\n" * 10)
    os.mkdir(os.path.join(tmp, "dir.h5"))
    damaged = bytearray(open(os.path.join(tmp, "v0.h5"), "rb").read())
    damaged[33] = 0x12   # the free-space address: MPI-IO once printed its own error
    with open(os.path.join(tmp, "damaged.h5"), "wb") as f:
        f.write(damaged)
    with h5py.File(os.path.join(tmp, "flat.h5"), "w") as f:
        f["vp"] = np.zeros((0, ny, nx), np.float32)
    with h5py.File(os.path.join(tmp, "wide.h5"), "w") as f:   # sparse: 1400 bytes on disk
        f.create_dataset("vp", shape=(nz, 1000000, 1000000), dtype="f4", chunks=(1, 100, 100))
    size = len(data)
    cases = {
        "absent": "model.path: cannot open HDF5 file 'absent.h5': No such file or directory",
        "dir": "model.path: cannot open HDF5 file 'dir.h5': a directory, not a file",
        "empty": "model.path: 'empty.h5' is empty (0 bytes), not an HDF5 file",
        "text": "model.path: 'text.h5' is not an HDF5 file (no HDF5 signature in its 120 bytes)",
        "v0-cut": "model.path: 'v0-cut.h5' is truncated: ",
        "v3-cut": f"model.path: 'v3-cut.h5' is truncated: {size // 2} bytes where the file says "
                  f"it needs {size}",
        "damaged": "model.path: cannot open HDF5 file 'damaged.h5': ",
        "flat": "model.path: model file 'flat.h5:/vp' holds 24 x 20 x 0 samples; a model has 1 "
                ".. 1000000 along each axis (z here)",
        # The planes are the first failing rank's, as the slabs were cut.
        "wide": ("model.path: model file 'wide.h5:/vp': the ", " planes of 1000000 x 1000000 "
                 "samples this rank samples from need ", " GiB, more than it can allocate"),
    }
    for name, message in cases.items():
        model = {"type": "hdf5", "path": name + ".h5", "extend": True}
        err = bad_model_error(tmp, model, "h5" + name.replace("-", ""), ranks=3)
        expect(err, *(message if isinstance(message, tuple) else (message,)))
        check("no detail" not in err and "out of memory" not in err and "mca_" not in err,
              f"{name}:\n{err}")
    for kind, extra, message in (
            ("segy", {"spacing": [H, H, H]}, "cannot open SEG-Y file 'dir.h5': a directory"),
            ("raw", {"dims": [nx, ny, nz]}, "cannot read 'dir.h5': a directory, not a file")):
        err = bad_model_error(tmp, {"type": kind, "path": "dir.h5", **extra}, "dir" + kind)
        expect(err, "model.path: " + message)
    return f"{len(cases)} broken HDF5 files and a directory as each kind, each with its reason"
