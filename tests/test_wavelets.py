"""Source signatures: the analytic wavelets against their formulas, a
Gaussian derivative's direct wave against the analytic solution, measured
signatures read from HDF5, SEG-Y and text files, per-shot signatures in a
survey, and clear errors on bad signature files."""
import math
import os
import re

import h5py
import numpy as np

from testlib import base_job, check, heavy, read_gather, run_job

try:
    import segyio
except ImportError:  # the SEG-Y case says so
    segyio = None

V = 2000.0


def tiny_job(source, duration=0.25, dt=0.001, physics=None, correction=None):
    """A small homogeneous job; source: the wavelet keys (and delay)."""
    job = base_job(n=(30, 30, 30), h=10.0, vp=V, cpml=8, duration=duration, dt=dt,
                   receivers=[[171.3, 148.1, 150.7], [221.3, 148.1, 150.7]])
    job["source"] = dict({"position": [150.3, 148.1, 150.7]}, **source)
    if physics:
        job["physics"] = {"type": physics}
        job["model"] = {"type": "homogeneous", "vp": V, "vs": 1150.0, "rho": 2000.0}
        job["receivers"]["components"] = ["vx", "vz", "p"]
    if correction is not None:
        job["time"]["dispersion_correction"] = correction
    return job


def gather_and_wavelet(tmp, job, name, ranks=1):
    run_job(tmp, job, name=name, ranks=ranks)
    path = os.path.join(tmp, "gather.h5")
    g = read_gather(path)
    with h5py.File(path, "r") as f:
        g["wavelet"] = f["source_wavelet"][:]
        g["wavelet_dt"] = float(f["source_wavelet"].attrs["sample_interval"])
        g["wavelet_record"] = f["source_wavelet_record"][:]
        g["injected"] = f["source_wavelet_injected"][:] if "source_wavelet_injected" in f else None
    os.rename(path, os.path.join(tmp, name + ".h5"))
    return g


def ricker(tau, f):
    a = (math.pi * f * tau) ** 2
    return (1.0 - 2.0 * a) * np.exp(-a)


def gaussian(tau, f):
    return np.exp(-(math.pi * f * tau) ** 2)


def gaussian_derivative(tau, f):
    """d/dt exp(-(pi f t)^2), scaled to a peak of 1."""
    a = math.pi * f * tau
    return -math.sqrt(2.0 * math.e) * a * np.exp(-a * a)


def hann(tau, length):
    return np.where(np.abs(tau) < length / 2, 0.5 * (1.0 + np.cos(2.0 * math.pi * tau / length)),
                    0.0)


def ormsby(tau, f, length):
    def tri(fc):
        return math.pi * fc * fc * np.sinc(fc * tau) ** 2
    high = (tri(f[3]) - tri(f[2])) / (f[3] - f[2])
    low = (tri(f[1]) - tri(f[0])) / (f[1] - f[0])
    return (high - low) / (math.pi * (f[2] + f[3] - f[0] - f[1])) * hann(tau, length)


def klauder(tau, f, sweep, taper, length, dt=1e-4):
    """The autocorrelation of the cosine-tapered linear sweep, sampled
    finely here and interpolated to tau, windowed."""
    t = np.arange(0.0, sweep + dt / 2, dt)
    gain = np.ones_like(t)
    gain = np.where(t < taper, 0.5 * (1 - np.cos(math.pi * t / taper)), gain)
    gain = np.where(sweep - t < taper, 0.5 * (1 - np.cos(math.pi * np.maximum(sweep - t, 0) / taper)),
                    gain)
    s = gain * np.sin(2 * math.pi * (f[0] * t + 0.5 * (f[1] - f[0]) / sweep * t * t))
    c = np.correlate(s, s, "full")
    lags = (np.arange(c.size) - (s.size - 1)) * dt
    return np.interp(tau, lags, c / c.max()) * hann(tau, length)


