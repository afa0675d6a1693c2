"""The SEG-Y gather: headers and samples against the HDF5 gather of the
same run (read back with segyio), scalars for large coordinates, and the
checks made before a run (record interval, existing outputs)."""
import os
import re
import struct

import h5py
import numpy as np

from testlib import base_job, check, read_gather, run, run_job, write_job

try:
    import segyio
except ImportError:
    segyio = None

TEXT_SIZE, BINARY_SIZE, TRACE_HEADER_SIZE = 3200, 400, 240


def segy_job(origin=(0.0, 0.0, 0.0), **kw):
    """40 x 36 x 40 grid, source and receivers off the grid nodes with
    centimetre coordinates, receivers in both slabs of a 2-rank run."""
    ox, oy, oz = origin
    job = base_job(n=(40, 36, 40), h=10.0, cpml=8, duration=0.15, dt=0.001,
                   source=[ox + 201.37, oy + 178.23, oz + 203.51], frequency=12.0, **kw)
    job["grid"]["origin"] = list(origin)
    job["receivers"] = {
        "sampling": 0.002,
        "line": {"start": [ox + 100.0, oy + 120.0, oz + 30.0],
                 "end": [ox + 300.0, oy + 140.0, oz + 30.0], "count": 11},
        "points": [[ox + 101.25, oy + 150.07, oz + 55.55], [ox + 300.01, oy + 250.99, oz + 320.4],
                   [ox + 250.55, oy + 60.12, oz + 260.09]],
    }
    job["output"]["segy"] = "out/shot.sgy"
    return job


def need_segyio():
    check(segyio is not None, "python3-segyio is not installed (make deps installs it)")


def metres(value, scalar):
    """A scaled SEG-Y integer in metres: negative scalars divide."""
    return value / -scalar if scalar < 0 else value * scalar


def check_binary_header(raw, f, nrec, nsamples, interval_us):
    b = f.bin
    expected = {segyio.BinField.Interval: interval_us, segyio.BinField.Samples: nsamples,
                segyio.BinField.Format: 5, segyio.BinField.Traces: nrec,
                segyio.BinField.MeasurementSystem: 1, segyio.BinField.TraceFlag: 1,
                segyio.BinField.ExtendedHeaders: 0}
    for field, value in expected.items():
        check(b[field] == value, f"binary header byte {int(field)}: {b[field]}, expected {value}")
    # Big-endian: the format code 5 is the second byte of bytes 3225-3226.
    check(raw[3224:3226] == b"\x00\x05", f"format code bytes {raw[3224:3226]!r}")
    check(raw[3216:3218] == struct.pack(">h", interval_us), "interval bytes not big-endian")
    # The revision from the bytes: segyio 1.9.14 decodes it as its major
    # number (1), Debian's segyio as the whole field (0x0100).
    check(raw[3500:3506] == b"\x01\x00\x00\x01\x00\x00", f"revision/flags {raw[3500:3506]!r}")


def check_text_header(raw, f, job_path):
    text = bytes(f.text[0]).decode("ascii")
    check(raw[:TEXT_SIZE].decode("cp037") == text, "the textual header is not EBCDIC")
    cards = [text[i:i + 80] for i in range(0, TEXT_SIZE, 80)]
    check(all(c.startswith(f"C{n + 1:2d} ") for n, c in enumerate(cards)),
          f"cards are not numbered C 1 .. C40:\n{text}")
    for words in ("seisfd", f"job file: {job_path}", "spatial order 8", "z is depth",
                  "scalar -100", "SEG Y REV1", "END TEXTUAL HEADER"):
        check(words in text, f"'{words}' missing from the textual header:\n{text}")
    check_offset_convention(cards)


def check_offset_convention(cards):
    """The textual header says how offsets are signed, and what the samples are."""
    text = "\n".join(cards)
    for card, words in ((15, "offset (bytes 37-40): horizontal source-receiver distance, whole m"),
                        (18, "offset sign (receivers.line): - behind the source, + abreast or "
                             "ahead"),
                        (19, "the sign of horizontal (receiver - source) . line direction (start "
                             "to end)"),
                        (20, "points, grid and vertical lines: the distance itself, never "
                             "negative"),
                        (21, "sample quantity: pressure"),
                        (22, "sample units: per unit source amplitude per metre")):
        check(words in cards[card - 1], f"card C{card} does not say '{words}':\n{text}")


