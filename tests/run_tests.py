#!/usr/bin/env python3
"""seisfd test suite: the C unit tests, then the end-to-end tests of the
tests/test_*.py modules, one more at a time than the machine has cores
(SEISFD_TEST_WORKERS sets how many), each with its share of the cores.
Prints one line per test as it ends and a final summary "N passed, N
failed, N skipped", followed where tests were skipped by how many of them
need a GPU: "(N need a GPU, N other)". Usage: run_tests.py [--long]
[name-substring ...]
where a substring "-x" leaves out the tests whose names contain x, and
--long runs the long tests (LONG_MODULES) instead."""
import ast
import importlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, HERE)

import testlib  # noqa: E402  (the path above)
from testlib import BIN_DIR, NeedsGpu, Skipped, TestFailure, check_sanitizers  # noqa: E402

MODULES = ["test_conformance", "test_physics", "test_attenuation", "test_cpml_stability", "test_time_accuracy", "test_mixed_precision", "test_wavelets", "test_elastic", "test_elastic_outputs", "test_anisotropic", "test_physics_list", "test_config", "test_cli", "test_output",
           "test_models", "test_snapshots", "test_segy", "test_plot", "test_survey", "test_signals", "test_scaling", "test_setup_times",
           "test_decomposition", "test_guard", "test_long_runs", "test_threads",
           "test_fuzz", "test_readme", "test_docs_claims", "test_harness", "test_deps_bundle", "test_gpu"]


UNIT_BINARIES = ["unit_tests", "mpich_stub_test"]
# Built where UCX's headers are (libucx-dev): the Open MPI + UCX query.
UCX_STUB_TEST = ("ompi_ucx_stub_test", "unit.open_mpi_ucx_query_decides_auto")


def run_unit_tests(counts, wanted):
    for name in UNIT_BINARIES:
        run_unit_binary(os.path.join(BIN_DIR, name), counts, wanted)
    binary, test = UCX_STUB_TEST
    if os.path.exists(os.path.join(BIN_DIR, binary)):
        os.environ.setdefault("SEISFD_UCX_STUB", os.path.join(BIN_DIR, "ucx_stub"))
        run_unit_binary(os.path.join(BIN_DIR, binary), counts, wanted)
    elif selected(test, wanted):
        counts["skipped"] += 1
        print(f"skipped {test}: seisfd was built without UCX's headers (libucx-dev)", flush=True)


def run_unit_binary(binary, counts, wanted):
    p = subprocess.run([binary], capture_output=True, text=True)
    try:
        check_sanitizers(p.stderr, os.path.basename(binary))
    except TestFailure as e:
        counts["failed"] += 1
        print(f"FAILED {e}", flush=True)
    seen = 0
    for line in p.stdout.splitlines():
        status, _, rest = line.partition(" ")
        name = rest.split(":")[0]
        if status not in ("PASS", "FAIL") or not selected(name, wanted):
            continue
        seen += 1
        counts["passed" if status == "PASS" else "failed"] += 1
        print(("ok     " if status == "PASS" else "FAILED ") + rest, flush=True)
    reported_failure = any(line.startswith("FAIL") for line in p.stdout.splitlines())
    crashed = p.returncode != 0 and not reported_failure
    if crashed or (seen == 0 and not wanted):
        counts["failed"] += 1
        print(f"FAILED {os.path.basename(binary)} exited {p.returncode}: {p.stderr[-2000:]}",
              flush=True)


def selected(name, wanted):
    """A name is run when it contains one of the wanted substrings (or
    none is given) and none of the excluded ones ("-substring")."""
    included = [w for w in wanted if not w.startswith("-")]
    excluded = [w[1:] for w in wanted if w.startswith("-")]
    return ((not included or any(w in name for w in included))
            and not any(w in name for w in excluded))


