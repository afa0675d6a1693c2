"""Helpers shared by seisfd's end-to-end tests: writing jobs, running
seisfd under mpirun, reading gathers and the analytic solution."""
import contextlib
import json
import math
import os
import re
import resource
import shutil
import signal
import subprocess
import tempfile
import time

# numpy's linear algebra (OpenBLAS, setup.sh) on one thread, set before
# numpy loads it: the runner runs tests side by side, each on its share of
# the cores, and OpenBLAS would otherwise start a thread on every core.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

import h5py  # noqa: E402  (after the variable above)
import numpy as np  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# The programs under test: bin/, or another build's (make test-sanitize).
BIN_DIR = os.path.abspath(os.environ.get("SEISFD_BIN_DIR") or os.path.join(ROOT, "bin"))
SEISFD = os.path.join(BIN_DIR, "seisfd")
# What AddressSanitizer and UndefinedBehaviorSanitizer print: any of it
# fails the test, whatever the exit status.
SANITIZER_REPORTS = ("runtime error:", "ERROR: AddressSanitizer", "ERROR: LeakSanitizer")
MPIRUN = os.environ.get("MPIRUN", "mpirun")
_DEFAULT_FLAGS = "--oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0 else "")
MPIRUN_FLAGS = os.environ.get("MPIRUN_FLAGS", _DEFAULT_FLAGS).split()
# Open MPI's launcher waits a second between SIGTERM and SIGKILL when it
# ends a job whose rank exited non-zero, twice over: 2 s for every refused
# job, about 100 of them per suite. Such a job's ranks have cleaned up by
# then (outputs are written under temporary names and renamed when whole),
# so the tests take the kill at once; test_signals.py gives the ranks time
# where the launcher itself ends a job. Other MPIs ignore the variable.
os.environ.setdefault("OMPI_MCA_odls_base_sigkill_timeout", "0")
# Open MPI binds each rank to one core for -np 1 and 2, where the tests'
# threads (OMP_NUM_THREADS = cores / ranks) would share that core; a test
# that wants a binding names it on the command line, which overrides this.
os.environ.setdefault("OMPI_MCA_hwloc_base_binding_policy", "none")
# A rank waiting for its neighbour's halo polls, taking its core from the
# ranks (and the other tests: run_tests.py runs several at a time) that have
# the work; Open MPI yields only where a job has more ranks than cores.
# Two such tests side by side took 51 s polling and 28 s yielding.
os.environ.setdefault("OMPI_MCA_mpi_yield_when_idle", "1")

# Every time limit that bounds a run in the tests is written for a quiet
# 2-core machine and passes through time_limit(); a slower or busier
# machine (a sanitizer build, a shared runner) raises them all at once.
TIME_SCALE_VARIABLE = "SEISFD_TEST_TIME_SCALE"


def _time_scale():
    text = os.environ.get(TIME_SCALE_VARIABLE, "1")
    try:
        scale = float(text)
    except ValueError:
        scale = math.nan
    if not (math.isfinite(scale) and scale > 0):
        # Read when the suite starts: its one message, not a traceback.
        raise SystemExit(f"tests: error: {TIME_SCALE_VARIABLE}={text!r}: must be a positive "
                         f"finite number, the factor on every time limit of the tests "
                         f"(default 1; e.g. 3 on a machine three times slower)")
    return scale


TIME_SCALE = _time_scale()


def time_limit(seconds):
    """A limit of `seconds` on a quiet 2-core machine, scaled by
    SEISFD_TEST_TIME_SCALE."""
    return seconds * TIME_SCALE


class TestFailure(AssertionError):
    pass


class Skipped(Exception):
    """Raised by a test that cannot run here (it says why)."""


class NeedsGpu(Skipped):
    """Raised by a test that needs a GPU (and seisfd's CUDA backend) this
    machine lacks; the suite's summary counts these apart."""


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def write_job(path, job):
    """A job as YAML text; JSON is a subset of YAML, which keeps it exact."""
    with open(path, "w") as f:
        json.dump(job, f, indent=1)
    return path


def alone(test):
    """Marks a test whose checks compare timings: the runner gives it the
    machine to itself (run_tests.py), as it does whole modules of such tests."""
    test.runs_alone = True
    return test


def heavy(test):
    """Marks a test that takes 20 s or more on CI's two cores: the runner
    starts these first (run_tests.py), so that none of them starts last and
    holds the suite's end while the other workers idle (about 25 s of
    `make test` there)."""
    test.heavy = True
    return test


