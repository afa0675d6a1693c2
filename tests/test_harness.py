"""Tests of the suite itself: the time scale on its limits and its last
line."""
import json
import os
import re
import subprocess
import sys
import time

from testlib import TIME_SCALE_VARIABLE, check, time_limit

HERE = os.path.dirname(os.path.abspath(__file__))


def python_with_scale(scale, code, env=None):
    """Runs code in a fresh Python (testlib reads the scale when imported)
    with SEISFD_TEST_TIME_SCALE set to scale."""
    env = dict(os.environ, **(env or {}), **{TIME_SCALE_VARIABLE: scale})
    return subprocess.run([sys.executable, "-c", f"import sys; sys.path.insert(0, {HERE!r})\n" + code],
                          env=env, capture_output=True, text=True, timeout=time_limit(60))


def test_time_scale_bounds_a_run(tmp):
    """testlib.run's limit of 300 s becomes 0.6 s at a scale of 0.002: a
    launcher that takes 30 s is stopped after it, the failure naming the
    scaled limit; at a scale of 2 the limits double."""
    launcher = os.path.join(tmp, "slow-launcher")
    with open(launcher, "w") as f:
        f.write("#!/bin/sh\nexec sleep 30\n")
    os.chmod(launcher, 0o755)
    code = ("import testlib\n"
            "try:\n"
            "    testlib.run(['--version'])\n"
            "except testlib.TestFailure as e:\n"
            "    print(e)\n")
    started = time.time()
    p = python_with_scale("0.002", code, {"MPIRUN": launcher, "MPIRUN_FLAGS": ""})
    took = time.time() - started
    check(p.returncode == 0 and "did not finish within 0.6 s" in p.stdout,
          f"exit {p.returncode}:\n{p.stdout}\n{p.stderr}")
    check(took < 20, f"the scaled limit did not stop the run: {took:.1f} s")
    p = python_with_scale("2", "import testlib; print(testlib.time_limit(300), testlib.TIME_SCALE)")
    check(p.returncode == 0 and p.stdout.split() == ["600.0", "2.0"], f"{p.stdout}\n{p.stderr}")
    return f"300 s at 0.002: stopped after {took:.1f} s; at 2: 600 s"


def test_bad_time_scale_is_one_clear_error(tmp):
    """A scale that is not a positive finite number stops the suite
    before any test with one line naming the variable and the value."""
    for value in ("abc", "", "0", "-1", "nan", "inf", "1e999", "2s"):
        env = dict(os.environ, **{TIME_SCALE_VARIABLE: value})
        p = subprocess.run([sys.executable, os.path.join(HERE, "run_tests.py"), "harness."],
                           env=env, capture_output=True, text=True, timeout=time_limit(60))
        expected = (f"tests: error: {TIME_SCALE_VARIABLE}={value!r}: must be a positive finite "
                    f"number, the factor on every time limit of the tests")
        check(p.returncode != 0 and p.stdout == "" and p.stderr.startswith(expected)
              and p.stderr.count("\n") == 1, f"{value!r}: exit {p.returncode}:\n{p.stdout}{p.stderr}")
    return "abc, empty, 0, -1, nan, inf, 1e999, 2s refused"


def test_summary_line_counts_skips_by_reason(tmp):
    """The last line always has the three counts, and where tests were
    skipped how many need a GPU; a real run of two GPU tests says so."""
    from run_tests import summary_line
    cases = [((211, 2, 0, 0), "211 passed, 2 failed, 0 skipped"),
             ((211, 0, 27, 25), "211 passed, 0 failed, 27 skipped (25 need a GPU, 2 other)"),
             ((5, 1, 3, 0), "5 passed, 1 failed, 3 skipped (0 need a GPU, 3 other)")]
    for (passed, failed, skipped, gpu), line in cases:
        got = summary_line({"passed": passed, "failed": failed, "skipped": skipped,
                            "skipped_gpu": gpu})
        check(got == line, f"{got!r}, not {line!r}")
    p = subprocess.run([sys.executable, os.path.join(HERE, "run_tests.py"),
                        "gpu.one_rank_matches_cpu", "gpu.two_ranks_on_two_gpus"],
                       capture_output=True, text=True, timeout=time_limit(300))
    lines = p.stdout.splitlines()
    check(p.returncode == 0 and lines, f"exit {p.returncode}:\n{p.stdout}\n{p.stderr[-2000:]}")
    skips = [line for line in lines if line.startswith("skipped ")]
    check(all(re.search(r": (needs \d GPUs?, \d+ visible|this build of seisfd has no CUDA "
                        r"backend)", s) for s in skips), f"skips without their reason:\n{p.stdout}")
    # A machine with GPUs runs what it can; here, with none, both skip.
    n = len(skips)
    tail = f"{n} skipped" + (f" ({n} need a GPU, 0 other)" if n else "")
    check(re.fullmatch(rf"\d+ passed, 0 failed, {re.escape(tail)}", lines[-1]),
          f"last line {lines[-1]!r}, not ending '{tail}'")
    return lines[-1]


