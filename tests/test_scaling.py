"""The scaling driver jobs/scaling.py: real strong and weak series of seisfd
on the CPU (they need the JSON report of `seisfd run`), `collect` on
hand-written reports, the whole `run` path with a stand-in for seisfd, the
template editing, the batch scripts, and the errors."""
import csv
import json
import os
import shlex
import shutil
import struct
import subprocess
import sys

from testlib import MPIRUN, MPIRUN_FLAGS, ROOT, check, time_limit

SCALING = os.path.join(ROOT, "jobs", "scaling.py")
FIXTURES = os.path.join(ROOT, "tests", "data", "scaling")
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
EFFICIENCY_SIZE, BREAKDOWN_SIZE = (1200, 500), (1300, 600)
REQUIRED_COLUMNS = (
    "mode ranks groups nx ny nz steps loop_seconds points_per_second stencil_seconds "
    "halo_pack_seconds halo_d2h_seconds halo_mpi_seconds halo_h2d_seconds halo_unpack_seconds "
    "halo_exposed_seconds acquisition_seconds io_seconds efficiency speedup hosts gpu_names"
).split()
# One thread per rank: the machine's cores are shared, and the tests check
# the driver's arithmetic, not the speed.
REAL_LAUNCHER = shlex.join([MPIRUN, *MPIRUN_FLAGS]) + " -np {ranks} -x OMP_NUM_THREADS=1"

TINY_TEMPLATE = """\
# 40 x 40 x nz points, 20 steps: seconds per run on one core.
grid:
  nx: 40
  ny: 40
  nz: 40
  dx: 10
  dy: 10
  dz: 10
# Without the time-dispersion correction, whose record margin adds 8 steps.
time: {dt: 0.001, nt: 20, dispersion_correction: false}
model: {type: homogeneous, vp: 2000}
boundaries: {cpml: 6}
source: {position: [200, 200, 100], frequency: 12}
receivers:
  points:
    - [250, 200, 100]
output:
  gather: gather.h5
  overwrite: true
run:
  device: cpu
"""

# Stands in for `seisfd run` where the real one cannot yet write its report:
# reads the job the driver wrote, answers with a report in the documented
# schema whose times follow from nz, the ranks ($FAKE_RANKS, set through the
# launcher) and the repetition ($FAKE_REP), or fails like seisfd under mpirun.
STAND_IN = r'''#!PYTHON
import json, os, re, sys
job = open(sys.argv[2]).read()
if os.environ.get("FAKE_FAIL"):
    print("seisfd: acoustic, order 8", flush=True)
    sys.stderr.write(sys.argv[2] + ":3:7: grid.nz: 9 planes per rank, at least 4 needed\n"
                     "seisfd: error: 1 problem in job file\n" + "-" * 74 + "\n"
                     "Primary job  terminated normally, but 1 process returned\n" + "-" * 74 + "\n")
    sys.exit(1)
report = re.search(r'report: "([^"]+)"', job).group(1)
nz = int(re.search(r"\bnz: (\d+)", job).group(1))
ranks = int(os.environ.get("FAKE_RANKS", "1"))
rep = int(os.environ.get("FAKE_REP", "1"))
loop = 1e-3 * nz / ranks * (1 + 0.05 * (ranks - 1)) * (1 + 0.1 * (rep - 1))
phases = {"stencil": 0.9 * loop, "halo_pack": 0.01 * loop, "halo_d2h": 0.0, "halo_mpi": 0.04 * loop,
          "halo_h2d": 0.0, "halo_unpack": 0.01 * loop, "halo_exposed": 0.05 * loop,
          "acquisition": 0.01 * loop, "io": 0.02}
shot = {"index": 0, "status": "done", "group": 0, "seconds": loop + 0.1, "loop_seconds": loop,
        "steps": 50, "points_per_second": 50 * 64 * nz / loop, "files": [], "reason": "",
        "phases": phases}
json.dump({"seisfd_version": "stand-in", "command": "run", "job": {"path": sys.argv[2], "hash": None},
           "started": "2026-11-22T00:00:00Z", "finished": "2026-11-22T00:00:01Z",
           "wall_seconds": loop + 0.2,
           "config": {"physics": "acoustic", "order": 8, "nx": 8, "ny": 8, "nz": nz, "dx": 10,
                      "dy": 10, "dz": 10, "dt": 0.001, "steps": 50, "cpml": 4,
                      "free_surface": False, "device": "cpu", "model": "homogeneous", "shots": 1},
           "ranks": ranks, "ranks_per_shot": ranks, "groups": 1,
           "processes": [{"rank": r, "group": 0, "host": "node1", "gpu": None, "memory_bytes": 1}
                         for r in range(ranks)],
           "shots": [shot],
           "totals": {"shots": 1, "done": 1, "failed": 0, "skipped": 0,
                      "points_per_second": shot["points_per_second"], "shots_per_hour": 1,
                      "loop_seconds": loop}}, open(report, "w"))
'''