# The cores a test's runs share among their ranks (threads_per_rank).
CORES_VARIABLE = "SEISFD_TEST_CORES"


def threads_per_rank(ranks):
    """The OpenMP threads run() gives each of `ranks` ranks: the machine's
    cores, or the share the runner gives a test where it runs tests side
    by side, divided among them."""
    cores = int(os.environ.get(CORES_VARIABLE) or os.cpu_count() or 1)
    return max(1, cores // ranks)


def run(args, ranks=1, threads=None, cwd=None, timeout=300, env=None, launcher_flags=()):
    """Runs seisfd on `ranks` MPI ranks, with `env` added to the environment
    and `launcher_flags` to mpirun's options; returns (exit code, stdout,
    stderr). A run that outlives time_limit(timeout) (a deadlock, say) fails
    the test."""
    if threads is None:
        threads = threads_per_rank(ranks)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **(env or {}))
    cmd = [MPIRUN, *MPIRUN_FLAGS, *launcher_flags, "-np", str(ranks), "-x", "OMP_NUM_THREADS",
           SEISFD, *args]
    limit = time_limit(timeout)
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=limit)
    except subprocess.TimeoutExpired:
        raise TestFailure(f"seisfd {' '.join(args)} on {ranks} ranks did not finish "
                          f"within {limit:g} s")
    check_sanitizers(p.stderr, f"seisfd {' '.join(args)} on {ranks} ranks")
    return p.returncode, p.stdout, p.stderr


def start(tmp, job, name="job", ranks=1, args=(), env=None):
    """Starts `seisfd run` on a job (named relative to tmp) in a session of
    its own, so that kill_job finds its processes; one OpenMP thread a
    rank, `env` added to the environment. Returns the Popen."""
    write_job(os.path.join(tmp, name + ".yaml"), job)
    env = dict(os.environ, OMP_NUM_THREADS="1", **(env or {}))
    cmd = [MPIRUN, *MPIRUN_FLAGS, "-np", str(ranks), "-x", "OMP_NUM_THREADS", SEISFD, "run",
           *args, name + ".yaml"]
    return subprocess.Popen(cmd, cwd=tmp, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def processes():
    """(pid, command name, the stat fields after it) of every process, from
    /proc (a bare Debian has no pgrep); fields[1] is the parent, [3] the
    session."""
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as f:
                name, rest = f.read().rsplit(")", 1)
        except OSError:   # it ended meanwhile
            continue
        yield int(entry), name.split("(", 1)[1], rest.split()


def rank_pids(launcher):
    """The seisfd processes the launcher started (OpenMPI starts the ranks
    on this host as its children)."""
    return sorted(pid for pid, name, fields in processes()
                  if int(fields[1]) == launcher and name == "seisfd")


def session_processes(sid):
    """The processes of a session: the launcher and its ranks (which
    OpenMPI puts in process groups of their own)."""
    return [pid for pid, _, fields in processes() if int(fields[3]) == sid]


@contextlib.contextmanager
def small_tmpfs(path, size):
    """A tmpfs of `size` (e.g. "1m") mounted at path for the block; the
    test skips where mounting is not allowed."""
    os.makedirs(path)
    mounted = subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", path],
                             capture_output=True, text=True)
    if mounted.returncode != 0:
        raise Skipped(f"cannot mount a small tmpfs here: {mounted.stderr.strip()}")
    try:
        yield path
    finally:
        subprocess.run(["umount", path], capture_output=True)


def kill_job(proc):
    """SIGKILL to the launcher and, at once, to its ranks, as a batch
    system kills a job; the ranks would otherwise go on alone."""
    for pid in [proc.pid] + [p for p in session_processes(proc.pid) if p != proc.pid]:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    proc.communicate()
    end = time.time() + time_limit(30)
    while session_processes(proc.pid):
        check(time.time() < end, "the killed job's ranks are still running")
        time.sleep(0.05)


def wait_for_line(proc, prefix, timeout=120):
    """Reads the launcher's stdout up to a line starting with prefix."""
    limit = time_limit(timeout)
    end = time.time() + limit
    for line in proc.stdout:
        if line.startswith(prefix):
            return line
        check(time.time() < end, f"no line starting with '{prefix}' within {limit:g} s")
    check(False, f"seisfd ended without a line starting with '{prefix}':\n{proc.stderr.read()}")


def signal_ranks(proc, signum):
    """Sends a signal to the ranks of a started job (SIGSTOP holds a run
    where it is, SIGCONT lets it go on)."""
    for pid in rank_pids(proc.pid):
        os.kill(pid, signum)