def test_analytic_kinds_against_their_formulas(tmp):
    """Each kind's signature, as the gather stores it, against its formula
    at every step: delay and amplitude included. The closed forms to
    rounding; the Klauder wavelet (computed from its sampled sweep) to
    1e-3 of its peak."""
    dt = 0.001
    cases = {
        "ricker": ({"wavelet": "ricker", "frequency": 12.0, "amplitude": 2.0},
                   lambda t: 2.0 * ricker(t - 1.5 / 12.0, 12.0), 1e-6),
        "gaussian": ({"wavelet": "gaussian", "frequency": 15.0, "delay": 0.08},
                     lambda t: gaussian(t - 0.08, 15.0), 1e-6),
        "gaussian_derivative": ({"wavelet": "gaussian_derivative", "frequency": 12.0},
                                lambda t: gaussian_derivative(t - 1.5 / 12.0, 12.0), 1e-6),
        "ormsby": ({"wavelet": "ormsby", "frequencies": [5, 10, 30, 45], "length": 0.2,
                    "amplitude": -1.5},
                   lambda t: -1.5 * ormsby(t - 0.1, [5, 10, 30, 45], 0.2), 1e-6),
        "klauder": ({"wavelet": "klauder", "frequencies": [8, 40], "sweep_length": 2.0,
                     "sweep_taper": 0.2, "length": 0.24},
                    lambda t: klauder(t - 0.12, [8, 40], 2.0, 0.2, 0.24), 1e-3),
    }
    worst = {}
    for name, (source, formula, tolerance) in cases.items():
        g = gather_and_wavelet(tmp, tiny_job(source, dt=dt), name)
        t = np.arange(g["wavelet"].size) * g["wavelet_dt"]
        exact = formula(t)
        error = np.abs(g["wavelet"] - exact).max() / np.abs(exact).max()
        check(error <= tolerance, f"{name}: stored signature differs from its formula by "
              f"{error:.2e} of its peak (limit {tolerance:g})")
        check(np.abs(g["traces"]).max() > 0, f"{name}: the gather is silent")
        worst[name] = error
    return ", ".join(f"{k} {v:.1e}" for k, v in worst.items())


def test_ormsby_auto_window_reaches_the_one_percent_level(tmp):
    """length: auto ends the window where the untapered Ormsby wavelet has
    fallen below 1% of its peak for good, and the delay is half of it."""
    f = [5.0, 10.0, 40.0, 60.0]
    run_job(tmp, tiny_job({"wavelet": "ormsby", "frequencies": f}), name="ormsby")
    with h5py.File(os.path.join(tmp, "gather.h5"), "r") as h:
        length = float(h.attrs["source_wavelet_length"])
        delay = float(h.attrs["source_delay"])
    tau = np.linspace(0.0, 2.0, 200001)
    untapered = ormsby(tau, f, 1e9)
    last = tau[np.nonzero(np.abs(untapered) >= 0.01)[0][-1]]
    check(abs(length / 2 - last) <= 0.01 / 20 + 1e-4,
          f"auto window {length} s: half {length / 2} s, but the 1% level ends at {last:.4f} s")
    check(abs(delay - length / 2) < 1e-12, f"auto delay {delay} s is not half the window")
    return f"window {length:.4f} s (1% level at {last:.4f} s), delay {delay:.4f} s"


def test_gaussian_derivative_matches_analytic(tmp):
    """p = s(t - r/v) / (4 pi r) for a first derivative of a Gaussian, in
    amplitude and shape, as the Ricker test does (2% misfit, 2% peak)."""
    f0, h = 10.0, 10.0
    src = [503.3, 498.1, 501.7]
    offsets = [[100, 0, 0], [0, 200, 0], [200, 100, -100], [-150, 0, 200]]
    job = base_job(n=(100, 100, 100), h=h, vp=V, cpml=20, duration=0.45, dt=0.001,
                   source=src, receivers=[[s + o for s, o in zip(src, off)] for off in offsets])
    job["source"].update({"wavelet": "gaussian_derivative", "frequency": f0, "amplitude": 3.0})
    run_job(tmp, job, ranks=2)
    g = read_gather(os.path.join(tmp, "gather.h5"))
    t = np.arange(g["traces"].shape[1]) * g["dt"]
    delay = 1.5 / f0
    worst = 0.0
    for trace, pos in zip(g["traces"], g["receivers"]):
        r = float(np.linalg.norm(pos - g["source"]))
        exact = 3.0 * gaussian_derivative(t - r / V - delay, f0) / (4.0 * math.pi * r)
        window = np.abs(t - (r / V + delay)) <= 1.5 / f0
        m = float(np.linalg.norm(trace[window] - exact[window]) / np.linalg.norm(exact[window]))
        check(m <= 0.02, f"receiver at r = {r:.1f} m: relative L2 misfit {m:.4f} > 2%")
        peak = trace[window].max() / exact[window].max()
        check(abs(peak - 1.0) < 0.02, f"r = {r:.1f} m: peak amplitude ratio {peak:.4f}")
        worst = max(worst, m)
    return f"worst misfit {100 * worst:.2f}% (limit 2%)"