def test_bad_worker_count_is_one_clear_error(tmp):
    """SEISFD_TEST_WORKERS that is not a whole number of 1 or more stops
    the suite before any test with one line naming it and the value."""
    from run_tests import WORKERS_VARIABLE
    for value in ("0", "-1", "", "two", "1.5"):
        env = dict(os.environ, **{WORKERS_VARIABLE: value})
        p = subprocess.run([sys.executable, os.path.join(HERE, "run_tests.py"), "harness."],
                           env=env, capture_output=True, text=True, timeout=time_limit(60))
        expected = f"tests: error: {WORKERS_VARIABLE}={value!r}: must be a whole number"
        check(p.returncode != 0 and p.stdout == "" and p.stderr.startswith(expected)
              and p.stderr.count("\n") == 1, f"{value!r}: exit {p.returncode}:\n{p.stdout}{p.stderr}")
    return "0, -1, empty, two, 1.5 refused"


def test_side_by_side_tests_report_as_one_at_a_time(tmp):
    """Two tests that share the machine and one that runs alone: two
    workers report them as one does, each test's line (but its time), the
    summary and the exit status."""
    from run_tests import WORKERS_VARIABLE
    chosen = ["config.yaml_tags", "config.gpu_aware_mpi_key_and_variable",
              "harness.bad_time_scale"]
    results = {}
    for workers in ("1", "2"):
        env = dict(os.environ, **{WORKERS_VARIABLE: workers, TIME_SCALE_VARIABLE: "1"})
        p = subprocess.run([sys.executable, os.path.join(HERE, "run_tests.py"), *chosen],
                           env=env, capture_output=True, text=True, timeout=time_limit(300))
        lines = p.stdout.splitlines()
        tests = sorted(re.sub(r" \([\d.]+ s\)", "", line) for line in lines[:-2])
        results[workers] = (p.returncode, tests, lines[-1:])
    check(results["1"] == results["2"]
          and results["1"][::2] == (0, ["3 passed, 0 failed, 0 skipped"]),
          f"one worker: {results['1']}\ntwo workers: {results['2']}")
    # Tests that fail: their runs' limits scaled to microseconds.
    for workers in ("1", "2"):
        env = dict(os.environ, **{WORKERS_VARIABLE: workers, TIME_SCALE_VARIABLE: "1e-6"})
        p = subprocess.run([sys.executable, os.path.join(HERE, "run_tests.py"),
                            "config.yaml_tags", "harness.bad_time_scale"], env=env,
                           capture_output=True, text=True, timeout=time_limit(300))
        failed = sorted(line.split(" (")[0] for line in p.stdout.splitlines()
                        if line.startswith("FAILED"))
        check(p.returncode == 1 and failed == ["FAILED  config.yaml_tags",
                                               "FAILED  harness.bad_time_scale_is_one_clear_error"]
              and p.stdout.endswith("0 passed, 2 failed, 0 skipped\n"),
              f"{workers} workers, a failing test: exit {p.returncode}:\n{p.stdout[-3000:]}")
    return "3 tests, 1 and 2 workers alike; a failure reported by both"


def test_heavy_tests_start_first(tmp):
    """The tests marked heavy start before the others, each kind in the
    suite's order."""
    import types
    from run_tests import heavy_first
    from testlib import heavy
    module = types.SimpleNamespace(a=lambda: None, b=heavy(lambda: None), c=lambda: None,
                                   d=heavy(lambda: None))
    order = [t[0] for t in heavy_first([(n, module, n) for n in "abcd"])]
    check(order == ["b", "d", "a", "c"], f"started in the order {order}")
    return "b, d, a, c"


def test_cpu_tests_run_with_the_devices_hidden(tmp):
    """On a machine with GPUs `auto` would run a test's jobs there, while
    its checks are the CPU backend's: the runner hides the GPUs
    (CUDA_VISIBLE_DEVICES empty) from every test but the GPU tests, which
    see what the suite was given."""
    code = ("import json, os, types\n"
            "import run_tests\n"
            "module = types.ModuleType('test_fake')\n"
            "def seen(tmp): return os.environ.get('CUDA_VISIBLE_DEVICES', 'unset')\n"
            "module.test_plain = module.test_gpu_rows = seen\n"
            "out = {}\n"
            "for name in ('test_plain', 'test_gpu_rows'):\n"
            "    pid, path = run_tests.start_test(module, name, 1, 1.0)\n"
            "    _, status = os.waitpid(pid, 0)\n"
            "    out[name] = run_tests.collect(pid, path, status)[1]\n"
            "print(json.dumps(out))\n")
    p = python_with_scale("1", code, {"CUDA_VISIBLE_DEVICES": "3"})
    lines = p.stdout.strip().splitlines()
    seen = json.loads(lines[-1]) if p.returncode == 0 and lines else None
    check(seen == {"test_plain": "", "test_gpu_rows": "3"},
          f"exit {p.returncode}, seen {seen}:\n{p.stdout}\n{p.stderr[-2000:]}")
    return "a test sees CUDA_VISIBLE_DEVICES '', a GPU test the suite's '3'"