def scaling(*args, timeout=300):
    p = subprocess.run([sys.executable, SCALING, *args], capture_output=True, text=True,
                       timeout=time_limit(timeout))
    return p.returncode, p.stdout, p.stderr


def scaling_ok(*args):
    rc, out, err = scaling(*args)
    check(rc == 0, f"scaling.py {' '.join(args)} exited {rc}:\n{err[-3000:]}")
    return out


def scaling_error(expected, *args):
    """The driver fails with one line starting `scaling: error:` that holds
    `expected`; returns the whole stderr."""
    rc, out, err = scaling(*args)
    first = err.strip().splitlines()[0] if err.strip() else ""
    check(rc == 1 and first.startswith("scaling: error:") and expected in first,
          f"expected exit 1 and an error with '{expected}', got exit {rc}:\n{err[-2000:]}")
    return err


def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def read_csv(path):
    with open(path, newline="") as f:
        reader = csv.DictReader(f)
        missing = [c for c in REQUIRED_COLUMNS if c not in reader.fieldnames]
        check(not missing, f"{path} lacks the columns {missing}")
        return list(reader)


def check_png(path, size):
    check(os.path.isfile(path), f"no picture {path}")
    with open(path, "rb") as f:
        head = f.read(24)
    check(head[:8] == PNG_SIGNATURE, f"{path} is not a PNG")
    w, h = struct.unpack(">II", head[16:24])
    check((w, h) == size, f"{path} is {w} x {h} pixels, expected {size[0]} x {size[1]}")
    nbytes = os.path.getsize(path)
    check(20_000 < nbytes < 1_000_000, f"{path}: implausible size {nbytes} bytes")
    check(not os.path.exists(path + ".partial"), f"{path}.partial was left behind")


def check_results(out):
    """The CSV and both pictures of a series in `out`; returns the CSV rows."""
    rows = read_csv(os.path.join(out, "scaling.csv"))
    check_png(os.path.join(out, "efficiency.png"), EFFICIENCY_SIZE)
    check_png(os.path.join(out, "breakdown.png"), BREAKDOWN_SIZE)
    return rows


def close(a, b, tolerance=1e-6):
    return abs(a - b) <= tolerance * max(abs(a), abs(b), 1e-30)


def check_efficiency(rows, mode):
    """Speedup and efficiency follow from the times per step, against the
    first (smallest) rank count, as documented."""
    base = rows[0]
    t0, n0 = float(base["seconds_per_step"]), int(base["ranks"])
    for row in rows:
        t, n = float(row["seconds_per_step"]), int(row["ranks"])
        check(close(t, float(row["loop_seconds"]) / int(row["steps"])),
              f"ranks {n}: seconds_per_step {t} is not loop_seconds / steps")
        expected = n0 * t0 / (n * t) if mode == "strong" else t0 / t
        speedup = t0 / t if mode == "strong" else n / n0 * t0 / t
        check(close(float(row["efficiency"]), expected, 1e-6),
              f"ranks {n}: efficiency {row['efficiency']}, the times give {expected:.9g}")
        check(close(float(row["speedup"]), speedup, 1e-6),
              f"ranks {n}: speedup {row['speedup']}, the times give {speedup:.9g}")


# ---------------------------------------------------------- real seisfd runs