# ---- signature files ---------------------------------------------------------

def write_hdf5(path, values, interval, start=None, dataset="wavelet"):
    with h5py.File(path, "w") as f:
        d = f.create_dataset(dataset, data=np.asarray(values, dtype=np.float64))
        if interval is not None:
            d.attrs["sample_interval"] = interval
        if start is not None:
            d.attrs["start_time"] = start


def write_text(path, values, interval, start=0.0):
    with open(path, "w") as f:
        f.write("# time (s)  value\n")
        for k, v in enumerate(values):
            f.write(f"{start + k * interval!r} {float(v)!r}\n")


def write_segy(path, values, interval, trace=1):
    """trace + 1 traces, the signature in trace `trace`, the others zero."""
    spec = segyio.spec()
    spec.format = 5
    spec.samples = np.arange(len(values)) * interval * 1000.0
    spec.tracecount = trace + 1
    with segyio.create(path, spec) as f:
        for i in range(trace + 1):
            f.header[i] = {segyio.TraceField.TRACE_SAMPLE_INTERVAL: int(round(interval * 1e6))}
            f.trace[i] = (np.asarray(values, dtype=np.float32) if i == trace
                          else np.zeros(len(values), dtype=np.float32))
        f.bin.update(hdt=int(round(interval * 1e6)), hns=len(values))


def ricker_samples(f0, delay, interval, duration):
    t = np.arange(0.0, duration + interval / 2, interval)
    return ricker(t - delay, f0)


def relative(a, b):
    return float(np.abs(a - b).max() / np.abs(b).max())


@heavy
def test_ricker_files_give_the_ricker_gather(tmp):
    """A Ricker written to HDF5, SEG-Y and text at the run's dt and read
    back (delay 0: the samples hold it) gives the gather of wavelet: ricker
    to 1e-6 of the peak: acoustic (the time-dispersion transforms read the
    half steps, interpolated), an elastic explosion, force and moment
    (whose stress half steps take the signature between samples), on 1 and
    2 ranks. The file holds the whole wavelet (delay 0.2 s: its ends are
    1e-24 of its peak); cut where it is still 1e-8, as a run of 1.5 / f
    delay would cut it, a force's or moment's near field keeps the cut's
    mean, 2e-6 to 4e-6 of the peak. An elastic gather's float32 rounding
    moves it by more than 1e-6 (an amplitude of 1 + 1e-13 moves it 1.3e-6),
    so there the bound is twice that floor, measured alongside."""
    f0, dt, duration, delay = 12.0, 0.001, 0.4, 0.2
    samples = ricker_samples(f0, delay, dt, duration)
    write_hdf5(os.path.join(tmp, "sig.h5"), samples, dt)
    write_text(os.path.join(tmp, "sig.txt"), samples, dt)
    files = {"hdf5": {"file": "sig.h5"}, "text": {"file": "sig.txt"}}
    if segyio is not None:
        write_segy(os.path.join(tmp, "sig.sgy"), samples, dt, trace=2)
        files["segy"] = {"file": "sig.sgy", "trace": 2}
    worst, floors = 0.0, {}
    sources = {"explosive": {}, "force": {"type": "force", "direction": [0.3, -0.5, 0.8]},
               "moment": {"type": "moment", "moment": [1.0, -0.5, 0.3, 0.2, -0.1, 0.4]}}
    for physics, source in [(None, "pressure"), ("elastic", "explosive"), ("elastic", "force"),
                            ("elastic", "moment")]:
        typed = sources.get(source, {})
        reference = gather_and_wavelet(tmp, tiny_job(dict(typed, frequency=f0, delay=delay),
                                                     duration=duration, physics=physics), "ricker")
        nudged = gather_and_wavelet(tmp, tiny_job(dict(typed, frequency=f0, delay=delay,
                                                       amplitude=1 + 1e-13),
                                                  duration=duration, physics=physics), "nudged")
        floor = relative(nudged["traces"], reference["traces"])
        limit = max(1e-6, 2.0 * floor)
        floors[source] = floor
        for name, keys in files.items():
            if source in ("force", "moment") and name != "hdf5":
                continue
            for ranks in ((1, 2) if name == "hdf5" and source != "moment" else (1,)):
                g = gather_and_wavelet(tmp, tiny_job(dict(keys, wavelet="file", delay=0, **typed),
                                                     duration=duration, physics=physics),
                                       f"{name}-{ranks}", ranks=ranks)
                e = relative(g["traces"], reference["traces"])
                what = f"{physics or 'acoustic'} {source}, {name} on {ranks} rank(s)"
                check(e <= limit, f"{what}: gather differs from wavelet: ricker by {e:.2e} of "
                      f"the peak (limit {limit:.2g}; rounding floor {floor:.2g})")
                worst = max(worst, e)
    floors = ", ".join(f"{k} {v:.1e}" for k, v in floors.items())
    if segyio is None:
        return (f"worst {worst:.1e} of the peak (HDF5, text; segyio missing: SEG-Y not "
                f"checked); rounding floors {floors}")
    return (f"worst {worst:.1e} of the peak (HDF5, SEG-Y, text; pressure, explosive, force, "
            f"moment; 1 and 2 ranks); rounding floors {floors}")


