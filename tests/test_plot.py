"""The plotting tool io/seisfd_plot.py: pictures of a real gather and of a
synthetic snapshot file in the documented layout, labels with the units
the files state, and clear errors."""
import os
import struct
import subprocess
import sys

import h5py
import numpy as np

from test_elastic import elastic_job
from testlib import ROOT, base_job, check, run_job, time_limit

PLOT = os.path.join(ROOT, "io", "seisfd_plot.py")
sys.path.insert(0, os.path.dirname(PLOT))
import seisfd_plot  # noqa: E402  (found through the path above)
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
    check(stdout.startswith("axis: offset from the source (m), -111 .. 109\n"),
          f"a receiver line is not drawn against offset: {stdout}")
    fig, _, _ = seisfd_plot.gather_figure(plot_args("gather", os.path.join(tmp, "gather.h5"),
                                                    out))
    label = figure_labels(fig)[0]
    check(label.startswith("pressure (per unit source amplitude per metre)\n"),
          f"an acoustic gather's colour bar: {label!r}")
    return check_png(out, 800, 600)


def test_gather_beside_another(tmp):
    """--beside draws a second gather to the right at the first one's
    colour scale: a lossy run beside the lossless one, the lossy panel
    paler (its amplitudes fall below the shared clip); gathers of
    different quantities are refused."""
    panels = []
    for physics, name in (("visco_acoustic", "lossy"), ("acoustic", "lossless")):
        job = base_job(n=(40, 40, 40), h=10.0, cpml=8, duration=0.3, dt=0.001,
                       source=[201.0, 198.0, 103.0], frequency=20.0, gather=f"{name}.h5")
        job["receivers"] = {"line": {"start": [90, 198, 60], "end": [310, 198, 60], "count": 24}}
        job["physics"] = {"type": physics}
        if physics == "visco_acoustic":
            job["model"]["qp"] = 5.0
        run_job(tmp, job, name)
        panels.append(os.path.join(tmp, f"{name}.h5"))
    out = os.path.join(tmp, "beside.png")
    rc, stdout, err = plot("gather", panels[1], out, "--beside", panels[0], "--title", "Q 5")
    check(rc == 0, f"exit {rc}: {err}")
    summary = check_png(out, 1600, 600)
    import matplotlib.image
    rgb = matplotlib.image.imread(out)[..., :3]
    # Inside each panel, clear of the axes' labels and of the colour bar.
    halves = [rgb[:, 100:650], rgb[:, 900:1400]]
    strong = [int(np.count_nonzero((h[..., 0] > 0.6) & (h[..., 2] < 0.4)) +
                  np.count_nonzero((h[..., 2] > 0.6) & (h[..., 0] < 0.4))) for h in halves]
    check(strong[1] < strong[0], f"the lossy panel is not paler: {strong} saturated pixels")
    elastic = elastic_job("explosive", n=(24, 24, 24), h=10.0, cpml=5, duration=0.02, dt=0.001,
                          gather="elastic.h5")
    run_job(tmp, elastic, "elastic")
    rc, _, err = plot("gather", panels[1], out, "--beside", os.path.join(tmp, "elastic.h5"))
    check(rc == 1 and "not one scale" in err, f"exit {rc}: {err}")
    return f"{summary}; saturated pixels {strong[0]} lossless, {strong[1]} lossy"


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
    expected = [("line", [], "offset from the source (m), -99 .. 81"),
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
    with h5py.File(os.path.join(tmp, "well.h5"), "r") as f:
        offsets = f["receiver_offsets"][:]
    check(np.allclose(offsets, np.hypot(49.0, 2.0), rtol=1e-12),
          f"a well's offsets are not the horizontal distance itself: {offsets}")
    for name, axis, message in (("scatter", "offset", "does not grow (or shrink) from trace to "
                                                      "trace; use index"),
                                ("well", "offset", "the receiver line is vertical; use along"),
                                ("line", "z", "does not grow")):
        rc, _, err = plot("gather", os.path.join(tmp, f"{name}.h5"), os.path.join(tmp, "x.png"),
                          "--axis", axis)
        check(rc == 1 and message in err and "Traceback" not in err,
              f"{name} --axis {axis}: exit {rc}, {err}")


def figure_labels(fig):
    """The colour bar's label (the figure's last axes) and the first
    panel's x and y labels; the figure is closed."""
    labels = fig.axes[-1].get_ylabel(), fig.axes[0].get_xlabel(), fig.axes[0].get_ylabel()
    seisfd_plot.plt.close(fig)
    return labels


def plot_args(*argv):
    return seisfd_plot.parse(list(argv))


def test_colour_bars_carry_stored_units(tmp):
    """An elastic run's gather and snapshots state each component's
    quantity and unit; the colour bars and axes carry them, per component.
    Files that state none get neutral labels, with no unit made up."""
    job = elastic_job("explosive", n=(24, 24, 24), h=10.0, cpml=5, duration=0.02, dt=0.001,
                      source=[121.0, 118.0, 117.0], frequency=12.0, components=["vz", "p"])
    job["receivers"] = {"components": ["vz", "p"],
                        "line": {"start": [70, 118, 80], "end": [170, 118, 80], "count": 6}}
    job["output"]["snapshots"] = {"path": "snaps.h5", "every": 10, "fields": ["vz", "p"]}
    run_job(tmp, job)
    gather, snaps = os.path.join(tmp, "gather.h5"), os.path.join(tmp, "snaps.h5")
    per_amplitude = {"vz": "particle velocity vz (m/s per unit source amplitude)",
                     "p": "pressure (Pa per unit source amplitude)"}
    for component, words in per_amplitude.items():
        fig, _, _ = seisfd_plot.gather_figure(plot_args("gather", gather, "x.png", "--component",
                                                        component, "--clip", "95"))
        labels = figure_labels(fig)
        check(labels == (f"{words}\nclipped at the 95th percentile",
                         "offset from the source (m)", "time (s)"),
              f"gather {component}: labels {labels}")
        fig = seisfd_plot.snapshot_figure(plot_args("snapshot", snaps, "x.png", "--field",
                                                    component))
        labels = figure_labels(fig)
        # The slices cross at the centre, grid point 12 of 0 .. 23 along z.
        check(labels == (f"{words}\nclipped at the 99th percentile", "x (m)", "y (m)") and
              fig.axes[1].get_ylabel() == "z (m, depth)" and
              fig.axes[0].get_title() == "z = 120 m",
              f"snapshot {component}: labels {labels}, {fig.axes[1].get_ylabel()}, "
              f"{fig.axes[0].get_title()}")
    bare = os.path.join(tmp, "bare.h5")
    with h5py.File(bare, "w") as f:
        f.create_dataset("traces", data=np.sin(np.arange(60.0)).reshape(3, 20).astype(np.float32))
        f.attrs["dt"] = 0.004
    fig, _, _ = seisfd_plot.gather_figure(plot_args("gather", bare, "x.png"))
    labels = figure_labels(fig)
    check(labels == ("amplitude (no unit in the file)\nclipped at the 99th percentile",
                     "receiver index", "time"), f"a gather without units: labels {labels}")
    write_snapshots(os.path.join(tmp, "bare-snaps.h5"))
    fig = seisfd_plot.snapshot_figure(plot_args("snapshot", os.path.join(tmp, "bare-snaps.h5"),
                                                "x.png"))
    labels = figure_labels(fig)
    check(labels == ("amplitude (no unit in the file)\nclipped at the 99th percentile", "x", "y")
          and fig.axes[1].get_ylabel() == "z (depth)",
          f"snapshots without units: labels {labels}, {fig.axes[1].get_ylabel()}")
    rc, _, err = plot("gather", bare, os.path.join(tmp, "x.png"), "--axis", "offset")
    check(rc == 1 and "holds no /receiver_offsets" in err, f"offset without offsets: {err}")
    return f"vz: {per_amplitude['vz']}; p: {per_amplitude['p']}"


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
