"""OpenMP threads per rank: without OMP_NUM_THREADS each rank takes its
share of the host's cores, no more than it is bound to, at least 1, so
that twice as many ranks as cores run about as fast as one a core; a set
OMP_NUM_THREADS is kept and named; one warning, naming the launcher's
flags that fix it, when the binding leaves cores idle or the threads
outnumber the cores; and `make run` launches a job as this user needs."""
import os
import re
import subprocess
import time

from testlib import (BIN_DIR, MPIRUN, MPIRUN_FLAGS, ROOT, SEISFD, Skipped, base_job, check,
                     check_sanitizers, time_limit, write_job)

# The variables that set or pin OpenMP threads, which every launch here
# leaves out unless the test sets them (testlib's launches set one).
OPENMP_VARIABLES = ("OMP_NUM_THREADS", "OMP_PROC_BIND", "OMP_PLACES")
THREADS_LINE = re.compile(r"^  threads per rank  (\d+) \((.*)\)$", re.M)
THREAD_WARNINGS = re.compile(r"^seisfd: warning: (host \S+: its|rank \d+ on host).*$", re.M)


def cores(tmp):
    """This host's cores as seisfd counts them, from a one-rank check."""
    path = write_job(os.path.join(tmp, "probe.yaml"), tiny_job("probe.h5"))
    rc, out, err, _ = launch(["check", path], 1, tmp, flags=("--bind-to", "none"))
    check(rc == 0, f"seisfd check failed (exit {rc}):\n{err[-2000:]}")
    return int(threads_line(out)[0])


def launch(args, ranks, cwd, flags=(), env=None, timeout=300):
    """seisfd on `ranks` ranks with no OpenMP variable but those in env;
    returns (exit code, stdout, stderr, wall seconds)."""
    environment = {k: v for k, v in os.environ.items() if k not in OPENMP_VARIABLES}
    environment.update(env or {})
    exported = [a for name in (env or {}) if name.startswith("OMP_") for a in ("-x", name)]
    cmd = [MPIRUN, *MPIRUN_FLAGS, *flags, *exported, "-np", str(ranks), SEISFD, *args]
    started = time.monotonic()
    try:
        p = subprocess.run(cmd, cwd=cwd, env=environment, capture_output=True, text=True,
                           timeout=time_limit(timeout))
    except subprocess.TimeoutExpired:
        raise AssertionError(f"{' '.join(cmd)} did not finish within {timeout} s")
    check_sanitizers(p.stderr, " ".join(args))
    return p.returncode, p.stdout, p.stderr, time.monotonic() - started


def threads_line(out):
    """(threads, origin) of the set-up summary; the ranks must agree."""
    m = THREADS_LINE.search(out)
    check(m, f"no single 'threads per rank' line in the set-up summary:\n{out}")
    return m.group(1), m.group(2)


def tiny_job(gather, ranks=1):
    """20 steps on 24 x 24 x (5 planes a rank, at least 24)."""
    return base_job(n=(24, 24, max(24, 5 * ranks)), cpml=4, duration=0.02, gather=gather,
                    receivers=[[150.0, 120.0, 120.0]])


def quickstart_job(tmp, name):
    """configs/quickstart.yaml, its outputs in tmp under `name`, half its
    duration (the same grid and steps of the same cost)."""
    with open(os.path.join(ROOT, "configs", "quickstart.yaml")) as f:
        text = f.read()
    text = text.replace("out/quickstart/gather", name).replace("duration: 1.2", "duration: 0.6")
    check(name in text and "duration: 0.6" in text, "configs/quickstart.yaml changed its outputs "
          "or duration; adapt quickstart_job")
    path = os.path.join(tmp, name + ".yaml")
    with open(path, "w") as f:
        f.write(text)
    return path