def test_coarse_signature_matches_within_the_resampling_error(tmp):
    """A Ricker sampled at 4 dt gives the analytic Ricker's gather to within
    the resampling's own error: the stored signature's difference from the
    formula (measured: under 1e-6 of its peak at 4 ms for 12 Hz), and the
    gather within 1e-5 of its peak."""
    f0, dt, duration = 12.0, 0.001, 0.25
    write_text(os.path.join(tmp, "coarse.txt"), ricker_samples(f0, 1.5 / f0, 4 * dt, duration), 4 * dt)
    reference = gather_and_wavelet(tmp, tiny_job({"frequency": f0}, duration=duration), "ricker")
    g = gather_and_wavelet(tmp, tiny_job({"wavelet": "file", "file": "coarse.txt", "delay": 0},
                                         duration=duration), "coarse")
    signature = relative(g["wavelet"], reference["wavelet"])
    gather = relative(g["traces"], reference["traces"])
    check(signature <= 1e-6, f"signature resampled from 4 dt differs by {signature:.2e} of its peak")
    check(gather <= 1e-5, f"gather differs by {gather:.2e} of its peak")
    return f"signature {signature:.1e}, gather {gather:.1e} of the peak"


def test_gather_stores_the_signature_at_dt_and_record_interval(tmp):
    """The signature stored at the record interval is the one at dt
    resampled as the traces are; with the correction on, the warped series
    the grid received is there too; a gather's signature feeds a later
    job's wavelet: file and reproduces its traces."""
    job = tiny_job({"wavelet": "ricker", "frequency": 15.0, "amplitude": 4.0})
    job["receivers"]["sampling"] = 0.004
    g = gather_and_wavelet(tmp, job, "first")
    t_rec = np.arange(g["wavelet_record"].size) * g["dt"]
    exact = 4.0 * ricker(t_rec - 0.1, 15.0)
    e = relative(g["wavelet_record"], exact)
    check(e <= 1e-3, f"record-interval signature differs from the formula by {e:.2e}")
    check(g["injected"] is not None and g["injected"].size == g["wavelet"].size,
          "no source_wavelet_injected with the time-dispersion correction on")
    check(relative(g["injected"], g["wavelet"]) > 1e-4, "the injected series is not warped")
    with h5py.File(os.path.join(tmp, "first.h5"), "r") as f:
        check(f.attrs["source_wavelet_kind"] == "ricker", "kind not stored")
        check(float(f.attrs["source_peak_frequency"]) == 15.0, "frequency not stored")
        check(float(f.attrs["source_amplitude"]) == 4.0, "amplitude not stored")
    again = tiny_job({"wavelet": "file", "file": "first.h5", "dataset": "source_wavelet",
                      "delay": 0})
    again["receivers"]["sampling"] = 0.004
    h = gather_and_wavelet(tmp, again, "again")
    e2 = relative(h["traces"], g["traces"])
    check(e2 <= 1e-6, f"the stored signature fed back differs in the gather by {e2:.2e}")
    plain = gather_and_wavelet(tmp, dict(job, time=dict(job["time"], dispersion_correction=False)),
                               "plain")
    check(plain["injected"] is None, "source_wavelet_injected written without the correction")
    return f"record-interval signature within {e:.1e} of the formula; fed back: {e2:.1e}"


