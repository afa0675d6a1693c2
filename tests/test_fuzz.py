"""Fuzz tests of the input readers: mutated job files (configs/*.yaml),
model files (HDF5, SEG-Y, raw) and survey manifests. Seeded (the seed is
in each test's summary; SEISFD_FUZZ_SEED replays another) and bounded
(about a minute in all on 2 cores).

A case passes with a clear error (exit 1, every line of stderr a
`file:line:column:` message or `seisfd: error|warning:`, no traceback, no
MPI_ABORT banner) or a correct result (the job is valid; a run's manifest
records every shot); it fails on a signal, a hang (a timeout) or a
sanitizer report. Most job files go through tests/fuzz_driver.c, which
parses thousands in one process; a sample goes through `seisfd check`.
The cases that found bugs are kept as regular tests (test_config.py,
test_models.py, test_survey.py)."""
import contextlib
import io
import json
import os
import random
import re
import subprocess

import h5py
import numpy as np
import segyio

import testlib
from testlib import check, heavy

SEED = int(os.environ.get("SEISFD_FUZZ_SEED", "20261123"))
DRIVER = os.environ.get("SEISFD_FUZZ_DRIVER", os.path.join(testlib.BIN_DIR, "fuzz_driver"))
SANITIZER = ("runtime error:", "AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer")
CLEAN_LINE = re.compile(r"^(\S.*?:\d+:\d+: |seisfd: (error|warning)[:( ])")

# Values a mutation puts where a number was.
NUMBERS = ["0", "-1", "-0", "1e308", "-1e308", "1e999", "-1e999", "1e-320", ".nan", ".inf",
           "-.inf", "nan", "inf", "0x10", "99999999999999999999", "-99999999999999999999",
           "2147483648", "9223372036854775808", "1e-300", "+5", "1_000", "0o17", "1e3",
           "3.4e38", "NaN", "~", "null", "true", "''", '""']
TAGS = ["!!str", "!!int", "!!float", "!!binary", "!!seq", "!!map", "!!null", "!local", "!",
        "!<tag:yaml.org,2002:int>"]
STRAY = ["\x00", "\xff", "\t", ":", "[", "]", "{", "}", "&", "*", "!", "%", "@", "`", "|", ">",
         "#", ",", "'", '"', "\\", "-", "?", "\r", "\x1b", "\u2028", "\ufeff"]


def seisfd_direct(args, cwd, timeout=60):
    """seisfd on one rank, started without mpirun (MPI's singleton start),
    which a failing run leaves at once; mpirun waits 2 s after a failure."""
    env = dict(os.environ, OMP_NUM_THREADS="1")
    limit = testlib.time_limit(timeout)
    try:
        p = subprocess.run([testlib.SEISFD, *args], cwd=cwd, env=env, capture_output=True,
                           text=True, errors="replace", timeout=limit)
    except subprocess.TimeoutExpired:
        raise testlib.TestFailure(f"seisfd {' '.join(args)} hung (more than {limit:g} s)")
    return p.returncode, p.stdout, p.stderr


def judge(case, rc, out, err, valid_text="is valid"):
    """'ok' or 'error' for a clean outcome; raises on anything else."""
    where = f"case {case}"
    check(rc >= 0, f"{where}: killed by signal {-rc}:\n{err[-3000:]}")
    check(not any(s in err for s in SANITIZER), f"{where}: sanitizer report:\n{err[-3000:]}")
    check("Traceback" not in err and "MPI_ABORT" not in err,
          f"{where}: not a clean error:\n{err[-3000:]}")
    if rc == 0:
        check(valid_text in out, f"{where}: exit 0 without '{valid_text}':\n{out[-2000:]}")
        return "ok"
    check(rc == 1, f"{where}: exit {rc}:\n{err[-3000:]}")
    lines = [line for line in err.splitlines() if line.strip()]
    check(lines, f"{where}: exit 1 without a message")
    for line in lines:
        check(CLEAN_LINE.match(line), f"{where}: not a file:line:column or seisfd message: "
                                      f"{line[:300]!r}\nin:\n{err[-3000:]}")
    return "error"


# ---- mutations of text ----------------------------------------------------


def number_spans(line):
    return [m.span() for m in re.finditer(r"(?<![\w.])-?\d+(\.\d+)?([eE][-+]?\d+)?(?![\w.])",
                                          line)]