def test_twice_as_many_ranks_as_cores_take_one_thread_each(tmp):
    """-np 2 x cores without OMP_NUM_THREADS: one thread a rank, one
    warning (more ranks than cores, and what to run instead), and within
    3 times the time of -np cores (two threads a rank made it 57 times)."""
    n = cores(tmp)
    if 2 * n > 16:
        raise Skipped(f"{n} cores: the quickstart grid's 81 planes hold at most 20 ranks")
    times = {}
    for ranks in (n, 2 * n):
        rc, out, err, times[ranks] = launch(["run", quickstart_job(tmp, f"np{ranks}")], ranks, tmp)
        check(rc == 0, f"-np {ranks} failed (exit {rc}):\n{err[-3000:]}")
        warnings = THREAD_WARNINGS.findall(err)
        if ranks == n:
            check(not warnings, f"-np {n} on {n} cores fits, yet:\n{err}")
            continue
        check(threads_line(out) == ("1", f"its share of its host's {n} cores among {2 * n} ranks, "
                                         "at least 1"),
              f"-np {ranks}: not one thread a rank:\n{out}")
        check(len(warnings) == 1 and err.count("seisfd: warning") == 1,
              f"-np {ranks}: not one warning:\n{err}")
        check(re.search(rf"its {2 * n} ranks run {2 * n} OpenMP threads in all on its {n} cores?.*"
                        rf"run at most {n} ranks? on it \(e\.g\. mpirun -np {n}\)", err),
              f"-np {ranks}: the warning does not say what to run instead:\n{err}")
    ratio = times[2 * n] / times[n]
    check(ratio <= 3.0, f"-np {2 * n} took {times[2 * n]:.1f} s, {ratio:.1f} times the "
                        f"{times[n]:.1f} s of -np {n} (at most 3)")
    return f"-np {n} {times[n]:.1f} s, -np {2 * n} {times[2 * n]:.1f} s ({ratio:.2f} x), one warning"


def test_omp_num_threads_is_kept_and_named(tmp):
    """OMP_NUM_THREADS=1 on an unbound rank (which would take all cores)
    is kept and named; one more than the cores runs, with the warning
    that names the OMP_NUM_THREADS that fits."""
    n = cores(tmp)
    job = write_job(os.path.join(tmp, "job.yaml"), tiny_job("gather.h5"))
    unbound = ("--bind-to", "none")
    rc, out, err, _ = launch(["run", job], 1, tmp, flags=unbound, env={"OMP_NUM_THREADS": "1"})
    check(rc == 0, f"OMP_NUM_THREADS=1 failed (exit {rc}):\n{err[-3000:]}")
    check(threads_line(out) == ("1", "OMP_NUM_THREADS"), f"OMP_NUM_THREADS=1 not kept:\n{out}")
    check(not THREAD_WARNINGS.search(err), f"OMP_NUM_THREADS=1 fits, yet:\n{err}")
    rc, out, err, _ = launch(["run", job], 1, tmp, flags=unbound,
                             env={"OMP_NUM_THREADS": str(n + 1)})
    check(rc == 0, f"OMP_NUM_THREADS={n + 1} failed (exit {rc}):\n{err[-3000:]}")
    check(threads_line(out) == (str(n + 1), "OMP_NUM_THREADS"),
          f"OMP_NUM_THREADS={n + 1} not kept:\n{out}")
    warnings = THREAD_WARNINGS.findall(err)
    check(len(warnings) == 1 and re.search(rf"runs {n + 1} OpenMP threads in all on its {n} "
                                           rf"cores?.*set OMP_NUM_THREADS={n} ", err),
          f"OMP_NUM_THREADS={n + 1} on {n} cores: not the one warning that fixes it:\n{err}")
    return f"1 and {n + 1} kept on {n} cores, the latter warned of"


