"""The plotting tool io/seisfd_plot.py: pictures of a real gather and of a
synthetic snapshot file in the documented layout, and clear errors."""
import os
import struct
import subprocess
import sys

import h5py
import numpy as np

from testlib import ROOT, base_job, check, run_job, time_limit

PLOT = os.path.join(ROOT, "io", "seisfd_plot.py")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def plot(*args):
    p = subprocess.run([sys.executable, PLOT, *args], capture_output=True, text=True,
                       timeout=time_limit(120))
    return p.returncode, p.stdout, p.stderr


def check_png(path, width, height):
    """A PNG of the expected size whose pixels hold both polarities of the
    colour map (red and blue), not just axes on a blank page."""
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == PNG_SIGNATURE, f"{path} is not a PNG")
    w, h = struct.unpack(">II", head[16:24])
    check((w, h) == (width, height), f"{path} is {w} x {h} pixels, expected {width} x {height}")
    size = os.path.getsize(path)
    check(10_000 < size < 2_000_000, f"{path}: implausible size {size} bytes")
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.image
    rgb = matplotlib.image.imread(path)[..., :3]
    check(rgb.var() > 1e-3, f"{path}: the picture is blank (pixel variance {rgb.var():.2g})")
    r, g, b = rgb[..., 0], rgb[..., 1], rgb[..., 2]
    red = np.count_nonzero((r > 0.6) & (b < 0.4) & (g < 0.4))
    blue = np.count_nonzero((b > 0.6) & (r < 0.4) & (g < 0.4))
    check(red > 200 and blue > 200, f"{path}: {red} red and {blue} blue pixels; amplitudes "
                                    "of both signs should show")
    return f"{w} x {h}, {size // 1024} KiB"


def test_gather_picture(tmp):
    job = base_job(n=(40, 40, 40), h=10.0, cpml=8, duration=0.25, dt=0.001,
                   source=[201.0, 198.0, 103.0], frequency=12.0)
    job["receivers"] = {"line": {"start": [90, 198, 60], "end": [310, 198, 60], "count": 24}}
    run_job(tmp, job)
    out = os.path.join(tmp, "gather.png")
    rc, stdout, err = plot("gather", os.path.join(tmp, "gather.h5"), out, "--title", "test shot")
    check(rc == 0 and stdout.splitlines()[-1] == out, f"exit {rc}: {err}")
    check(stdout.startswith("axis: offset from the source along the line (m), -111 .. 109\n"),
          f"a receiver line is not drawn against offset: {stdout}")
    return check_png(out, 800, 600)


def test_gather_axes(tmp):
    """Offset for a line (signed, across the source), the distance along
    it, a coordinate, the index; along by default down a well; index by
    default for scattered receivers, and a clear error for offset there."""
    job = base_job(n=(30, 30, 40), h=10.0, cpml=6, duration=0.05, dt=0.001,
                   source=[151.0, 148.0, 103.0], frequency=12.0)
    layouts = {
        "line": {"line": {"start": [250, 148, 60], "end": [70, 148, 60], "count": 10}},
        "well": {"line": {"start": [200, 150, 40], "end": [200, 150, 300], "count": 14}},
        "scatter": {"points": [[80, 90, 50], [200, 120, 70], [120, 210, 90]]},
    }
    expected = [("line", [], "offset from the source along the line (m), -99 .. 81"),
                ("line", ["--axis", "along"], "distance along the receiver line (m), 0 .. 180"),
                ("line", ["--axis", "x"], "receiver x (m), 250 .. 70"),
                ("line", ["--axis", "index"], "receiver index, 0 .. 9"),
                ("well", [], "distance along the receiver line (m), 0 .. 260"),
                ("scatter", [], "receiver index, 0 .. 2")]
    for name, layout in layouts.items():
        job["receivers"] = layout
        job["output"] = {"gather": f"{name}.h5"}
        run_job(tmp, job, name=name)
    for name, options, axis in expected:
        rc, stdout, err = plot("gather", os.path.join(tmp, f"{name}.h5"),
                               os.path.join(tmp, f"{name}.png"), *options)
        check(rc == 0 and stdout.splitlines()[0] == f"axis: {axis}",
              f"{name} {options}: exit {rc}, {stdout!r}, {err}")
    for name, axis, message in (("scatter", "offset", "do not lie on one line"),
                                ("well", "offset", "the receiver line is vertical; use along"),
                                ("line", "z", "does not grow")):
        rc, _, err = plot("gather", os.path.join(tmp, f"{name}.h5"), os.path.join(tmp, "x.png"),
                          "--axis", axis)
        check(rc == 1 and message in err and "Traceback" not in err,
              f"{name} --axis {axis}: exit {rc}, {err}")