def test_survey_shots_take_their_own_signatures(tmp):
    """Shot 2 names a signature file, shot 3 another kind; each shot's
    gather equals the single-shot job with that source, and stores it."""
    f0 = 12.0
    write_text(os.path.join(tmp, "shot2.txt"),
               0.5 * gaussian(np.arange(0.0, 0.2, 0.001) - 0.06, 20.0), 0.001)
    base = tiny_job({"frequency": f0})
    del base["source"]["position"]
    del base["output"]["gather"]
    base["output"]["directory"] = "shots"
    positions = [[150.3, 148.1, 150.7], [140.3, 158.1, 150.7], [160.3, 138.1, 140.7]]
    base["survey"] = {"shots": [
        {"position": positions[0]},
        {"position": positions[1], "wavelet": "file", "file": "shot2.txt", "delay": 0.01},
        {"position": positions[2], "wavelet": "ormsby", "frequencies": [4, 8, 25, 35]}]}
    run_job(tmp, base, name="survey", ranks=2)
    singles = [{"frequency": f0},
               {"wavelet": "file", "file": "shot2.txt", "delay": 0.01},
               {"wavelet": "ormsby", "frequencies": [4, 8, 25, 35]}]
    kinds = ["ricker", "file", "ormsby"]
    for n, (source, kind) in enumerate(zip(singles, kinds)):
        with h5py.File(os.path.join(tmp, "shots", f"shot_{n + 1:04d}.h5"), "r") as f:
            traces = f["traces"][:]
            check(f.attrs["source_wavelet_kind"] == kind,
                  f"shot {n + 1} stores {f.attrs['source_wavelet_kind']}, not {kind}")
        job = tiny_job(source)
        job["source"]["position"] = positions[n]
        single = gather_and_wavelet(tmp, job, f"single{n + 1}")
        e = relative(traces, single["traces"])
        check(e <= 1e-6, f"shot {n + 1} ({kind}) differs from its single-shot job by {e:.2e}")
    import json
    with open(os.path.join(tmp, "shots", "report.json")) as f:
        report = json.load(f)
    named = [shot["wavelet"] for shot in report["shots"]]
    check(named[0] == "Ricker 12 Hz" and named[1] == "file 'shot2.txt'" and
          named[2].startswith("Ormsby 4-8-25-35 Hz") and report["config"]["shots_with_own_wavelet"] == 2,
          f"the run report names the shots' wavelets {named}")
    return "ricker, file and ormsby shots each equal their single-shot jobs; the report names them"


def errors_of(tmp, job, name):
    rc, out, err = run_job(tmp, job, name=name, expect_ok=False)
    return rc, err