def expected_offsets(receivers, source, positions):
    """The documented rule, worked out here from the job: the horizontal
    source-receiver distance, negative for a receiver of receivers.line
    whose horizontal (receiver - source) points against the line's
    direction (start to end). Receivers come points first, then the
    line, then the grid."""
    gap = positions[:, :2] - np.asarray(source)[:2]
    offsets = np.hypot(gap[:, 0], gap[:, 1])
    line = receivers.get("line")
    if line:
        first = len(receivers.get("points", []))
        on_line = slice(first, first + line["count"])
        direction = np.subtract(line["end"], line["start"])[:2]
        behind = gap[on_line] @ direction < 0
        offsets[on_line] = np.where(behind, -offsets[on_line], offsets[on_line])
    return offsets


def stored_offsets(path):
    with h5py.File(path, "r") as f:
        check("receiver_offsets" in f and f["receiver_offsets"].attrs.get("units") == "m",
              f"{path}: no /receiver_offsets in metres")
        return f["receiver_offsets"][:]


def check_trace_headers(f, g, interval_us, offsets):
    src = g["source"]
    T = segyio.TraceField
    for i, (h, rec) in enumerate(zip(f.header, g["receivers"])):
        cs, es = h[T.SourceGroupScalar], h[T.ElevationScalar]
        got = [metres(h[k], cs) for k in (T.SourceX, T.SourceY, T.GroupX, T.GroupY)]
        want = [src[0], src[1], rec[0], rec[1]]
        check(np.allclose(got, want, rtol=0, atol=0.005 + 1e-9),
              f"trace {i + 1}: coordinates {got}, expected {want} (scalar {cs})")
        check(abs(metres(h[T.ReceiverGroupElevation], es) + rec[2]) <= 0.005 + 1e-9 and
              abs(metres(h[T.SourceDepth], es) - src[2]) <= 0.005 + 1e-9,
              f"trace {i + 1}: elevation {h[T.ReceiverGroupElevation]} / source depth "
              f"{h[T.SourceDepth]} with scalar {es} for z {rec[2]} / {src[2]}")
        offset = round(float(offsets[i]))
        expected = {T.TRACE_SEQUENCE_LINE: i + 1, T.TRACE_SEQUENCE_FILE: i + 1,
                    T.FieldRecord: 1, T.TraceNumber: i + 1, T.TraceIdentificationCode: 1,
                    T.offset: offset, T.CoordinateUnits: 1,
                    T.TRACE_SAMPLE_COUNT: g["traces"].shape[1],
                    T.TRACE_SAMPLE_INTERVAL: interval_us}
        for field, value in expected.items():
            check(h[field] == value, f"trace {i + 1} byte {int(field)}: {h[field]}, expected "
                                     f"{value}")
    return cs, es


def read_segy(tmp, job, name, ranks):
    rc, out, err = run_job(tmp, job, name=name, ranks=ranks)
    path = os.path.join(tmp, job["output"]["segy"])
    check(not os.path.exists(path + ".partial"), "a partial SEG-Y file was left behind")
    check(f"SEG-Y gather written to {job['output']['segy']}" in out, out)
    g = read_gather(os.path.join(tmp, job["output"]["gather"]))
    with open(path, "rb") as fh:
        raw = fh.read()
    return g, raw, path, err


def test_segy_matches_hdf5_gather(tmp):
    need_segyio()
    job = segy_job()
    g, raw, path, _ = read_segy(tmp, job, "job", ranks=2)
    nrec, nsamples = g["traces"].shape
    check(nrec == 14 and nsamples == 76, f"test set-up: {nrec} x {nsamples} traces")
    check(len(raw) == TEXT_SIZE + BINARY_SIZE + nrec * (TRACE_HEADER_SIZE + 4 * nsamples),
          f"file size {len(raw)} is not that of fixed-length traces")
    with segyio.open(path, ignore_geometry=True) as f:
        check(f.tracecount == nrec and len(f.samples) == nsamples,
              f"{f.tracecount} traces x {len(f.samples)} samples")
        check_binary_header(raw, f, nrec, nsamples, 2000)
        check_text_header(raw, f, os.path.join(tmp, "job.yaml"))
        offsets = expected_offsets(job["receivers"], g["source"], g["receivers"])
        cs, es = check_trace_headers(f, g, 2000, offsets)
        check(cs == -100 and es == -100, f"scalars {cs}, {es}: centimetres fit here")
        samples = f.trace.raw[:]
    check(np.allclose(stored_offsets(os.path.join(tmp, "gather.h5")), offsets, rtol=0,
                      atol=1e-9), "the HDF5 gather's offsets differ from the rule")
    check(samples.dtype == np.float32 and np.array_equal(samples, g["traces"]),
          "SEG-Y samples differ from the HDF5 gather")
    check(np.abs(samples).max() > 0, "the gather is silent")