def test_names(module_name):
    """The module's test functions, read without importing it, so that a
    filtered run (make test-gpu on a machine without segyio, say) imports
    only the modules it runs."""
    with open(os.path.join(HERE, module_name + ".py")) as f:
        tree = ast.parse(f.read())
    return sorted(node.name for node in tree.body
                  if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"))


def summary_line(counts):
    """The suite's last line; the same three counts whatever happened, so
    that a script can read it."""
    line = f"{counts['passed']} passed, {counts['failed']} failed, {counts['skipped']} skipped"
    if counts["skipped"]:
        reasons = [f"{counts['skipped_gpu']} need a GPU",
                   f"{counts['skipped'] - counts['skipped_gpu']} other"]
        line += f" ({', '.join(reasons)})"
    return line


# Hours rather than minutes: run by make test-long and test-long-gpu only.
LONG_MODULES = ["test_long_matrix", "test_attenuation_long", "test_time_accuracy_long"]

# Tests that time themselves against each other or the machine (threads,
# the time scale), run make or the README's commands in the
# source tree (a make run with other flags than the suite's rebuilds the
# binaries the other tests run), or use the GPU: each runs alone with
# every core; so does a test marked testlib.alone.
ALONE_MODULES = {"test_threads", "test_harness", "test_readme", "test_cli",
                 "test_deps_bundle", "test_gpu"}
WORKERS_VARIABLE = "SEISFD_TEST_WORKERS"


def uses_gpu(module, name):
    """The GPU tests: tests/test_gpu.py and every test named for the GPU."""
    return module.__name__ == "test_gpu" or "gpu" in name


def runs_alone(module, name):
    return (module.__name__ in ALONE_MODULES or uses_gpu(module, name) or
            getattr(getattr(module, name), "runs_alone", False))


def worker_count():
    """Tests run side by side, each with its share of the cores: most of
    the suite's runs are small grids that one thread steps as fast as two
    (a 40^3 box: 1.69 s on one thread, 1.87 s on two). One test more than
    the cores fills the time a test spends off them, launching its runs
    and reading their outputs (on 2 cores, 3 at a time against 2: 49 s
    against 61 s for the survey, output, model and config tests, 124 s
    against 136 s for the long-run and anisotropic ones)."""
    text = os.environ.get(WORKERS_VARIABLE)
    if text is None:
        return (os.cpu_count() or 1) + 1
    if not text.isdigit() or int(text) < 1:
        raise SystemExit(f"tests: error: {WORKERS_VARIABLE}={text!r}: must be a whole number of "
                         f"tests to run at once, 1 or more")
    return int(text)


def execute(module, name):
    """Runs one test in a temporary folder: ("passed", its summary),
    ("skipped", why, needs a GPU) or ("failed", what)."""
    tmp = tempfile.mkdtemp(prefix="seisfd-test-")
    try:
        return ("passed", getattr(module, name)(tmp) or "", False)
    except Skipped as skip:
        return ("skipped", str(skip), isinstance(skip, NeedsGpu))
    except Exception as e:  # a failing test must not stop the suite
        return ("failed", str(e) if isinstance(e, AssertionError) else traceback.format_exc(), False)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def start_test(module, name, cores, scale):
    """Forks a process that runs the test with `cores` cores for its runs
    and time limits scaled by `scale`; it leaves its result in a file. A
    test other than the GPU tests sees no GPU: its checks are the CPU
    backend's (stored CPU gathers, the CPU's set-up lines), which `auto`
    would otherwise leave for the GPU on a machine that has one."""
    fd, result_path = tempfile.mkstemp(prefix="seisfd-test-result-")
    os.close(fd)
    pid = os.fork()
    if pid == 0:
        code = 0
        try:
            if not uses_gpu(module, name):
                os.environ["CUDA_VISIBLE_DEVICES"] = ""
            os.environ[testlib.CORES_VARIABLE] = str(cores)
            testlib.TIME_SCALE = scale
            with open(result_path, "w") as f:
                json.dump(execute(module, name), f)
        except BaseException:
            code = 1
        finally:
            sys.stdout.flush()
            os._exit(code)
    return pid, result_path


def collect(pid, result_path, status):
    """The result a test's process left, or why it left none."""
    try:
        with open(result_path) as f:
            return tuple(json.load(f))
    except (OSError, ValueError):
        return ("failed", f"the test's process ended without a result (wait status {status})", False)
    finally:
        os.unlink(result_path)


def report(counts, full, result, seconds):
    kind, text, needs_gpu = result
    if kind == "passed":
        counts["passed"] += 1
        note = f": {text}" if text else ""
        print(f"ok      {full} ({seconds:.1f} s){note}", flush=True)
    elif kind == "skipped":
        counts["skipped"] += 1
        counts["skipped_gpu"] += needs_gpu
        print(f"skipped {full}: {text}", flush=True)
    else:
        counts["failed"] += 1
        print(f"FAILED  {full} ({seconds:.1f} s): {text}", flush=True)


def run_batch(tests, counts, at_once):
    """Runs (full name, module, function name) tests, up to `at_once` at
    a time, each with that share of the cores and its time limits widened
    by as much."""
    cores = os.cpu_count() or 1
    scale = testlib.TIME_SCALE * at_once
    queue, running = list(tests), {}
    while queue or running:
        while queue and len(running) < at_once:
            full, module, name = queue.pop(0)
            pid, path = start_test(module, name, max(1, cores // at_once), scale)
            running[pid] = (full, path, time.time())
        pid, status = os.wait()
        if pid not in running:
            continue
        full, path, t0 = running.pop(pid)
        report(counts, full, collect(pid, path, status), time.time() - t0)


def heavy_first(tests):
    """(full name, module, function name) tests, those marked testlib.heavy
    first, each kind in its order."""
    return sorted(tests, key=lambda t: not getattr(getattr(t[1], t[2]), "heavy", False))


def run_tests(tests, counts, workers):
    """The tests, `workers` at a time, the heavy ones first; then those that
    run alone, one at a time with the machine."""
    alone = [t for t in tests if runs_alone(t[1], t[2])]
    run_batch(heavy_first([t for t in tests if t not in alone]), counts, workers)
    run_batch(alone, counts, 1)


def main():
    wanted = sys.argv[1:]
    modules = MODULES
    if wanted[:1] == ["--long"]:
        wanted, modules = wanted[1:], LONG_MODULES
    counts = {"passed": 0, "failed": 0, "skipped": 0, "skipped_gpu": 0}
    started = time.time()
    workers = worker_count()
    if modules is MODULES:
        run_unit_tests(counts, wanted)
    tests = []
    for module_name in modules:
        names = [n for n in test_names(module_name) if selected(f"{module_name[5:]}.{n[5:]}", wanted)]
        if names:
            module = importlib.import_module(module_name)
            tests += [(f"{module_name[5:]}.{n[5:]}", module, n) for n in names]
    run_tests(tests, counts, workers)
    print(f"# {time.time() - started:.0f} s")
    print(summary_line(counts))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