def write_snapshots(path, steps=(0, 10, 20), dims=(30, 20, 25), field="p"):
    """A spherical wave around (100, 60, 140) m, in the documented layout."""
    nx, ny, nz = dims
    origin, spacing = np.array([50.0, 20.0, 0.0]), np.array([4.0, 5.0, 6.0])
    x = origin[0] + spacing[0] * np.arange(nx)
    y = origin[1] + spacing[1] * np.arange(ny)
    z = origin[2] + spacing[2] * np.arange(nz)
    r = np.sqrt((x[None, None, :] - 100) ** 2 + (y[None, :, None] - 60) ** 2 +
                (z[:, None, None] - 140) ** 2)
    with h5py.File(path, "w") as f:
        g = f.create_group("snapshots")
        g.attrs["origin"], g.attrs["spacing"] = origin, spacing
        g.attrs["decimation"] = np.array([2, 2, 3], dtype=np.int64)
        g.attrs["dims"] = np.array(dims, dtype=np.int64)
        g.attrs["steps"] = np.array(steps, dtype=np.int64)
        g.attrs["times"] = 0.001 * np.array(steps, dtype=np.float64)
        for step in steps:
            d = g.create_dataset(f"{field}/{step:08d}",
                                 data=np.sin((r - 2.0 * step) / 8.0).astype(np.float32))
            d.attrs["step"], d.attrs["time"] = np.int64(step), 0.001 * step


def test_snapshot_picture(tmp):
    path = os.path.join(tmp, "snapshots.h5")
    write_snapshots(path)
    out = os.path.join(tmp, "snap.png")
    rc, stdout, err = plot("snapshot", path, out, "--step", "10", "--point", "100", "60", "140")
    check(rc == 0, f"exit {rc}: {err}")
    summary = check_png(out, 1500, 500)
    rc, stdout, err = plot("snapshot", path, os.path.join(tmp, "t.png"), "--time", "0.019")
    check(rc == 0 and os.path.exists(os.path.join(tmp, "t.png")), f"--time: exit {rc}: {err}")
    return summary


def test_plot_errors(tmp):
    path = os.path.join(tmp, "snapshots.h5")
    write_snapshots(path)
    out = os.path.join(tmp, "x.png")
    cases = [
        (("snapshot", path, out, "--step", "7"),
         "step 7 is not in '" + path + "' (stored steps: 0, 10, 20)"),
        (("snapshot", path, out, "--field", "vx"), "has no snapshot /snapshots/vx/00000020"),
        (("snapshot", path, out, "--point", "0", "0", "0"), "point (0, 0, 0) m lies outside"),
        (("gather", os.path.join(tmp, "absent.h5"), out), "no such file: '"),
        (("gather", path, out), "is not a seisfd gather"),
        (("snapshot", PLOT, out), "is not a readable HDF5 file"),
    ]
    for args, message in cases:
        rc, stdout, err = plot(*args)
        check(rc == 1 and "seisfd_plot: error: " in err and message in err,
              f"{args[0]} {' '.join(args[3:])}: exit {rc}, expected '{message}' in:\n{err}")
        check("Traceback" not in err, f"a traceback instead of a message:\n{err}")
        check(not os.path.exists(out), f"a picture was written for {args}")