def test_rank_bound_to_one_core_takes_one_thread_and_warns(tmp):
    """Open MPI binds each rank to one core for -np 1 and 2: a single rank
    then runs one thread, and the warning names --bind-to none and the
    --map-by that gives it its share; unbound it takes every core."""
    n = cores(tmp)
    if n < 2:
        raise Skipped("one core: a rank bound to one core has its whole share")
    job = write_job(os.path.join(tmp, "job.yaml"), tiny_job("gather.h5"))
    rc, out, err, _ = launch(["run", job], 1, tmp, flags=("--bind-to", "core"))
    check(rc == 0, f"bound to a core: exit {rc}:\n{err[-3000:]}")
    check(threads_line(out) == ("1", "its binding: 1 core"), f"not one thread:\n{out}")
    warnings = THREAD_WARNINGS.findall(err)
    check(len(warnings) == 1 and re.search(rf"rank 0 on host \S+ is bound to 1 of its {n} cores, "
                                           rf"fewer than its share .*--map-by slot:PE={n}\b.*"
                                           r"--bind-to none", err),
          f"not the one binding warning naming --bind-to none and --map-by slot:PE={n}:\n{err}")
    rc, out, err, _ = launch(["run", job], 1, tmp, flags=("--bind-to", "none"))
    check(rc == 0 and threads_line(out) == (str(n), f"its host's {n} cores")
          and not THREAD_WARNINGS.search(err), f"unbound: not all {n} cores, quietly:\n{out}\n{err}")
    return f"1 thread bound to a core, {n} unbound"


def make_run(tmp, ranks):
    """`make run` on the tiny job; the suite's build is up to date, and
    -o all keeps make from building it again (with other flags, say)."""
    job = write_job(os.path.join(tmp, f"np{ranks}.yaml"),
                    tiny_job(os.path.join(tmp, f"np{ranks}.h5"), ranks))
    env = {k: v for k, v in os.environ.items()
           if k not in OPENMP_VARIABLES + ("MAKEFLAGS", "MFLAGS", "MAKELEVEL")}
    p = subprocess.run(["make", "--no-print-directory", "-o", "all", "-C", ROOT, "run",
                        f"JOB={job}", f"RANKS={ranks}", f"BIN={BIN_DIR}"],
                       cwd=tmp, env=env, capture_output=True, text=True, timeout=time_limit(300))
    check(p.returncode == 0 and os.path.exists(os.path.join(tmp, f"np{ranks}.h5")),
          f"make run RANKS={ranks} failed (exit {p.returncode}):\n{p.stdout[-2000:]}\n"
          f"{p.stderr[-3000:]}")
    command = next((line for line in p.stderr.splitlines() if " -np " in line), "")
    return command, p.stdout, p.stderr


def test_make_run_launches_as_this_user_needs(tmp):
    """make run JOB=... RANKS=...: --allow-run-as-root only as root, each
    rank bound to its share (quietly) while the ranks fit the cores, and
    --oversubscribe unbound (with the warning) for more ranks than cores."""
    try:
        subprocess.run(["make", "--version"], capture_output=True)
    except FileNotFoundError:
        raise Skipped("no make here")
    n = cores(tmp)
    root = os.geteuid() == 0
    ranks = min(2, n)
    command, out, err = make_run(tmp, ranks)
    check(("--allow-run-as-root" in command) == root and "--oversubscribe" not in command
          and f"--map-by slot:PE={n // ranks}" in command,
          f"make run RANKS={ranks} on {n} cores{' as root' if root else ''}: {command}")
    check(threads_line(out)[0] == str(n // ranks) and not THREAD_WARNINGS.search(err),
          f"make run RANKS={ranks}: not {n // ranks} threads a rank, quietly:\n{out}\n{err}")
    command, out, err = make_run(tmp, n + 1)
    check(("--allow-run-as-root" in command) == root and "--oversubscribe --bind-to none" in command,
          f"make run RANKS={n + 1} on {n} cores: {command}")
    check(len(THREAD_WARNINGS.findall(err)) == 1, f"RANKS={n + 1}: not one warning:\n{err}")
    return f"{command}: one warning"