def test_bad_signature_files_are_refused(tmp):
    """Every bad file stops the job before it runs, with one error naming
    the key (with its line), the file and what is wrong."""
    dt = 0.001
    good = ricker_samples(12.0, 0.125, dt, 0.2)
    write_hdf5(os.path.join(tmp, "good.h5"), good, dt)
    write_hdf5(os.path.join(tmp, "noattr.h5"), good, None)
    with h5py.File(os.path.join(tmp, "square.h5"), "w") as f:
        f["wavelet"] = np.ones((4, 4))
        f["wavelet"].attrs["sample_interval"] = dt
    write_hdf5(os.path.join(tmp, "one.h5"), [1.0], dt)
    nan = good.copy()
    nan[17] = float("nan")
    write_text(os.path.join(tmp, "nan.txt"), nan, dt)
    with open(os.path.join(tmp, "onecolumn.txt"), "w") as f:
        f.write("0.0\n0.001\n")
    with open(os.path.join(tmp, "uneven.txt"), "w") as f:
        f.write("0.0 0\n0.001 1\n0.003 0\n")
    write_text(os.path.join(tmp, "sig.bin"), good, dt)
    write_text(os.path.join(tmp, "zeros.txt"), np.zeros(50), dt)
    rng = np.random.default_rng(7)
    write_text(os.path.join(tmp, "noise.txt"), rng.standard_normal(100), 0.002)
    write_text(os.path.join(tmp, "long.txt"), ricker_samples(12.0, 0.125, dt, 0.6), dt)
    write_text(os.path.join(tmp, "early.txt"), good, dt, start=-0.05)
    write_hdf5(os.path.join(tmp, "nanstart.h5"), good, dt, start=float("nan"))
    write_hdf5(os.path.join(tmp, "badstep.h5"), good, -dt)
    cases = [
        ("missing", {"file": "absent.h5"}, r"absent\.h5.*No such file"),
        ("dataset", {"file": "good.h5", "dataset": "other"}, r"no dataset 'other' \(it holds: wavelet\)"),
        ("attribute", {"file": "noattr.h5"}, r"no attribute 'sample_interval'"),
        ("start", {"file": "nanstart.h5"}, r"nanstart\.h5': start time nan s; the first sample's "
                                           r"time must be finite"),
        ("interval", {"file": "badstep.h5"}, r"badstep\.h5': sample interval -0\.001 s; the "
                                             r"interval must be positive and finite"),
        ("shape", {"file": "square.h5"}, r"has 2 dimensions"),
        ("length", {"file": "one.h5"}, r"holds 1 samples \(allowed: 2 to"),
        ("nan", {"file": "nan.txt"}, r"nan\.txt': sample 17 \(t = 0\.017 s\) is NaN"),
        ("columns", {"file": "onecolumn.txt"}, r"onecolumn\.txt' line 1: expected two numbers"),
        ("uneven", {"file": "uneven.txt"}, r"uneven\.txt' line 2: time 0\.001 s is off the uniform "
                                         r"sampling"),
        ("format", {"file": "sig.bin"}, r"sig\.bin': unknown format"),
        ("zeros", {"file": "zeros.txt"}, r"every sample is zero"),
        ("coarse", {"file": "noise.txt"}, r"noise\.txt' is sampled too coarsely .* of its energy "
                                          r"lies above 200 Hz"),
        ("long", {"file": "long.txt", "delay": 0}, r"long\.txt' ends at 0\.6 s .* after the "
                                                    r"run's 0\.2\d* s"),
        ("early", {"file": "early.txt", "delay": 0.01}, r"early\.txt' begins at -0\.04 s .* give "
                                                         r"a delay of at least 0\.05 s"),
        ("kind key", {"file": "good.h5", "frequency": 10}, r"source\.frequency: only for "
                                                            r"wavelet: ricker"),
    ]
    if segyio is not None:
        write_segy(os.path.join(tmp, "two.sgy"), good, dt, trace=1)
        cases.append(("trace", {"file": "two.sgy", "trace": 5},
                      r"two\.sgy' holds 2 traces \(indices 0 to 1\); trace 5 does not exist"))
    for name, keys, pattern in cases:
        job_name = name.replace(" ", "_")
        rc, err = errors_of(tmp, tiny_job(dict(keys, wavelet="file")), job_name)
        check(rc != 0, f"{name}: the job ran")
        check(re.search(job_name + r"\.yaml:\d+:\d+: source\.(file|dataset|trace|frequency): ", err)
              and re.search(pattern, err), f"{name}: no error matching {pattern!r}:\n{err[-1500:]}")
        check(err.count(".yaml:") == 1 and "MPI_ABORT" not in err, f"{name}: not one clean error")
        check(not os.path.exists(os.path.join(tmp, "gather.h5")), f"{name}: a gather was written")
    return f"{len(cases)} bad signatures refused"


def test_dispersion_warning_names_the_share_of_energy(tmp):
    """A wavelet whose energy reaches past the grid's limit (5 points per
    wavelength) warns with that frequency and the share above it."""
    rc, out, err = run_job(tmp, tiny_job({"wavelet": "ormsby", "frequencies": [5, 10, 60, 90]}),
                           name="wide")
    m = re.search(r"source\.frequencies: ([\d.]+) points per minimum wavelength .* ([\d.e-]+)% of "
                  r"the wavelet's energy lies above 40 Hz", err)
    check(m, f"no warning naming the share above 40 Hz:\n{err[-1500:]}")
    return f"{m.group(1)} points per wavelength, {m.group(2)}% above 40 Hz"


