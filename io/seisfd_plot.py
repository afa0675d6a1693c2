#!/usr/bin/env python3
"""Pictures of seisfd outputs (PNG).

  seisfd_plot.py gather GATHER.h5 OUT.png [--component C] [--clip P] [--wiggle auto|on|off]
                 [--axis auto|offset|along|x|y|z|index] [--title T]
  seisfd_plot.py snapshot SNAPSHOTS.h5 OUT.png [--step N | --time T] [--point X Y Z]
                 [--field F] [--clip P] [--title T]

Amplitudes are shown on a symmetric colour scale clipped at the P-th
percentile of |amplitude| (default 99), so a few large values near the
source do not wash out the rest; the colour bar names the quantity and
unit the file states. A gather's traces stand at their offset from the
source (the file's /receiver_offsets, as in its SEG-Y copy) when the
receivers lie on a line with a horizontal extent, at their distance along
a vertical line (a well), else at their index."""
import argparse
import os
import sys

import numpy as np

import matplotlib
matplotlib.use("Agg")   # files only: no display is needed or wanted
import matplotlib.pyplot as plt  # noqa: E402  (must follow the backend choice)

try:
    import h5py
except ImportError:  # reported as a clear message by main()
    h5py = None

WIGGLE_AUTO_MAX_TRACES = 48
WIGGLE_EXCURSION = 0.8     # trace spacings reached by an amplitude at the clip level
DPI = 100
COLOUR_MAP = "seismic"


class PlotError(Exception):
    """A problem with the input, reported to the user as one line."""


def open_hdf5(path):
    if not os.path.isfile(path):
        raise PlotError(f"no such file: '{path}'")
    if h5py is None:
        raise PlotError("python3-h5py is not installed (apt-get install python3-h5py)")
    try:
        return h5py.File(path, "r")
    except OSError as e:
        raise PlotError(f"'{path}' is not a readable HDF5 file ({e})")


def clip_level(values, percentile):
    """The amplitude at the percentile of |values|; 1 for an all-zero input
    so that the colour scale stays defined."""
    level = float(np.percentile(np.abs(values), percentile)) if values.size else 0.0
    return level if level > 0 and np.isfinite(level) else 1.0


def gather_components(f):
    """The component names of a gather: its `components` attribute (elastic,
    traces [component][receiver][sample]) or its single `component`."""
    if "components" in f.attrs:
        return str(f.attrs["components"]).split(",")
    return [str(f.attrs.get("component", "p"))]


def text_attr(attrs, key, index=None):
    """A text attribute (entry `index` of an array of them) as str, or
    None where the file has none."""
    value = attrs.get(key)
    if value is not None and index is not None:
        value = value[index] if np.ndim(value) == 1 and index < len(value) else None
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    return value if isinstance(value, str) and value else None


def with_unit(what, unit):
    """An axis label: "time (s)", or "time" where the file gives no unit."""
    return f"{what} ({unit})" if unit else what


def measure(value, unit):
    """A value in a title: "0.002 s", or "0.002" where the file gives no unit."""
    return f"{value:g} {unit}" if unit else f"{value:g}"


def amplitude_label(quantity, units, clip):
    """The colour bar's label: the quantity and unit the file states, or
    a neutral word where it states none."""
    what = with_unit(quantity or "amplitude", units or "no unit in the file")
    return f"{what}\nclipped at the {clip:g}th percentile"


class Gather:
    """One component of a gather as the plots need it: traces
    [receiver][sample], sampling, names and units, and the receivers'
    positions and offsets (None where the file has none)."""

    def __init__(self, f, path, component):
        traces = f.get("traces")
        self.layered = "components" in f.attrs
        if not isinstance(traces, h5py.Dataset) or traces.ndim != (3 if self.layered else 2) \
                or "dt" not in f.attrs:
            raise PlotError(f"'{path}' is not a seisfd gather (no /traces with a dt "
                            "attribute); for snapshot files use: seisfd_plot.py snapshot")
        names = gather_components(f)
        self.component = component or names[0]
        if self.component not in names:
            raise PlotError(f"'{path}' has no component {self.component} (components: "
                            f"{', '.join(names)})")
        index = names.index(self.component)
        self.traces = traces[index] if self.layered else traces[:]
        self.dt, self.t0 = float(f.attrs["dt"]), float(f.attrs.get("t0", 0.0))
        self.quantity = text_attr(traces.attrs, "quantity", index)
        self.units = text_attr(traces.attrs, "units", index)
        self.time_units = text_attr(f.attrs, "time_units")
        self.coordinate_units = text_attr(f.attrs, "coordinate_units")
        self.receivers, self.offsets = (f[name][:] if name in f else None
                                        for name in ("receiver_positions", "receiver_offsets"))


def read_gather(path, component=None):
    """One component of the gather at path (default: its first)."""
    with open_hdf5(path) as f:
        return Gather(f, path, component)


