"""Helpers shared by seisfd's end-to-end tests: writing jobs, running
seisfd under mpirun, reading gathers and the analytic solution."""
import json
import math
import os
import subprocess

import h5py
import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SEISFD = os.path.join(ROOT, "bin", "seisfd")
MPIRUN = os.environ.get("MPIRUN", "mpirun")
_DEFAULT_FLAGS = "--oversubscribe" + (" --allow-run-as-root" if os.geteuid() == 0 else "")
MPIRUN_FLAGS = os.environ.get("MPIRUN_FLAGS", _DEFAULT_FLAGS).split()


class TestFailure(AssertionError):
    pass


class Skipped(Exception):
    """Raised by a test that cannot run here (it says why)."""


def check(condition, message):
    if not condition:
        raise TestFailure(message)


def write_job(path, job):
    """A job as YAML text; JSON is a subset of YAML, which keeps it exact."""
    with open(path, "w") as f:
        json.dump(job, f, indent=1)
    return path


def run(args, ranks=1, threads=None, cwd=None, timeout=300, env=None):
    """Runs seisfd on `ranks` MPI ranks, with `env` added to the environment;
    returns (exit code, stdout, stderr). A run that outlives `timeout` (a
    deadlock, say) fails the test."""
    if threads is None:
        threads = max(1, (os.cpu_count() or 1) // ranks)
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), **(env or {}))
    cmd = [MPIRUN, *MPIRUN_FLAGS, "-np", str(ranks), "-x", "OMP_NUM_THREADS", SEISFD, *args]
    try:
        p = subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=timeout)
    except subprocess.TimeoutExpired:
        raise TestFailure(f"seisfd {' '.join(args)} on {ranks} ranks did not finish "
                          f"within {timeout} s")
    return p.returncode, p.stdout, p.stderr


def run_job(tmp, job, name="job", ranks=1, expect_ok=True, env=None):
    path = write_job(os.path.join(tmp, name + ".yaml"), job)
    rc, out, err = run(["run", path], ranks=ranks, cwd=tmp, env=env)
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