def test_wavelet_keys_are_checked(tmp):
    """Each kind's keys: required ones missing, impossible values, keys of
    another kind, in the source and in a survey's shots; every problem
    named by its key and line, all in one run."""
    from testlib import run, write_job
    job = tiny_job({"wavelet": "ormsby", "frequencies": [5, 30, 20, 60]})
    cases = {
        "ormsby": (job, [r"source\.frequencies: Ormsby corners \[f1, f2, f3, f4\] must satisfy"]),
        "klauder": (tiny_job({"wavelet": "klauder", "frequencies": [10, 10], "sweep_taper": 3}),
                    [r"source\.sweep_length: required key is missing",
                     r"source\.frequencies: a sweep's \[start, end\] frequencies must be positive "
                     r"and differ"]),
        "taper": (tiny_job({"wavelet": "klauder", "frequencies": [8, 60], "sweep_length": 1,
                            "sweep_taper": 0.6}),
                  [r"source\.sweep_taper: tapers of 0\.6 s at both ends do not fit a sweep of 1 s"]),
        "kind": (tiny_job({"wavelet": "sinc", "frequency": 10}),
                 [r"source\.wavelet: .*ricker\|gaussian\|gaussian_derivative\|ormsby\|klauder\|file"]),
        "foreign": (tiny_job({"wavelet": "gaussian", "frequency": 10, "sweep_length": 2}),
                    [r"source\.sweep_length: only for wavelet: klauder \(this one is gaussian\)"]),
        "file": (tiny_job({"wavelet": "file"}), [r"source\.file: required key is missing"]),
        "length": (tiny_job({"frequency": 10, "length": 0.3}),
                   [r"source\.length: only for wavelet: ormsby or klauder \(this one is ricker\)"]),
        "short": (tiny_job({"wavelet": "klauder", "frequencies": [5, 40], "sweep_length": 0.001}),
                  [r"source\.sweep_length: a sweep of 0\.001 s holds less than one period of its "
                   r"lower frequency, 5 Hz"]),
    }
    survey = tiny_job({"frequency": 10})
    del survey["source"]["position"]
    del survey["output"]["gather"]
    survey["output"]["directory"] = "shots"
    survey["survey"] = {"shots": [{"position": [150, 150, 150], "wavelet": "klauder",
                                   "frequencies": [8, 40]},
                                  {"position": [150, 150, 140], "file": "x.h5"}]}
    cases["shots"] = (survey, [r"survey\.shots\[0\]\.sweep_length: required key is missing",
                               r"survey\.shots\[1\]\.file: only for wavelet: file \(this one is "
                               r"ricker\)"])
    for name, (job, patterns) in cases.items():
        path = write_job(os.path.join(tmp, name + ".yaml"), job)
        rc, out, err = run(["check", os.path.basename(path)], cwd=tmp)
        check(rc != 0, f"{name}: accepted")
        for pattern in patterns:
            check(re.search(name + r"\.yaml:\d+:\d+: " + pattern, err),
                  f"{name}: no /{pattern}/ in:\n{err}")
    return f"{len(cases)} jobs refused with every problem named"