def test_strong_series_on_cpu(tmp):
    """Needs `seisfd run` to write its JSON report (output.report)."""
    template = write(os.path.join(tmp, "tiny.yaml"), TINY_TEMPLATE)
    out = os.path.join(tmp, "strong")
    scaling_ok("run", "strong", template, "--ranks", "1,2", "--out", out,
               "--launcher", REAL_LAUNCHER, "--goal", "0.95", "--timeout", str(time_limit(120)))
    rows = check_results(out)
    check([int(r["ranks"]) for r in rows] == [1, 2], f"rows for ranks {[r['ranks'] for r in rows]}")
    for row in rows:
        check(row["mode"] == "strong" and row["device"] == "cpu", f"row {row}")
        check((int(row["nx"]), int(row["ny"]), int(row["nz"])) == (40, 40, 40),
              f"ranks {row['ranks']}: grid {row['nx']} x {row['ny']} x {row['nz']}")
        check(int(row["steps"]) == 20 and int(row["groups"]) == 1, f"row {row}")
        check(float(row["loop_seconds"]) > 0 and float(row["points_per_second"]) > 0
              and float(row["stencil_seconds"]) > 0, f"ranks {row['ranks']}: no times")
        check(row["hosts"] != "", "no host names")
    check(float(rows[0]["efficiency"]) == 1.0, f"base efficiency {rows[0]['efficiency']}")
    check_efficiency(rows, "strong")
    return (f"1 rank {1e3 * float(rows[0]['seconds_per_step']):.2f} ms/step, 2 ranks "
            f"{1e3 * float(rows[1]['seconds_per_step']):.2f} ms/step, "
            f"efficiency {float(rows[1]['efficiency']):.2f}")


def test_weak_series_on_cpu(tmp):
    """Needs `seisfd run` to write its JSON report (output.report)."""
    template = write(os.path.join(tmp, "tiny.yaml"), TINY_TEMPLATE)
    out = os.path.join(tmp, "weak")
    scaling_ok("run", "weak", template, "--ranks", "1,2", "--points-per-rank-z", "32",
               "--out", out, "--launcher", REAL_LAUNCHER, "--timeout", str(time_limit(120)))
    rows = check_results(out)
    check([(int(r["ranks"]), int(r["nz"])) for r in rows] == [(1, 32), (2, 64)],
          f"(ranks, nz): {[(r['ranks'], r['nz']) for r in rows]}, expected nz doubled")
    for row in rows:
        with open(row["report"]) as f:
            nz = json.load(f)["config"]["nz"]
        check(nz == int(row["nz"]), f"ranks {row['ranks']}: the report says nz = {nz}")
        check(float(row["points_per_rank"]) == 40 * 40 * 32, f"points per rank {row}")
    check_efficiency(rows, "weak")
    return f"weak efficiency {float(rows[1]['efficiency']):.2f}"


# ------------------------------------------------------- hand-written reports

def test_collect_strong_fixtures(tmp):
    out = os.path.join(tmp, "strong")
    shown = scaling_ok("collect", "strong", os.path.join(FIXTURES, "strong"), "--out", out,
                       "--goal", "0.95")
    rows = check_results(out)
    check([int(r["ranks"]) for r in rows] == [1, 2, 4, 8], f"ranks {[r['ranks'] for r in rows]}")
    two = rows[1]
    check(int(two["repeats"]) == 2 and float(two["loop_seconds"]) == 4.93
          and float(two["loop_seconds_max"]) == 5.12,
          f"ranks 2: the best of 4.93 and 5.12 s should be kept: {two}")
    expected = {1: 1.0, 2: 9.43 / (2 * 4.93), 4: 9.43 / (4 * 2.61), 8: 9.43 / (8 * 1.43)}
    for row in rows:
        check(close(float(row["efficiency"]), expected[int(row["ranks"])]),
              f"ranks {row['ranks']}: efficiency {row['efficiency']}")
    check_efficiency(rows, "strong")
    eight = rows[3]
    check(eight["nodes"] == "2" and eight["hosts"] == "gpu001;gpu002" and eight["gpus"] == "8"
          and eight["gpu_names"] == "NVIDIA H100 80GB HBM3", f"ranks 8: {eight}")
    check(close(float(eight["halo_exposed_seconds"]), 0.0858), f"ranks 8: phases {eight}")
    check("below goal" in shown, f"the table should flag rows below the goal:\n{shown}")
    median = os.path.join(tmp, "median")
    scaling_ok("collect", "strong", os.path.join(FIXTURES, "strong"), "--out", median,
               "--pick", "median", "--no-plots")
    check(not os.path.exists(os.path.join(median, "efficiency.png")), "--no-plots drew plots")
    return "efficiencies " + ", ".join(f"{float(r['efficiency']):.3f}" for r in rows)