def on_a_line(positions):
    """The unit direction of the line through the receivers, or None when
    there are fewer than two or they do not lie on one line."""
    if positions is None or len(positions) < 2:
        return None
    span = positions[-1] - positions[0]
    length = float(np.linalg.norm(span))
    if length == 0.0:
        return None
    u = span / length
    apart = positions - positions[0]
    off_line = np.linalg.norm(apart - np.outer(apart @ u, u), axis=1)
    return u if off_line.max() <= 1e-6 * length else None


def monotonic(values):
    steps = np.diff(values)
    return bool(np.all(steps > 0) or np.all(steps < 0))


def trace_axis(choice, gather):
    """The traces' horizontal positions and the axis label. auto: offset
    for a line with a horizontal extent whose offsets grow or shrink from
    trace to trace, along for any other line (a well), else index. The
    offsets are the file's own, so the picture and the SEG-Y copy agree."""
    receivers, offsets, nrec = gather.receivers, gather.offsets, len(gather.traces)
    u = on_a_line(receivers)
    horizontal = u is not None and float(np.hypot(u[0], u[1])) > 1e-9
    if choice == "auto":
        choice = ("offset" if horizontal and offsets is not None and monotonic(offsets)
                  else "along" if u is not None else "index")
    if choice == "index":
        return np.arange(nrec, dtype=float), "receiver index"
    unit = gather.coordinate_units
    if choice == "offset":
        if offsets is None:
            raise PlotError("--axis offset: the gather holds no /receiver_offsets (written by "
                            "an older seisfd); use along, x, y, z or index")
        if u is not None and not horizontal:
            raise PlotError("--axis offset: the receiver line is vertical; use along")
        values, label = offsets, with_unit("offset from the source", unit)
    elif receivers is None:
        raise PlotError(f"--axis {choice}: the gather holds no receiver positions")
    elif choice in ("x", "y", "z"):
        values = receivers[:, "xyz".index(choice)]
        label = with_unit(f"receiver {choice}", unit)
    elif u is None:
        raise PlotError(f"--axis {choice}: the receivers do not lie on one line; use index, "
                        "x, y or z")
    else:
        values = (receivers - receivers[0]) @ u
        label = with_unit("distance along the receiver line", unit)
    if nrec > 1 and not monotonic(values):
        instead = "along or index" if choice == "offset" and u is not None else "index"
        raise PlotError(f"--axis {choice}: the receivers' {choice} does not grow (or shrink) "
                        f"from trace to trace; use {instead}")
    return values, label


def cell_edges(values):
    """Edges of cells centred on the values (one more than values)."""
    if len(values) == 1:
        return np.array([values[0] - 0.5, values[0] + 0.5])
    mid = (values[1:] + values[:-1]) / 2
    return np.concatenate([[2 * values[0] - mid[0]], mid, [2 * values[-1] - mid[-1]]])


def draw_wiggles(ax, traces, t, clip, positions):
    spacing = float(np.min(np.abs(np.diff(positions)))) if len(positions) > 1 else 1.0
    for at, trace in zip(positions, traces):
        x = at + spacing * WIGGLE_EXCURSION * np.clip(trace / clip, -1.0, 1.0)
        ax.plot(x, t, color="black", linewidth=0.5)
        ax.fill_betweenx(t, at, x, where=x > at, color="black", linewidth=0, interpolate=True)


def read_drawable(path, component):
    g = read_gather(path, component)
    nrec, nsamples = g.traces.shape
    if nrec == 0 or nsamples == 0:
        raise PlotError(f"'{path}' holds no samples ({nrec} x {nsamples})")
    return g


def draw_gather(ax, g, path, args, clip, positions, xlabel):
    """One panel: the traces of g at clip, titled after path."""
    nrec, nsamples = g.traces.shape
    t = g.t0 + g.dt * np.arange(nsamples)
    edges = cell_edges(positions)
    image = ax.pcolormesh(edges, np.concatenate([t - g.dt / 2, [t[-1] + g.dt / 2]]), g.traces.T,
                          cmap=COLOUR_MAP, vmin=-clip, vmax=clip, shading="flat")
    wiggle = args.wiggle == "on" or (args.wiggle == "auto" and nrec <= WIGGLE_AUTO_MAX_TRACES)
    if wiggle:
        draw_wiggles(ax, g.traces, t, clip, positions)
    ax.set_xlim(edges[0], edges[-1])
    ax.set_ylim(t[-1], t[0])
    ax.set_xlabel(xlabel)
    label = f"{g.component}, " if g.layered else ""
    ax.set_title(f"{os.path.basename(path)}: {label}{nrec} traces, "
                 f"{nsamples} samples at {measure(g.dt, g.time_units)}")
    return image