def mutate_lines(rng, lines):
    """One mutation of a list of text lines (the job file or manifest)."""
    lines = list(lines)
    i = rng.randrange(len(lines)) if lines else 0
    kind = rng.choice(["delete", "duplicate", "truncate_line", "truncate_file", "stray", "number",
                       "number", "anchor", "tag", "nest", "long", "indent", "swap_keys",
                       "duplicate_block", "empty"])
    if not lines or kind == "empty":
        return [], "empty"
    line = lines[i]
    if kind == "delete":
        del lines[i]
    elif kind == "duplicate":
        lines.insert(i, line)
    elif kind == "truncate_line":
        lines[i] = line[:rng.randrange(len(line) + 1)]
    elif kind == "truncate_file":
        lines = lines[:i] + [line[:rng.randrange(len(line) + 1)]]
    elif kind == "stray":
        at = rng.randrange(len(line) + 1)
        lines[i] = line[:at] + "".join(rng.choice(STRAY) for _ in range(rng.randint(1, 3))) + \
            line[at:]
    elif kind == "number":
        spans = number_spans(line)
        if spans:
            a, b = rng.choice(spans)
            lines[i] = line[:a] + rng.choice(NUMBERS) + line[b:]
    elif kind == "anchor":
        j = rng.randrange(len(lines))
        if ": " in line and ": " in lines[j]:
            lines[i] = line.replace(": ", ": &a ", 1)
            lines[j] = lines[j].split(": ", 1)[0] + ": *a"
    elif kind == "tag":
        if ": " in line:
            lines[i] = line.replace(": ", f": {rng.choice(TAGS)} ", 1)
    elif kind == "nest":
        if ": " in line:
            k = rng.choice([1, 5, 31, 32, 33, 100, 5000])
            opener, closer = rng.choice([("[", "]"), ("{a: ", "}")])
            lines[i] = line.split(": ", 1)[0] + ": " + opener * k + "1" + closer * k
    elif kind == "long":
        n = rng.choice([300, 5000, 200000])
        if ": " in line and rng.random() < 0.5:
            lines[i] = line.split(": ", 1)[0] + ": " + "x" * n
        else:
            lines[i] = "  " + "k" * n + ": 1"
    elif kind == "indent":
        lines[i] = (" " * rng.randint(1, 5) + line) if rng.random() < 0.5 else line.lstrip()
    elif kind == "swap_keys":
        j = rng.randrange(len(lines))
        ki, kj = line.split(":", 1)[0], lines[j].split(":", 1)[0]
        if ":" in line and ":" in lines[j]:
            lines[i], lines[j] = kj + ":" + line.split(":", 1)[1], ki + ":" + lines[j].split(":", 1)[1]
    elif kind == "duplicate_block":
        j = min(len(lines), i + rng.randint(1, 8))
        lines[j:j] = lines[i:j]
    return lines, kind


def mutate_text(rng, text, count=None):
    lines = text.split("\n")
    kinds = []
    for _ in range(count or rng.choice([1, 1, 2, 3])):
        lines, kind = mutate_lines(rng, lines)
        kinds.append(kind)
    data = "\n".join(lines).encode("utf-8", "surrogatepass")
    if rng.random() < 0.05:   # bytes that are not UTF-8
        at = rng.randrange(len(data) + 1)
        data = data[:at] + bytes([rng.choice([0x80, 0xc3, 0xfe, 0xff, 0xed])]) + data[at:]
    return data, "+".join(kinds)


def base_jobs():
    """configs/*.yaml, the survey on one rank a shot (so that 1 rank suffices)."""
    jobs = {}
    for name in sorted(os.listdir(os.path.join(testlib.ROOT, "configs"))):
        if name.endswith(".yaml"):
            with open(os.path.join(testlib.ROOT, "configs", name)) as f:
                jobs[name] = f.read().replace("ranks_per_shot: 2", "ranks_per_shot: 1")
    return jobs


def write_cases(directory, rng, count, jobs):
    os.makedirs(directory, exist_ok=True)
    cases = []
    names = sorted(jobs)
    for n in range(count):
        base = names[n % len(names)]
        data, kinds = mutate_text(rng, jobs[base])
        path = os.path.join(directory, f"case{n:04d}.yaml")
        with open(path, "wb") as f:
            f.write(data)
        cases.append((path, f"{n} ({base}: {kinds})"))
    return cases


def run_driver(mode, args, cwd, timeout=120):
    check(os.path.exists(DRIVER), f"{DRIVER} is missing: build it with make bin/fuzz_driver")
    env = dict(os.environ, OMP_NUM_THREADS="1")
    try:
        p = subprocess.run([DRIVER, mode, *args], cwd=cwd, env=env, capture_output=True,
                           text=True, errors="replace", timeout=testlib.time_limit(timeout))
    except subprocess.TimeoutExpired:
        raise testlib.TestFailure(f"the fuzz driver hung on {mode} inputs")
    return p


