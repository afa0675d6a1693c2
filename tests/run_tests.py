#!/usr/bin/env python3
"""seisfd test suite: the C unit tests, then the end-to-end tests of the
tests/test_*.py modules. Prints one line per test and a final summary
"N passed, N failed, N skipped", followed where tests were skipped by how
many of them need a GPU: "(N need a GPU, N other)". Usage: run_tests.py
[--long] [name-substring ...]
where a substring "-x" leaves out the tests whose names contain x, and
--long runs the long matrix (tests/test_long_matrix.py) instead."""
import ast
import importlib
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

from testlib import BIN_DIR, NeedsGpu, Skipped, TestFailure, check_sanitizers  # noqa: E402  (the path above)

MODULES = ["test_conformance", "test_physics", "test_attenuation", "test_cpml_stability", "test_time_accuracy", "test_mixed_precision", "test_wavelets", "test_elastic", "test_elastic_outputs", "test_anisotropic", "test_physics_list", "test_config", "test_cli", "test_output",
           "test_models", "test_snapshots", "test_segy", "test_plot", "test_survey", "test_signals", "test_scaling",
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
LONG_MODULES = ["test_long_matrix", "test_attenuation_long"]


def main():
    wanted = sys.argv[1:]
    modules = MODULES
    if wanted[:1] == ["--long"]:
        wanted, modules = wanted[1:], LONG_MODULES
    counts = {"passed": 0, "failed": 0, "skipped": 0, "skipped_gpu": 0}
    started = time.time()
    if modules is MODULES:
        run_unit_tests(counts, wanted)
    for module_name in modules:
        names = [n for n in test_names(module_name) if selected(f"{module_name[5:]}.{n[5:]}", wanted)]
        if not names:
            continue
        module = importlib.import_module(module_name)
        for name in names:
            full = f"{module_name[5:]}.{name[5:]}"
            tmp = tempfile.mkdtemp(prefix="seisfd-test-")
            t0 = time.time()
            try:
                summary = getattr(module, name)(tmp)
                counts["passed"] += 1
                note = f": {summary}" if summary else ""
                print(f"ok      {full} ({time.time() - t0:.1f} s){note}", flush=True)
            except Skipped as skip:
                counts["skipped"] += 1
                counts["skipped_gpu"] += isinstance(skip, NeedsGpu)
                print(f"skipped {full}: {skip}", flush=True)
            except Exception as e:  # a failing test must not stop the suite
                counts["failed"] += 1
                detail = str(e) if isinstance(e, AssertionError) else traceback.format_exc()
                print(f"FAILED  {full} ({time.time() - t0:.1f} s): {detail}", flush=True)
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
    print(f"# {time.time() - started:.0f} s")
    print(summary_line(counts))
    return 1 if counts["failed"] else 0


if __name__ == "__main__":
    sys.exit(main())