def test_collect_weak_fixtures(tmp):
    reports = sorted(os.path.join(FIXTURES, "weak", f) for f in os.listdir(
        os.path.join(FIXTURES, "weak")))
    out = os.path.join(tmp, "weak")
    scaling_ok("collect", "weak", *reports, "--out", out, "--title", "weak on 2 nodes")
    rows = check_results(out)
    check([(int(r["ranks"]), int(r["nz"])) for r in rows] == [(1, 500), (2, 1000), (4, 2000),
                                                             (8, 4000)], f"rows {rows}")
    for row, loop in zip(rows, (4.72, 4.85, 4.91, 5.02)):
        check(close(float(row["efficiency"]), 4.72 / loop), f"ranks {row['ranks']}: {row}")
    check_efficiency(rows, "weak")
    return "efficiencies " + ", ".join(f"{float(r['efficiency']):.3f}" for r in rows)


# ------------------------------------------ the run path with a stand-in seisfd

def stand_in(tmp):
    path = write(os.path.join(tmp, "seisfd"), STAND_IN.replace("PYTHON", sys.executable, 1))
    os.chmod(path, 0o755)
    return path


def test_run_with_stand_in(tmp):
    """The run path end to end, now: a block-style template with its own
    report key and a flow-style one, nz grown by an expression, repetitions,
    and --resume keeping finished runs."""
    seisfd = stand_in(tmp)
    block = write(os.path.join(tmp, "block.yaml"), TINY_TEMPLATE.replace(
        "  overwrite: true\n", "  overwrite: true\n  report: elsewhere.json\n"))
    launcher = "env FAKE_RANKS={ranks} FAKE_REP={rep}"
    out = os.path.join(tmp, "block")
    scaling_ok("run", "weak", block, "--ranks", "4,1,2", "--nz", "16*ranks+8", "--repeat", "3",
               "--pick", "median", "--out", out, "--launcher", launcher, "--seisfd", seisfd)
    rows = check_results(out)
    check([(int(r["ranks"]), int(r["nz"]), int(r["repeats"])) for r in rows]
          == [(1, 24, 3), (2, 40, 3), (4, 72, 3)], f"rows {rows}")
    for row in rows:   # the median of loops x1.0, x1.1, x1.2 is repetition 2's
        check(row["report"].endswith(f"ranks-{int(row['ranks']):04d}-rep2/report.json"),
              f"the median pick should be rep 2: {row['report']}")
    job = open(os.path.join(out, "runs", "ranks-0002-rep1", "job.yaml")).read()
    run_dir = os.path.join(out, "runs", "ranks-0002-rep1")
    for line in ("  nz: 40\n", f'  report: "{run_dir}/report.json"\n',
                 f'  gather: "{run_dir}/gather.h5"\n'):
        check(line in job, f"job.yaml lacks {line.strip()!r}:\n{job}")
    check("elsewhere.json" not in job, "the template's own report key was kept")
    flow = write(os.path.join(tmp, "flow.yaml"), TINY_TEMPLATE.replace(
        "grid:\n  nx: 40\n  ny: 40\n  nz: 40\n  dx: 10\n  dy: 10\n  dz: 10\n",
        "grid: {nx: 40, ny: 40, nz: 40, dx: 10, dy: 10, dz: 10}  # flow style\n").replace(
        "output:\n  gather: gather.h5\n  overwrite: true\n",
        "output: {gather: '{out}/shot.h5', overwrite: true}\n"))
    out = os.path.join(tmp, "flow")
    args = ("run", "weak", flow, "--ranks", "1,2", "--points-per-rank-z", "20", "--out", out,
            "--launcher", launcher, "--seisfd", seisfd)
    scaling_ok(*args)
    job = open(os.path.join(out, "runs", "ranks-0002-rep1", "job.yaml")).read()
    run_dir = os.path.join(out, "runs", "ranks-0002-rep1")
    for line in ("grid: {nz: 40, nx: 40, ny: 40, dx: 10, dy: 10, dz: 10}  # flow style\n",
                 f"output: {{report: \"{run_dir}/report.json\", gather: '{run_dir}/shot.h5', "
                 "overwrite: true}\n"):
        check(line in job, f"job.yaml lacks {line.strip()!r}:\n{job}")
    scaling_error("already exists: pass --resume", *args)
    resumed = scaling_ok(*args, "--resume")
    check(resumed.count(": kept:") == 2, f"--resume should keep both runs:\n{resumed}")
    return "block and flow templates, median of 3, resume"