def driver_results(p, names):
    """{path: (result, [message lines])}; a crash names the input it was reading."""
    results, current, lines = {}, None, []
    for line in p.stderr.splitlines():
        if line.startswith("@@ begin "):
            current, lines = line[len("@@ begin "):], []
        elif line.startswith("@@ end "):
            _, _, n, path = line.split(" ", 3)
            results[path] = (int(n), lines)
            current = None
        else:
            lines.append(line)
    if p.returncode != 0 or any(s in p.stderr for s in SANITIZER):
        raise testlib.TestFailure(
            f"the fuzz driver exited {p.returncode} while reading "
            f"{names.get(current, current)}:\n{p.stderr[-3000:]}")
    return results


def test_job_files_in_process(tmp):
    """Mutated job files through sf_config_parse: every problem is a
    message at file:line:column of its file, none when there is none."""
    rng = random.Random(SEED)
    cases = write_cases(os.path.join(tmp, "jobs"), rng, 1500, base_jobs())
    names = dict(cases)
    counts = {"valid": 0, "refused": 0}
    for first in range(0, len(cases), 500):
        batch = [path for path, _ in cases[first:first + 500]]
        results = driver_results(run_driver("config", batch, tmp), names)
        for path in batch:
            check(path in results, f"case {names[path]}: no result")
            problems, lines = results[path]
            check(problems >= 0, f"case {names[path]}: unreadable: {lines}")
            check((problems == 0) == (not lines),
                  f"case {names[path]}: {problems} problems but messages {lines[:5]}")
            for line in lines:
                check(line.startswith(path + ":") and re.match(r"\d+:\d+: ", line[len(path) + 1:]),
                      f"case {names[path]}: not a file:line:column message: {line[:300]!r}")
            counts["valid" if problems == 0 else "refused"] += 1
    return f"seed {SEED}: {len(cases)} mutated jobs, {counts['valid']} valid, " \
           f"{counts['refused']} refused with file:line:column messages"


def test_job_files_through_check(tmp):
    """A sample of the mutations through seisfd check: stage-2 checks too
    (model, rank count, memory), with seisfd's own exit and messages."""
    rng = random.Random(SEED + 1)
    cases = write_cases(os.path.join(tmp, "jobs"), rng, 36, base_jobs())
    counts = {"ok": 0, "error": 0}
    for path, name in cases:
        rc, out, err = seisfd_direct(["check", os.path.basename(path)], os.path.dirname(path))
        counts[judge(name, rc, out, err)] += 1
    return f"seed {SEED + 1}: {len(cases)} jobs, {counts['ok']} valid, {counts['error']} refused"


# ---- model files ------------------------------------------------------------

GRID = (12, 10, 11)   # nx, ny, nz


def model_job(model):
    nx, ny, nz = GRID
    job = testlib.base_job(n=GRID, h=10.0, cpml=2, dt=0.001, duration=0.002,
                           source=[55.0, 45.0, 50.0], receivers=[[65.0, 45.0, 50.0]])
    job["model"] = dict(model, extend=True)
    return job


def flip(rng, data, lo, hi, count):
    data = bytearray(data)
    hi = min(hi, len(data))
    for _ in range(count):
        if hi > lo:
            data[rng.randrange(lo, hi)] = rng.randrange(256)
    return bytes(data)


def hdf5_cases(tmp, rng, v):
    """(file name, bytes or a writer) of broken HDF5 models."""
    path = os.path.join(tmp, "good.h5")
    with h5py.File(path, "w") as f:
        f["vp"] = v
    good = open(path, "rb").read()
    cases = []
    for n in range(8):
        cases.append(("cut", good[:rng.randrange(len(good))]))
    for n in range(8):
        cases.append(("header", flip(rng, good, 0, 2048, rng.randint(1, 8))))
    for n in range(3):
        cases.append(("anywhere", flip(rng, good, 0, len(good), rng.randint(1, 30))))

    def dataset(data, **kw):
        def write(p):
            with h5py.File(p, "w") as f:
                f.create_dataset("vp", data=data, **kw)
        return write
    for dtype in ("i1", "u2", "f8", "f2", "?", "c8"):
        cases.append((f"dtype-{dtype}", dataset(v.astype(dtype) if dtype != "?" else v > 0)))
    cases.append(("text", dataset(np.array([b"fast rock"] * 4))))
    cases.append(("rank1", dataset(v.ravel())))
    cases.append(("rank4", dataset(v[None])))
    cases.append(("scalar", dataset(np.float32(2000))))
    cases.append(("small", dataset(v[:2, :2, :2])))
    return cases