def gather_figure(args):
    """The gather's picture, not yet saved, and where its traces stand:
    (figure, positions, axis label). The colour bar is its last axes. With
    args.beside a second gather is drawn to its right at the first one's
    colour scale, so that what one has and the other lacks shows (a lossy
    run beside the lossless one)."""
    g = read_drawable(args.input, args.component)
    positions, xlabel = trace_axis(args.axis, g)
    clip = clip_level(g.traces, args.clip)
    panels = [(g, args.input, positions, xlabel)]
    if args.beside:
        other = read_drawable(args.beside, args.component)
        if (other.quantity, other.units) != (g.quantity, g.units):
            raise PlotError(f"'{args.beside}' holds {other.quantity} ({other.units}), "
                            f"'{args.input}' {g.quantity} ({g.units}): not one scale")
        panels.append((other, args.beside, *trace_axis(args.axis, other)))
    fig, axes = plt.subplots(1, len(panels), figsize=(8 * len(panels), 6), sharey=True,
                             layout="constrained", squeeze=False)
    for ax, (gather, path, where, label) in zip(axes[0], panels):
        image = draw_gather(ax, gather, path, args, clip, where, label)
    axes[0][0].set_ylabel(with_unit("time", g.time_units))
    if args.title and args.beside:
        fig.suptitle(args.title)
    elif args.title:
        axes[0][0].set_title(args.title)
    fig.colorbar(image, ax=list(axes[0]), label=amplitude_label(g.quantity, g.units, args.clip))
    return fig, positions, xlabel


def plot_gather(args):
    fig, positions, xlabel = gather_figure(args)
    print(f"axis: {xlabel}, {positions[0]:g} .. {positions[-1]:g}")
    save(fig, args.output)


def snapshot_layout(f, path):
    group = f.get("snapshots")
    needed = ("origin", "spacing", "dims", "steps", "times")
    if not isinstance(group, h5py.Group) or any(k not in group.attrs for k in needed):
        raise PlotError(f"'{path}' is not a seisfd snapshot file (no /snapshots group with "
                        f"attributes {', '.join(needed)}); for gathers use: seisfd_plot.py gather")
    a = group.attrs
    return (group, np.asarray(a["origin"], float), np.asarray(a["spacing"], float),
            np.asarray(a["dims"], int), np.asarray(a["steps"], int), np.asarray(a["times"], float))


def choose_step(args, steps, times, path):
    if len(steps) == 0:
        raise PlotError(f"'{path}' holds no snapshots")
    if args.step is not None:
        if args.step not in steps:
            shown = ", ".join(str(s) for s in steps[:20]) + (", ..." if len(steps) > 20 else "")
            raise PlotError(f"step {args.step} is not in '{path}' (stored steps: {shown})")
        return args.step
    if args.time is not None:
        return int(steps[int(np.argmin(np.abs(times - args.time)))])
    return int(steps[-1])


def slice_indices(point, origin, spacing, dims):
    """Nearest stored sample to the point (x, y, z), as (i, j, k)."""
    index = np.rint((np.asarray(point, float) - origin) / spacing).astype(int)
    if np.any(index < 0) or np.any(index >= dims):
        far = origin + spacing * (dims - 1)
        raise PlotError("point ({:g}, {:g}, {:g}) m lies outside the snapshot volume "
                        "x {:g}..{:g}, y {:g}..{:g}, z {:g}..{:g} m".format(
                            *point, origin[0], far[0], origin[1], far[1], origin[2], far[2]))
    return index


def read_slices(group, field, step, index, dims, path):
    """The three slices through index, the snapshot's time, and the
    field's quantity and unit (None where the file gives none)."""
    name = f"{field}/{step:08d}"
    if name not in group:
        fields = ", ".join(sorted(k for k in group.keys() if isinstance(group[k], h5py.Group)))
        raise PlotError(f"'{path}' has no snapshot /snapshots/{name} (fields: {fields or 'none'})")
    data = group[name]
    if tuple(data.shape) != tuple(dims[::-1]):
        raise PlotError(f"/snapshots/{name} in '{path}' has shape {data.shape}, but the dims "
                        f"attribute says [nz][ny][nx] = {tuple(dims[::-1])}")
    i, j, k = index
    time = float(data.attrs["time"]) if "time" in data.attrs else None
    meaning = [text_attr(group[field].attrs, key) for key in ("quantity", "units")]
    return data[k, :, :], data[:, j, :], data[:, :, i], time, meaning