def test_segy_coarser_scalar_for_large_coordinates(tmp):
    """x of 3e7 m does not fit int32 in centimetres: decimetres, with a warning."""
    need_segyio()
    job = segy_job(origin=(3.0e7, -1200.0, -50.0))
    job["time"]["duration"] = 0.02
    g, raw, path, err = read_segy(tmp, job, "far", ranks=1)
    check(re.search(r"warning: \S*far\.yaml:\d+:\d+: output\.segy: .*x and y are stored in "
                    r"decimetres \(scalar -10\), elevations and depths in centimetres "
                    r"\(scalar -100\)", err), f"no precision warning:\n{err}")
    with segyio.open(path, ignore_geometry=True) as f:
        T = segyio.TraceField
        check(f.header[0][T.SourceGroupScalar] == -10 and f.header[0][T.ElevationScalar] == -100,
              "scalars are not -10 / -100")
        for h, rec in zip(f.header, g["receivers"]):
            check(abs(metres(h[T.GroupX], -10) - rec[0]) <= 0.05 + 1e-6 and
                  abs(metres(h[T.ReceiverGroupElevation], -100) + rec[2]) <= 0.005 + 1e-9,
                  f"receiver {rec} stored as {h[T.GroupX]}, {h[T.ReceiverGroupElevation]}")
        check("scalar -10 " in bytes(f.text[0]).decode("ascii"), "text header: scalar")


def segy_offsets(path):
    with segyio.open(path, ignore_geometry=True) as f:
        return np.array([h[segyio.TraceField.offset] for h in f.header])


def test_segy_offsets_signed_across_the_source(tmp):
    """A receiver line through the source, running towards -x and -y:
    the receivers on its start side are behind the source (negative), the
    others ahead (positive), each offset the horizontal distance; points
    keep the distance itself; the HDF5 gather stores the same offsets
    unrounded."""
    need_segyio()
    job = base_job(n=(32, 32, 24), h=10.0, cpml=6, duration=0.02, dt=0.001,
                   source=[150.0, 150.0, 100.0], frequency=12.0)
    job["receivers"] = {
        "sampling": 0.002,
        "points": [[150.0, 60.0, 80.0], [220.0, 150.0, 120.0], [153.0, 154.0, 150.0]],
        "line": {"start": [240.0, 222.0, 80.0], "end": [60.0, 78.0, 80.0], "count": 11},
    }
    job["output"]["segy"] = "out/shot.sgy"
    g, raw, path, _ = read_segy(tmp, job, "line", ranks=1)
    got = segy_offsets(path)
    stored = stored_offsets(os.path.join(tmp, "gather.h5"))
    # Receiver k of the line lies k/10 of the way: 23.05 m apart, at the source for k = 5.
    step = float(np.hypot(18.0, 14.4))
    distances = np.array([90.0, 70.0, 5.0] + [abs(k - 5) * step for k in range(11)])
    signs = np.array([1] * 3 + [-1] * 5 + [1] * 6)
    check(np.allclose(stored, signs * distances, rtol=0, atol=1e-9),
          f"/receiver_offsets {np.round(stored, 3).tolist()}, expected "
          f"{np.round(signs * distances, 3).tolist()}")
    check(np.array_equal(got, np.round(signs * distances).astype(int)),
          f"SEG-Y offsets {got.tolist()}, expected the distances "
          f"{np.round(distances, 2).tolist()} signed {signs.tolist()}")
    check(np.all(got[3:8] < 0) and np.all(got[9:] > 0) and got[8] == 0,
          f"the line's offsets are not negative behind the source and positive ahead: "
          f"{got[3:].tolist()}")
    with segyio.open(path, ignore_geometry=True) as f:
        text = bytes(f.text[0]).decode("ascii")
    check_offset_convention([text[i:i + 80] for i in range(0, TEXT_SIZE, 80)])
    return f"line offsets {got[3:].tolist()} m, points {got[:3].tolist()} m"