def test_template_editing(tmp):
    """set_mapping_key on the layouts a job file takes, directly."""
    sys.path.insert(0, os.path.join(ROOT, "jobs"))
    import scaling as driver
    cases = [
        ("output:\n  gather: a.h5\n  # note\n  report: old\nrun: {device: cpu}\n",
         "output:\n  gather: a.h5\n  # note\n  report: NEW\nrun: {device: cpu}\n"),
        ("output:\n    gather: a.h5\n\nrun:\n  device: cpu\n",
         "output:\n    report: NEW\n    gather: a.h5\n\nrun:\n  device: cpu\n"),
        ("output:\n  report:\n    nested: 1\n    more: 2\n  gather: a.h5\n",
         "output:\n  report: NEW\n  gather: a.h5\n"),
        ("output: {gather: a.h5, snapshots: {path: s.h5, every: 5}, report: r}  # c\n",
         "output: {report: NEW, gather: a.h5, snapshots: {path: s.h5, every: 5}}  # c\n"),
        ("grid:\n  nx: 4\n", "grid:\n  nx: 4\noutput:\n  report: NEW\n"),
    ]
    for before, after in cases:
        got = driver.set_mapping_key(before, "output", "report", "NEW", "t.yaml")
        check(got == after, f"from {before!r}\nexpected {after!r}\ngot      {got!r}")
    for refused in ('{"output": {"gather": "a.h5"}}', "output: {gather: a.h5,\n  x: 1}\n"):
        try:
            driver.set_mapping_key(refused, "output", "report", "NEW", "t.yaml")
        except driver.ScalingError as e:
            check("report: NEW" in str(e), f"the message should say what to write: {e}")
        else:
            raise AssertionError(f"{refused!r} should be refused")
    check(driver.evaluate("max(4, 512*ranks // 3)", {"ranks": 3}, "t") == 512,
          "expression evaluation")


# -------------------------------------------------------------- batch scripts

def test_batch_scripts(tmp):
    template = write(os.path.join(tmp, "tiny.yaml"), TINY_TEMPLATE)
    slurm = os.path.join(tmp, "strong.slurm")
    scaling_ok("script", "slurm", "strong", template, "--ranks", "1,2,4,8", "--out",
               os.path.join(tmp, "s"), "--gpus-per-node", "4", "--time", "00:30:00",
               "--directive=--account=geo", "--setup", "module load cuda openmpi",
               "--script", slurm)
    text = open(slurm).read()
    for line in ("#SBATCH --nodes=2", "#SBATCH --ntasks-per-node=4", "#SBATCH --gpus-per-node=4",
                 "--gpu-bind=none", "export SEISFD_GPU_AWARE_MPI=${SEISFD_GPU_AWARE_MPI:-auto}",
                 "#SBATCH --time=00:30:00", "#SBATCH --account=geo", "module load cuda openmpi",
                 "#SBATCH --signal=USR1@60",
                 "srun --nodes={nodes} --ntasks={ranks}"):
        check(line in text, f"{slurm} lacks {line!r}:\n{text}")
    pbs = os.path.join(tmp, "weak.pbs")
    scaling_ok("script", "pbs", "weak", template, "--ranks", "2,4", "--points-per-rank-z", "64",
               "--out", os.path.join(tmp, "p"), "--ranks-per-node", "2", "--cores-per-rank",
               "16", "--script", pbs)
    text = open(pbs).read()
    for line in ("#PBS -l select=2:ncpus=32:mpiprocs=2:ompthreads=16", "--points-per-rank-z 64",
                 "--map-by ppr:2:node:PE=16", "--resume", "# PBS has no standard signal ahead"):
        check(line in text, f"{pbs} lacks {line!r}:\n{text}")
    for path in (slurm, pbs):
        p = subprocess.run(["bash", "-n", path], capture_output=True, text=True)
        check(p.returncode == 0, f"{path} is not valid bash: {p.stderr}")
    # The series the PBS job will run, read back through the driver's own parser.
    sys.path.insert(0, os.path.join(ROOT, "jobs"))
    import scaling as driver
    command = text[text.index("python3 "):].replace("\\\n", " ")
    series = driver.parse(shlex.split(command)[2:])
    check((series.command, series.mode, series.ranks, series.points_per_rank_z, series.resume)
          == ("run", "weak", [2, 4], 64, True), f"the PBS job runs {series}")
    check(series.launcher.startswith("mpirun -np {ranks} --hostfile $PBS_NODEFILE"),
          f"PBS launcher {series.launcher}")
    scaling_error("--gpus-per-node", "script", "slurm", "strong", template, "--ranks", "1",
                  "--out", os.path.join(tmp, "x"))