def snapshot_figure(args):
    """The snapshot's picture, not yet saved; the colour bar is its last axes."""
    with open_hdf5(args.input) as f:
        group, origin, spacing, dims, steps, times = snapshot_layout(f, args.input)
        step = choose_step(args, steps, times, args.input)
        point = args.point if args.point else origin + spacing * (dims - 1) / 2
        index = slice_indices(point, origin, spacing, dims)
        xy, xz, yz, time, (quantity, units) = read_slices(group, args.field, step, index, dims,
                                                          args.input)
        metres, seconds = (text_attr(group.attrs, key)
                           for key in ("coordinate_units", "time_units"))
    lo = origin - spacing / 2
    hi = origin + spacing * (dims - 0.5)
    clip = clip_level(np.concatenate([xy.ravel(), xz.ravel(), yz.ravel()]), args.clip)
    at = origin + spacing * index
    x, y = (with_unit(a, metres) for a in "xy")
    depth = with_unit("z", f"{metres}, depth" if metres else "depth")
    fig, axes = plt.subplots(1, 3, figsize=(15, 5), layout="constrained")
    panels = (
        (xy, (lo[0], hi[0], lo[1], hi[1]), "lower", x, y, f"z = {measure(at[2], metres)}",
         (at[0], at[1])),
        (xz, (lo[0], hi[0], hi[2], lo[2]), "upper", x, depth, f"y = {measure(at[1], metres)}",
         (at[0], at[2])),
        (yz, (lo[1], hi[1], hi[2], lo[2]), "upper", y, depth, f"x = {measure(at[0], metres)}",
         (at[1], at[2])),
    )
    for ax, (values, extent, origin_corner, xlabel, ylabel, where, cross) in zip(axes, panels):
        image = ax.imshow(values, cmap=COLOUR_MAP, vmin=-clip, vmax=clip, extent=extent,
                          origin=origin_corner, interpolation="nearest")
        ax.axvline(cross[0], color="grey", linewidth=0.5, linestyle="--")
        ax.axhline(cross[1], color="grey", linewidth=0.5, linestyle="--")
        ax.set_xlabel(xlabel)
        ax.set_ylabel(ylabel)
        ax.set_title(where)
    when = f"t = {measure(time, seconds)}, " if time is not None else ""
    fig.suptitle(args.title or f"{args.field}: {when}step {step}")
    fig.colorbar(image, ax=axes, shrink=0.8, label=amplitude_label(quantity, units, args.clip))
    return fig


def plot_snapshot(args):
    save(snapshot_figure(args), args.output)


def save(fig, path):
    try:
        fig.savefig(path, dpi=DPI)
    except OSError as e:
        raise PlotError(f"cannot write '{path}': {e.strerror or e}")
    finally:
        plt.close(fig)
    print(path)


def percentile(text):
    value = float(text)
    if not 0 < value <= 100:
        raise argparse.ArgumentTypeError(f"{text} is not a percentile (allowed: 0 < P <= 100)")
    return value


def parse(argv):
    # Named as called: seisfd_plot.py in the source tree, seisfd-plot installed.
    p = argparse.ArgumentParser(prog=os.path.basename(sys.argv[0]),
                                description=__doc__.split("\n")[0])
    sub = p.add_subparsers(dest="kind", required=True)
    g = sub.add_parser("gather", help="traces as variable density (and wiggles)")
    g.add_argument("--component", help="component of an elastic gather (vx, vy, vz or p; "
                                       "default: its first)")
    g.add_argument("--wiggle", choices=("auto", "on", "off"), default="auto",
                   help=f"auto: wiggles when there are at most {WIGGLE_AUTO_MAX_TRACES} traces")
    g.add_argument("--beside", metavar="OTHER",
                   help="a second gather drawn to the right at this one's colour scale "
                        "(the same run without loss, say)")
    g.add_argument("--axis", choices=("auto", "offset", "along", "x", "y", "z", "index"),
                   default="auto", help="where traces stand: the offset from the source the "
                   "gather stores (signed along a receiver line, as in its SEG-Y copy), distance "
                   "along the line, a receiver coordinate, or the receiver index (auto: offset "
                   "for a line, along for a vertical line, else index)")
    s = sub.add_parser("snapshot", help="three orthogonal slices of one wavefield snapshot")
    which = s.add_mutually_exclusive_group()
    which.add_argument("--step", type=int, help="time step of the snapshot (default: the last)")
    which.add_argument("--time", type=float, help="the snapshot nearest this time, s")
    s.add_argument("--point", type=float, nargs=3, metavar=("X", "Y", "Z"),
                   help="where the slices cross, metres (default: the centre)")
    s.add_argument("--field", default="p", help="snapshot field (default: p)")
    for q in (g, s):
        q.add_argument("input", help="HDF5 file written by seisfd")
        q.add_argument("output", help="PNG file to write")
        q.add_argument("--clip", type=percentile, default=99.0,
                       help="percentile of |amplitude| at which colours saturate (default 99)")
        q.add_argument("--title", help="title of the picture")
    return p.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    try:
        (plot_gather if args.kind == "gather" else plot_snapshot)(args)
    except PlotError as e:
        print(f"seisfd_plot: error: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