def limit_file_size(proc, limit):
    """Caps the size of files the ranks of a started job write, once MPI
    is up (the set-up summary is out: OpenMPI's own files are larger)."""
    wait_for_line(proc, "seisfd:")
    for pid in rank_pids(proc.pid):
        resource.prlimit(pid, resource.RLIMIT_FSIZE, (limit, limit))


def leftovers(tmp):
    """Temporary and lock files anywhere under tmp."""
    found = []
    for dirpath, dirnames, filenames in os.walk(tmp):
        found += [os.path.join(dirpath, f) for f in filenames + dirnames
                  if f.endswith(".partial") or (f.startswith(".") and f.endswith(".lock"))]
    return found


def check_sanitizers(stderr, what):
    """Fails on any sanitizer report in a program's error output."""
    for marker in SANITIZER_REPORTS:
        at = stderr.find(marker)
        if at >= 0:
            raise TestFailure(f"{what}: sanitizer report:\n{stderr[max(0, at - 300):at + 3000]}")


def run_job(tmp, job, name="job", ranks=1, expect_ok=True, env=None, launcher_flags=()):
    path = write_job(os.path.join(tmp, name + ".yaml"), job)
    rc, out, err = run(["run", path], ranks=ranks, cwd=tmp, env=env, launcher_flags=launcher_flags)
    if expect_ok:
        check(rc == 0, f"seisfd failed on {ranks} ranks (exit {rc}):\n{err[-3000:]}")
    return rc, out, err


def read_gather(path):
    with h5py.File(path, "r") as f:
        return {
            "traces": f["traces"][:],
            "receivers": f["receiver_positions"][:],
            "source": f["source_position"][:],
            "dt": float(f.attrs["dt"]),
            "attrs": dict(f.attrs),
        }


def ricker(t, f0, delay):
    a = (math.pi * f0 * (t - delay)) ** 2
    return (1.0 - 2.0 * a) * np.exp(-a)


def direct_wave(t, r, v, f0, delay, amplitude=1.0):
    """p(r, t) = s(t - r/v) / (4 pi r) for (1/v^2) p_tt - lap p = s(t) delta(x)."""
    return amplitude * ricker(t - r / v, f0, delay) / (4.0 * math.pi * r)


# A plane-cost table row for any device, so the slab cut is known in
# advance: a point in a z layer costs 4 times an interior one, in x or y
# 2.5 and 3 times; a neighbour costs a rank 6 ns per point of a plane.
COSTS_NS = {"interior": 1.0, "x": 2.5, "y": 3.0, "z": 4.0, "neighbour": 6.0}
COST_TABLE_HEADER = ("backend,physics,order,precision,interior_ns,x_layer_ns,y_layer_ns,"
                     "z_layer_ns,neighbour_ns,recorded,device\n")


def write_cost_table(tmp, physics="acoustic", order=8, ns=COSTS_NS,
                     precisions=("float32",)):
    """A site's plane-cost table of the CPU rows of `physics` (SEISFD_PLANE_COSTS)."""
    path = os.path.join(tmp, "costs.csv")
    with open(path, "w") as f:
        f.write("# a site's table\n" + COST_TABLE_HEADER)
        for precision in precisions:
            f.write(f"cpu,{physics},{order},{precision},{ns['interior']},{ns['x']},{ns['y']},"
                    f"{ns['z']},{ns['neighbour']},2026-11-26,*\n")
    return {"SEISFD_PLANE_COSTS": path}