# --------------------------------------------------------------------- errors

def test_errors(tmp):
    """One-line errors for missing and bad reports, failed runs (with the end
    of their stderr, without mpirun's notes), and bad templates or options."""
    scaling_error("no such report or directory: '/nonexistent/r.json'",
                  "collect", "strong", "/nonexistent/r.json", "--out", tmp)
    unfinished = os.path.join(tmp, "series", "runs", "ranks-0004-rep1")
    os.makedirs(unfinished)
    write(os.path.join(unfinished, "command.txt"), "mpirun -np 4 seisfd run job.yaml\n")
    shutil.copytree(os.path.join(FIXTURES, "strong", "runs", "ranks-0001-rep1"),
                    os.path.join(tmp, "series", "runs", "ranks-0001-rep1"))
    scaling_error(f"{unfinished}: no report.json: the run did not finish",
                  "collect", "strong", os.path.join(tmp, "series"))
    scaling_error("shot 0 failed: CUDA error: out of memory on rank 3",
                  "collect", "strong", os.path.join(FIXTURES, "failed.report.json"), "--out", tmp)
    bad = write(os.path.join(tmp, "bad.report.json"), "{\"ranks\": 2,\n")
    scaling_error("not a JSON report (line 2", "collect", "strong", bad, "--out", tmp)
    scaling_error("the reports mix nz = 500", "collect", "strong",
                  os.path.join(FIXTURES, "weak"), "--out", tmp)

    seisfd = stand_in(tmp)
    template = write(os.path.join(tmp, "tiny.yaml"), TINY_TEMPLATE)
    err = scaling_error("ranks 1 (rep 1): ", "run", "strong", template, "--ranks", "1", "--out",
                        os.path.join(tmp, "fail"), "--launcher", "env FAKE_FAIL=1",
                        "--seisfd", seisfd)
    check("exited with status 1" in err and "grid.nz: 9 planes per rank" in err
          and "seisfd: error: 1 problem" in err and "Primary job" not in err,
          f"the failure should show seisfd's stderr, not mpirun's notes:\n{err}")
    scaling_error("the report says 1 ranks; does the launcher pass {ranks}", "run", "strong",
                  template, "--ranks", "2", "--out", os.path.join(tmp, "noranks"),
                  "--launcher", "env", "--seisfd", seisfd)
    typo = write(os.path.join(tmp, "typo.yaml"), TINY_TEMPLATE.replace("nx: 40", "nx: {nxx}"))
    scaling_error(f"{typo}:3: unknown placeholder {{nxx}}", "run", "strong", typo,
                  "--ranks", "1", "--out", os.path.join(tmp, "typo"))
    as_json = write(os.path.join(tmp, "job.json"), '{"output": {"gather": "g.h5"}}\n')
    scaling_error("put report: \"{report}\" in its output mapping", "run", "strong", as_json,
                  "--ranks", "1", "--out", os.path.join(tmp, "json"))
    scaling_error("weak scaling grows nz", "run", "weak", template, "--ranks", "1,2",
                  "--out", os.path.join(tmp, "w"))
    scaling_error("unknown name 'rank'", "run", "weak", template, "--ranks", "1,2", "--nz",
                  "32*rank", "--out", os.path.join(tmp, "w"))
    scaling_error("no such job template", "run", "strong", os.path.join(tmp, "none.yaml"),
                  "--ranks", "1", "--out", os.path.join(tmp, "w"))
    check(not os.path.exists(os.path.join(tmp, "w")), "a refused series left a directory")