def test_segy_survey_offsets_follow_each_shot(tmp):
    """Fixed receivers: each shot signs the line's receivers by its own
    position; moving receivers: every shot's offsets are the same."""
    need_segyio()
    grid = {"nx": 40, "ny": 30, "nz": 24, "dx": 10, "dy": 10, "dz": 10}
    shots = [{"position": [150, 150, 100]}, {"position": [230, 150, 100]}]
    layouts = {
        "fixed": {"line": {"start": [70, 150, 80], "end": [310, 150, 80], "count": 13}},
        "moving": {"line": {"start": [60, 0, 80], "end": [-60, 0, 80], "count": 7}},
    }
    summary = []
    for motion, receivers in layouts.items():
        job = {
            "grid": grid,
            "time": {"dt": 0.001, "duration": 0.01},
            "model": {"type": "homogeneous", "vp": 2000.0},
            "boundaries": {"cpml": 6},
            "source": {"frequency": 12},
            "receivers": dict(receivers, sampling=0.002),
            "survey": {"ranks_per_shot": 1, "receivers": motion, "shots": shots},
            "output": {"directory": motion, "segy": True},
        }
        run_job(tmp, job, name=motion, ranks=1)
        for n, shot in enumerate(shots, start=1):
            base = os.path.join(tmp, motion, f"shot_{n:04d}")
            g = read_gather(base + ".h5")
            want = expected_offsets(job["receivers"], shot["position"], g["receivers"])
            stored, got = stored_offsets(base + ".h5"), segy_offsets(base + ".sgy")
            check(np.allclose(stored, want, rtol=0, atol=1e-9) and
                  np.array_equal(got, np.round(want).astype(int)),
                  f"{motion} shot {n}: offsets {got.tolist()} (HDF5 {stored.tolist()}), "
                  f"expected {want.tolist()}")
            summary.append(f"{motion} shot {n}: {got.min()} .. {got.max()}")
    return "; ".join(summary)


def value_position(text, key):
    """line:column of the value of a key in a job written by write_job."""
    for n, line in enumerate(text.splitlines(), 1):
        m = re.search(rf'"{key}": ', line)
        if m:
            return f"{n}:{m.end() + 1}"
    raise AssertionError(f"test set-up: no {key} in the job")


def expect_refused(tmp, job, pattern, command="run"):
    path = write_job(os.path.join(tmp, "job.yaml"), job)
    rc, out, err = run([command, "job.yaml"], ranks=2, cwd=tmp)
    check(rc != 0, f"seisfd accepted the job:\n{out}")
    check(re.search(pattern, err), f"no /{pattern}/ in:\n{err}")
    check("Traceback" not in err and "MPI_ABORT" not in err, f"not a clean message:\n{err}")
    written = [p for p in ("gather.h5", "out/shot.sgy") if os.path.exists(os.path.join(tmp, p))]
    check("time loop" not in out and not written, f"the job ran or wrote {written}:\n{out}")
    with open(path) as f:
        return f.read(), err


def test_segy_rejects_fractional_microseconds(tmp):
    job = segy_job()
    job["receivers"]["sampling"] = 0.0012345
    text, err = expect_refused(tmp, job, r"job\.yaml:\d+:\d+: receivers\.sampling: for "
                                         r"output\.segy, the record interval 0\.0012345 s is not "
                                         r"a whole number of microseconds.*\(allowed: 0\.000001 "
                                         r"to 0\.032767 s in whole microseconds, e\.g\. 0\.001235 "
                                         r"s\)")
    where = re.search(r"job\.yaml:(\d+:\d+): receivers\.sampling", err).group(1)
    check(where == value_position(text, "sampling"), f"points at {where}, not at the value")


def test_segy_rejects_default_interval_and_long_records(tmp):
    job = segy_job()
    del job["receivers"]["sampling"]
    job["time"]["dt"] = 0.0009876
    expect_refused(tmp, job, r"job\.yaml:\d+:\d+: receivers\.sampling: not given \(or auto\), so "
                             r"records are sampled at dt; for output\.segy, the record interval "
                             r"0\.0009876 s", command="check")
    job = segy_job()
    job["time"]["duration"] = 70.0
    job["receivers"]["sampling"] = 0.001
    expect_refused(tmp, job, r"receivers\.sampling: for output\.segy, 70001 samples per trace at "
                             r"0\.001 s exceed the SEG-Y maximum of 65535 \(allowed: an interval "
                             r"of at least 0\.001069 s", command="check")


def test_segy_refuses_to_overwrite(tmp):
    job = segy_job()
    os.makedirs(os.path.join(tmp, "out"))
    existing = os.path.join(tmp, "out", "shot.sgy")
    with open(existing, "w") as f:
        f.write("precious")
    job["output"]["overwrite"] = False
    path = write_job(os.path.join(tmp, "job.yaml"), job)
    rc, out, err = run(["run", "job.yaml"], ranks=2, cwd=tmp)
    with open(path) as f:
        where = value_position(f.read(), "segy")
    check(rc != 0 and f"job.yaml:{where}: output.segy: 'out/shot.sgy' already exists; remove it "
                      "or set output.overwrite: true" in err, err)
    with open(existing) as f:
        check(f.read() == "precious", "the existing SEG-Y file was modified")
    check(not os.path.exists(os.path.join(tmp, "gather.h5")), "the run went ahead")
    job["output"]["segy"] = job["output"]["gather"]
    write_job(path, job)
    rc, out, err = run(["run", "job.yaml"], ranks=1, cwd=tmp)
    check(rc != 0 and "output.segy: 'gather.h5' is also output.gather" in err, err)