def base_job(n=(60, 60, 60), h=10.0, vp=2000.0, cpml=10, duration=0.3, dt=0.001,
             source=None, receivers=None, frequency=10.0, gather="gather.h5"):
    nx, ny, nz = n
    return {
        "grid": {"nx": nx, "ny": ny, "nz": nz, "dx": h, "dy": h, "dz": h},
        "time": {"dt": dt, "duration": duration},
        "model": {"type": "homogeneous", "vp": vp},
        "boundaries": {"cpml": cpml},
        "source": {"position": source or [h * (nx // 2) + 1.3, h * (ny // 2) - 2.1,
                                         h * (nz // 2) + 0.7],
                   "frequency": frequency},
        "receivers": {"points": receivers or [[h * (nx // 2) + 101.3, h * (ny // 2) - 2.1,
                                               h * (nz // 2) + 0.7]]},
        "output": {"gather": gather, "overwrite": True},
    }


# The media of the tests that run every physics: values by parameter, not
# by physics, so that each physics the program declares gets its medium
# from the parameters it says it takes (physics_parameters). Three layers:
# a fluid on top where a physics has shear waves (vs 0), tilt and
# anisotropy changing across them (delta negative in the last); and one
# point for homogeneous models.
LAYER_VALUES = {"vp": (1800.0, 2400.0, 3000.0), "vs": (0.0, 1300.0, 1700.0),
                "rho": (1000.0, 2100.0, 2400.0), "epsilon": (0.1, 0.25, 0.15),
                "delta": (0.05, 0.1, -0.05), "theta": (30.0, 50.0, -20.0),
                "phi": (20.0, -40.0, 75.0), "qp": (20.0, 60.0, 200.0),
                "qs": (10.0, 40.0, 150.0)}
POINT_VALUES = {"vp": 3000.0, "vs": 1700.0, "rho": 2200.0, "epsilon": 0.2, "delta": 0.1,
                "theta": 30.0, "phi": 20.0, "qp": 50.0, "qs": 40.0}
_declared = {}
_parameters = {}


def declared_physics(backend="cpu"):
    """The physics seisfd has kernels for on a backend, in the program's
    order, as `seisfd --version` lists them ("physics   cpu: acoustic,
    elastic, vti, tti"); none for a backend this build lacks."""
    if not _declared:
        rc, out, err = run(["--version"])
        check(rc == 0, f"seisfd --version failed:\n{err}")
        for name, physics in re.findall(r"^\s*physics\s+(\w+): (.*)$", out, re.M):
            _declared[name] = [p.strip() for p in physics.split(",") if p.strip()]
        check(_declared.get("cpu"), f"seisfd --version lists no physics on the CPU:\n{out}")
    return list(_declared.get(backend, []))


def physics_parameters(physics):
    """The model parameters a physics takes, as `seisfd check` names them
    missing from a model that gives none."""
    if physics not in _parameters:
        job = base_job(n=(24, 24, 24), cpml=4, duration=0.01)
        job["physics"] = {"type": physics}
        job["model"] = {"type": "homogeneous"}
        folder = tempfile.mkdtemp(prefix="seisfd-parameters-")
        try:
            rc, out, err = run(["check", write_job(os.path.join(folder, "job.yaml"), job)],
                               cwd=folder)
        finally:
            shutil.rmtree(folder, ignore_errors=True)
        names = re.findall(r"model\.(\w+): required key is missing", err)
        check(rc != 0 and names, f"{physics}: seisfd check names no parameter it needs:\n{err}")
        unknown = [n for n in names if n not in POINT_VALUES]
        check(not unknown, f"{physics} takes {', '.join(unknown)}, which testlib's LAYER_VALUES "
                           f"and POINT_VALUES give no value: add them there")
        _parameters[physics] = names
    return list(_parameters[physics])


def medium(physics, tops=None):
    """A model the physics runs: homogeneous (POINT_VALUES), or layered
    with a layer at each depth of tops (LAYER_VALUES, at most three)."""
    names = physics_parameters(physics)
    if tops is None:
        return {"type": "homogeneous", **{n: POINT_VALUES[n] for n in names}}
    check(len(tops) <= 3, f"{len(tops)} layers asked for, LAYER_VALUES has 3")
    return {"type": "layered",
            "layers": [{"top": top, **{n: LAYER_VALUES[n][i] for n in names}}
                       for i, top in enumerate(tops)]}


# How far two runs that must agree may differ, as a fraction of the
# reference's peak, for each precision of the fields and records (float32
# today). On the CPU every rank count and every shot of a survey adds the
# same terms in the same order: bit for bit. A receiver 1e-9 of a spacing
# outside the grid on a staggered lattice (not moved onto the edge) gets
# weights that differ in their last bits ("edge"). The GPU's kernels sum in
# other orders (and fuse multiply-adds), so it agrees with the CPU, and
# with itself on other rank counts (other tiles at the slab ends), to the
# rounding of a few hundred steps.
TOLERANCES = {"float32": {"ranks": 0.0, "shots": 0.0, "edge": 1e-6, "gpu": 1e-5,
                          "gpu ranks": 1e-5}}


def tolerance(kind, dtype=np.float32):
    """The TOLERANCES entry of a kind for data of dtype."""
    name = np.dtype(dtype).name
    check(name in TOLERANCES, f"no tolerances for {name} data: add them to testlib's TOLERANCES")
    return TOLERANCES[name][kind]