def segy_good(tmp, v):
    path = os.path.join(tmp, "good.sgy")
    with contextlib.redirect_stdout(io.StringIO()):
        segyio.tools.from_array(path, np.ascontiguousarray(np.moveaxis(v, 0, -1)), format=5)
    return open(path, "rb").read()


def segy_cases(tmp, rng, v):
    good = segy_good(tmp, v)
    cases = [("cut", good[:rng.randrange(len(good))]) for _ in range(6)]
    for _ in range(4):   # samples per trace (bytes 3221-3222) and format (3225-3226)
        data = bytearray(good)
        data[3220:3222] = rng.choice([0, 1, 5, 32768, 65535]).to_bytes(2, "big")
        cases.append(("samples", bytes(data)))
    for code in (0, 2, 3, 4, 6, 8, 16, 255):
        data = bytearray(good)
        data[3224:3226] = code.to_bytes(2, "big")
        cases.append((f"format-{code}", bytes(data)))
    for _ in range(4):
        cases.append(("binary", flip(rng, good, 3200, 3600, rng.randint(1, 6))))
    for _ in range(4):   # inline and crossline numbers of the first traces
        cases.append(("lines", flip(rng, good, 3600, 3600 + 4 * (240 + 4 * GRID[2]), 8)))
    cases.append(("anywhere", flip(rng, good, 0, len(good), 40)))
    return cases


def raw_cases(rng, v):
    good = v.astype("<f4").tobytes()
    cases = [("cut", good[:rng.randrange(len(good))]) for _ in range(3)]
    cases.append(("long", good + b"\0" * rng.randint(1, 64)))
    cases.append(("big-endian", v.astype(">f4").tobytes()))
    cases.append(("garbage", bytes(rng.randrange(256) for _ in range(len(good)))))
    cases.append(("nan", np.full(v.shape, np.nan, "<f4").tobytes()))
    cases.append(("f8", v.astype("<f8").tobytes()))
    return cases


@heavy
def test_model_files(tmp):
    """Broken HDF5, SEG-Y and raw models through seisfd check: truncated
    files, flipped header fields, wrong sizes, wrong sample formats and
    dtypes, wrong ranks."""
    rng = random.Random(SEED + 2)
    nx, ny, nz = GRID
    v = (2000 + 10 * np.arange(nx * ny * nz, dtype=np.float32) % 500).reshape(nz, ny, nx)
    jobs = []
    for n, (what, data) in enumerate(hdf5_cases(tmp, rng, v)):
        jobs.append((f"hdf5 {n} {what}", f"m{n}.h5", data, {"type": "hdf5"}))
    for n, (what, data) in enumerate(segy_cases(tmp, rng, v)):
        jobs.append((f"segy {n} {what}", f"m{n}.sgy", data,
                     {"type": "segy", "spacing": [10, 10, 10]}))
    for n, (what, data) in enumerate(raw_cases(rng, v)):
        jobs.append((f"raw {n} {what}", f"m{n}.bin", data, {"type": "raw", "dims": [nx, ny, nz],
                                                          "endian": "little"}))
    counts = {"ok": 0, "error": 0}
    for case, name, data, model in jobs:
        path = os.path.join(tmp, name)
        if callable(data):
            data(path)
        else:
            with open(path, "wb") as f:
                f.write(data)
        job = testlib.write_job(os.path.join(tmp, "job.yaml"), model_job(dict(model, path=name)))
        rc, out, err = seisfd_direct(["check", os.path.basename(job)], tmp)
        counts[judge(case, rc, out, err)] += 1
    return f"seed {SEED + 2}: {len(jobs)} model files, {counts['ok']} read, " \
           f"{counts['error']} refused"


# ---- survey manifests -------------------------------------------------------


def survey_job():
    job = testlib.base_job(n=(20, 16, 16), h=10.0, cpml=3, dt=0.001, duration=0.01,
                           receivers=[[120.0, 80.0, 80.0]])
    del job["source"]["position"]
    del job["output"]["gather"]
    job["survey"] = {"shots": [{"position": [80.0, 75.0, 70.0]}, {"position": [90.0, 75.0, 70.0]}]}
    job["output"] = {"directory": "out", "overwrite": True}
    return job


def mutate_manifest(rng, text):
    """Torn, garbled and duplicated lines, strange values."""
    lines = text.rstrip("\n").split("\n")
    choice = rng.random()
    if choice < 0.2:
        records = [json.loads(line) for line in lines]
        r = rng.choice(records)
        key = rng.choice(sorted(r))
        r[key] = rng.choice([1e300, -1e300, -5, 0, 2.5, 2 ** 63, "x", None, [], {}, True,
                             "../../etc/passwd", "0" * 5000, [[[[[[1]]]]]]])
        lines = [json.dumps(x) for x in records]
        return "\n".join(lines) + "\n", f"value {key}"
    data, kinds = mutate_text(rng, "\n".join(lines) + "\n")
    return data.decode("utf-8", "replace"), kinds