def test_shot_wavelets_resolve_their_own_defaults_and_names(tmp):
    """A shot changing only a sweep's length gets its own default taper; a
    shot changing only a file's dataset is named by that key in the error;
    a survey's time step follows its shots' wavelets, not the source
    section's default that no shot uses; a windowed wavelet cut at t = 0
    is warned of; a SEG-Y file whose headers disagree on the interval and
    a text file of rounded times are told apart."""
    from testlib import run, write_job

    def survey_of(source, shots):
        job = tiny_job(source)
        del job["source"]["position"]
        del job["output"]["gather"]
        job["output"]["directory"] = "shots"
        job["survey"] = {"shots": shots}
        job["time"]["dt"] = "auto"
        return job

    def check_of(job, name):
        path = write_job(os.path.join(tmp, name + ".yaml"), job)
        return run(["check", os.path.basename(path)], cwd=tmp)

    klauder = {"wavelet": "klauder", "frequencies": [5, 30], "sweep_length": 8}
    rc, out, err = check_of(survey_of(klauder, [{"position": [150, 150, 150]},
                                                {"position": [150, 150, 140],
                                                 "sweep_length": 0.4}]), "taper")
    check(rc == 0, f"a shot's short sweep took the source's taper:\n{err}")
    write_hdf5(os.path.join(tmp, "sig.h5"), ricker_samples(12.0, 0.1, 0.001, 0.2), 0.001)
    rc, out, err = check_of(survey_of({"wavelet": "file", "file": "sig.h5"},
                                      [{"position": [150, 150, 150]},
                                       {"position": [150, 150, 140], "dataset": "nope"}]),
                            "dataset")
    check(rc != 0 and re.search(r"dataset\.yaml:\d+:\d+: survey\.shots\[1\]\.dataset: 'sig\.h5' "
                                r"has no dataset 'nope'", err), f"dataset error:\n{err}")
    steps = {}
    for name, source, shots in [
            ("unused", {"frequency": 40.0}, [{"position": [150, 150, 150], "frequency": 8.0}]),
            ("used", {"frequency": 8.0}, [{"position": [150, 150, 150]}])]:
        rc, out, err = check_of(survey_of(source, shots), name)
        check(rc == 0, f"{name}: {err}")
        steps[name] = re.search(r"dt = ([\d.e-]+) s", out).group(1)
    check(steps["unused"] == steps["used"],
          f"dt follows the unused source section: {steps['unused']} against {steps['used']}")
    rc, out, err = check_of(tiny_job({"wavelet": "ormsby", "frequencies": [5, 10, 30, 45],
                                      "length": 0.2, "delay": 0.05}), "cut")
    check(rc == 0 and re.search(r"source\.frequencies: a delay of 0\.05 s cuts the first 0\.05 s "
                                r"of the 0\.2 s window", err), f"no cut-window warning:\n{err}")
    with open(os.path.join(tmp, "rounded.txt"), "w") as f:
        for k, v in enumerate(ricker_samples(12.0, 0.1, 0.001 / 3, 0.2)):
            f.write(f"{k * 0.001 / 3:.6f} {float(v)!r}\n")
    rc, out, err = check_of(tiny_job({"wavelet": "file", "file": "rounded.txt", "delay": 0}),
                            "rounded")
    check(rc == 0, f"times rounded to 1 us refused:\n{err}")
    notes = "taper, dataset, dt, cut window and rounded times"
    if segyio is not None:
        path = os.path.join(tmp, "clash.sgy")
        write_segy(path, ricker_samples(12.0, 0.1, 0.001, 0.2), 0.001)
        with segyio.open(path, "r+", ignore_geometry=True) as f:
            f.header[0] = {segyio.TraceField.TRACE_SAMPLE_INTERVAL: 2000}
        rc, out, err = check_of(tiny_job({"wavelet": "file", "file": "clash.sgy"}), "clash")
        check(rc != 0 and re.search(r"binary header gives a sample interval of 1000 us and trace "
                                    r"0's header 2000 us", err), f"interval clash:\n{err}")
        notes += ", SEG-Y interval clash"
        # The first sample at the delay recording time (5 ms) times the rev 2
        # time scalar (10): 0.05 s, so the Ricker centred 0.05 s into the
        # trace peaks at 0.1 s.
        path = os.path.join(tmp, "late.sgy")
        write_segy(path, ricker_samples(12.0, 0.05, 0.001, 0.1), 0.001, trace=0)
        with segyio.open(path, "r+", ignore_geometry=True) as f:
            f.header[0] = {segyio.TraceField.DelayRecordingTime: 5,
                           segyio.TraceField.ScalarTraceHeader: 10}
        g = gather_and_wavelet(tmp, tiny_job({"wavelet": "file", "file": "late.sgy", "delay": 0}),
                               "late")
        peak = float(np.argmax(g["wavelet"]) * g["wavelet_dt"])
        check(abs(peak - 0.1) < 1e-9, f"SEG-Y delay recording time and scalar: peak at {peak} s, "
              f"not 0.1 s")
        notes += ", SEG-Y start from the delay recording time and its scalar"
    return notes