def test_manifests(tmp):
    """A survey's manifest torn, garbled, duplicated or with strange values:
    read in process, then through seisfd check and seisfd run (which must
    end with every shot recorded done, or refuse cleanly)."""
    rng = random.Random(SEED + 3)
    testlib.write_job(os.path.join(tmp, "survey.yaml"), survey_job())
    rc, out, err = seisfd_direct(["run", "survey.yaml"], tmp)
    check(rc == 0, f"the survey to mutate failed:\n{err[-3000:]}")
    with open(os.path.join(tmp, "out", "manifest.jsonl")) as f:
        good = f.read()
    files = [name for name in os.listdir(os.path.join(tmp, "out")) if name.endswith(".h5")]
    cases = []
    for n in range(300):
        text, kinds = mutate_manifest(rng, good)
        directory = os.path.join(tmp, "m", f"{n:03d}")
        os.makedirs(directory)
        with open(os.path.join(directory, "manifest.jsonl"), "w", errors="surrogateescape") as f:
            f.write(text)
        cases.append((directory, f"{n} ({kinds})"))
    names = dict(cases)
    results = driver_results(run_driver("manifest", ["2"] + [d for d, _ in cases], tmp), names)
    for directory, name in cases:
        check(directory in results, f"case {name}: no result")
    checked = ran = 0
    for directory, name in cases[:16]:
        for f in files:   # the shots' files beside each mutated manifest
            os.link(os.path.join(tmp, "out", f), os.path.join(directory, f))
        job = survey_job()
        job["output"]["directory"] = os.path.relpath(directory, tmp)
        testlib.write_job(os.path.join(tmp, "case.yaml"), job)
        rc, out, err = seisfd_direct(["check", "case.yaml"], tmp)
        judge(name, rc, out, err)
        checked += 1
        if rc == 0 and ran < 4:
            rc, out, err = seisfd_direct(["run", "case.yaml"], tmp)
            if judge(name, rc, out, err, valid_text="report") == "ok":
                check_all_done(tmp, directory, name)
            ran += 1
    return f"seed {SEED + 3}: {len(cases)} manifests read in process, {checked} checked, " \
           f"{ran} run"


def test_manifest_numbers_beyond_their_types(tmp):
    """Found by fuzzing the manifest: a shot number, group or file size of
    1e300 (or NaN) was converted to long or int, which is undefined. Such a
    line is ignored and a size that cannot be a file's never verifies: both
    shots are computed again, and the run records them done."""
    testlib.write_job(os.path.join(tmp, "survey.yaml"), survey_job())
    rc, out, err = seisfd_direct(["run", "survey.yaml"], tmp)
    check(rc == 0, f"the survey failed:\n{err[-3000:]}")
    path = os.path.join(tmp, "out", "manifest.jsonl")
    with open(path) as f:
        lines = [json.loads(line) for line in f]
    for record in lines[1:]:
        if record["shot"] == 1:
            record["shot"], record["group"] = 1e300, float("nan")
        else:
            record["group"], record["files"][0]["size"] = 1e300, -1e300
    with open(path, "w") as f:
        f.writelines(json.dumps(record) + "\n" for record in lines)
    rc, out, err = seisfd_direct(["check", "survey.yaml"], tmp)
    judge("numbers", rc, out, err)
    check("manifest found: 0 shots done and verified (skipped), 2 to compute" in out,
          f"the garbled lines were taken:\n{out}\n{err}")
    rc, out, err = seisfd_direct(["run", "survey.yaml"], tmp)
    judge("numbers", rc, out, err, valid_text="report")
    check_all_done(tmp, os.path.join(tmp, "out"), "numbers", job="survey.yaml")


def check_all_done(tmp, directory, name, job="case.yaml"):
    """After a run, seisfd itself reads the manifest as recording every
    shot done and verified, and each gather reads back."""
    rc, out, err = seisfd_direct(["check", job], tmp)
    judge(name, rc, out, err)
    check("manifest found: 2 shots done and verified (skipped), 0 to compute" in out,
          f"case {name}: not every shot is done after the run:\n{out}\n{err}")
    for shot in (1, 2):
        with h5py.File(os.path.join(directory, f"shot_{shot:04d}.h5"), "r") as f:
            check(f["traces"].shape[-1] > 0, f"case {name}: shot {shot} has no samples")
