"""SIGINT, SIGTERM and SIGUSR1 stop a run cleanly: one message, nothing of
the run left behind, earlier outputs as they were, the run report with
status "interrupted", a non-zero exit, and a re-run that completes
(README, "Failures and exit status" under "Running" and "Surveys")."""
import hashlib
import json
import os
import re
import signal
import subprocess
import time

from testlib import MPIRUN, MPIRUN_FLAGS, Skipped, base_job, check, heavy, leftovers, rank_pids, \
    run, run_job, session_processes, start, time_limit, wait_for_line

# Open MPI's launcher, told to end, sends the ranks SIGCONT, then SIGTERM
# after this many seconds, then SIGKILL after as many again: the ranks'
# time to stop cleanly. A signal that reaches the ranks directly (or
# forwarded, SIGUSR1) needs none: they leave MPI_Finalize together, their
# cleaning done, and testlib's 0 spares the launcher's waits.
SIGKILL_AFTER = 3


def launcher_env(signum, to_rank):
    """The environment of a run that gets signum."""
    if to_rank or signum == signal.SIGUSR1:
        return None
    return {"OMPI_MCA_odls_base_sigkill_timeout": str(SIGKILL_AFTER)}
# Runs that a signal stops long before their end: 30000 steps of a
# single shot on 80^3 (about 25 s on a quiet 2-core machine, so that even
# a machine several times faster is still stepping when the launcher's
# SIGTERM comes), 24 shots of a survey (about 0.5 s each), since a run that
# the launcher is told to end goes on for SIGKILL_AFTER seconds; 8 shots
# where the signal reaches the ranks at once.
LONG_SHOT = 30.0      # seconds of record at dt = 1 ms
LAUNCHER_SHOTS, DIRECT_SHOTS = 24, 8
# A survey shot's record: long enough that the shots of a survey take far
# longer than the launcher's delay before it passes a signal on (about
# 0.5 s a shot on a quiet 2-core machine, 24 shots on 2 groups against
# 3 s), so some shot is always left to stop or not to start.
SHOT_SECONDS = 4.0
SURVEY_GRID = {"nx": 40, "ny": 30, "nz": 32, "dx": 10, "dy": 10, "dz": 10}


def digests(directory, names):
    out = {}
    for name in names:
        with open(os.path.join(directory, name), "rb") as f:
            out[name] = hashlib.sha256(f.read()).hexdigest()
    return out


def require_launcher_passing_sigusr1(tmp):
    """Skips unless SIGUSR1 sent to this machine's launcher reaches its
    rank. A launcher started with the signal blocked (a mask survives
    exec) holds it: on one GPU machine `mpirun` never passed it to a script
    that traps it, which a launcher started with SIGUSR1 blocked does here
    too; seisfd cannot receive what the launcher keeps."""
    probe = os.path.join(tmp, "usr1-probe.sh")
    with open(probe, "w") as f:
        f.write("#!/bin/sh\ntrap 'exit 3' USR1\ni=0\n"
                "while [ $i -lt 100 ]; do sleep 0.1; i=$((i + 1)); done\n")
    os.chmod(probe, 0o755)
    proc = subprocess.Popen([MPIRUN, *MPIRUN_FLAGS, "-np", "1", probe],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.0)   # the launcher's handlers and the script's trap in place
    os.kill(proc.pid, signal.SIGUSR1)
    if proc.wait(timeout=time_limit(60)) == 0:
        raise Skipped("this machine's launcher does not pass SIGUSR1 on: a 1-rank script "
                      "that traps it ran to its end")


def send(proc, signum, to_rank):
    """The signal to the launcher, or to the last rank alone."""
    os.kill(rank_pids(proc.pid)[-1] if to_rank else proc.pid, signum)


def finish(proc, timeout=120):
    """Waits for the launcher and for every process of its session."""
    out, err = proc.communicate(timeout=time_limit(timeout))
    end = time.time() + time_limit(30)
    while session_processes(proc.pid):
        check(time.time() < end, "ranks still running after the launcher ended")
        time.sleep(0.05)
    return out, err


def expected_status(signum, to_rank):
    """seisfd's ranks exit 128 + the signal they got. Open MPI's launcher
    passes that on when it forwarded the signal (SIGUSR1) or a rank got it
    directly; told to end (SIGINT, SIGTERM), it exits with its own 1."""
    if to_rank or signum == signal.SIGUSR1:
        return 128 + signum
    return 1


def seen_signal(signum):
    """The launcher forwards SIGINT to the ranks as SIGTERM."""
    return "SIGUSR1" if signum == signal.SIGUSR1 else "SIGTERM"


def check_clean(tmp, err, directory, earlier):
    """No error, nothing left behind, the earlier files as they were."""
    check("seisfd: error" not in err, f"an error besides the interruption:\n{err}")
    check(not leftovers(tmp), f"left behind: {leftovers(tmp)}")
    now = digests(directory, earlier)
    check(now == earlier, f"earlier outputs changed: {sorted(k for k in now if now[k] != earlier[k])}")


def read_report(path):
    with open(path) as f:
        return json.load(f)


# ---- a single shot ---------------------------------------------------------------

def single_job(duration):
    job = base_job(n=(80, 80, 80), cpml=6, duration=duration, gather="out/g.h5")
    job["receivers"]["sampling"] = 0.002   # SEG-Y holds at most 32767 samples
    job["output"]["segy"] = "out/g.sgy"
    job["run"] = {"progress_interval": 0.05}
    return job


def interrupt_single_shot(tmp, signum, to_rank=False):
    """An earlier complete run writes the outputs; a long run of the same
    outputs gets the signal once it reports progress; then a run of those
    outputs completes (the shorter job again: a single shot's re-run has
    nothing to resume, and only a lock or file left over could stop it)."""
    if signum == signal.SIGUSR1 and not to_rank:
        require_launcher_passing_sigusr1(tmp)
    names = ["g.h5", "g.sgy"]
    out_dir = os.path.join(tmp, "out")
    run_job(tmp, single_job(0.1), name="short")
    earlier = digests(out_dir, names)

    proc = start(tmp, single_job(LONG_SHOT), ranks=2, env=launcher_env(signum, to_rank))
    wait_for_line(proc, "  step ")
    send(proc, signum, to_rank)
    out, err = finish(proc)
    name = seen_signal(signum)
    usr1_note = (r" \(a single shot cannot finish early: SIGUSR1 stops it as SIGTERM does\)"
                 if signum == signal.SIGUSR1 else "")
    message = re.findall(rf"seisfd: interrupted by {name} at step (\d+) of (\d+); no outputs "
                         rf"written, earlier files left as they were{usr1_note}\n", err)
    check(len(message) == 1 and int(message[0][0]) < int(message[0][1]),
          f"not one message of the interruption:\n{err}")
    check(proc.returncode == expected_status(signum, to_rank),
          f"exit status {proc.returncode}, expected {expected_status(signum, to_rank)}")
    check_clean(tmp, err, out_dir, earlier)
    report = read_report(os.path.join(out_dir, "g.report.json"))
    shot = report["shots"][0]
    check(report["status"] == "interrupted" and report["signal"] == name and
          shot["status"] == "interrupted" and shot["files"] == [] and
          shot["steps"] == int(message[0][0]) and report["totals"]["interrupted"] == 1,
          f"report: status {report['status']}, signal {report['signal']}, shot {shot}")

    rc, out, err = run_job(tmp, single_job(0.1), name="short")
    check(read_report(os.path.join(out_dir, "g.report.json"))["status"] == "done",
          "the re-run's report is not done")
    return f"stopped at step {message[0][0]} of {message[0][1]}, exit {proc.returncode}; re-run done"


def test_single_shot_sigint_to_launcher(tmp):
    return interrupt_single_shot(tmp, signal.SIGINT)


def test_single_shot_sigterm_to_launcher(tmp):
    return interrupt_single_shot(tmp, signal.SIGTERM)


def test_single_shot_sigusr1_to_launcher(tmp):
    return interrupt_single_shot(tmp, signal.SIGUSR1)


def test_single_shot_sigterm_to_one_rank(tmp):
    return interrupt_single_shot(tmp, signal.SIGTERM, to_rank=True)


# ---- a survey --------------------------------------------------------------------

def survey_job(duration, shots):
    return {
        "grid": SURVEY_GRID,
        "time": {"dt": 0.001, "duration": duration},
        "model": {"type": "homogeneous", "vp": 2000},
        "boundaries": {"cpml": 6},
        "source": {"frequency": 12},
        "receivers": {"line": {"start": [40, 150, 20], "end": [360, 150, 20], "count": 5}},
        "survey": {"ranks_per_shot": 1,
                   "shots": [{"position": [100 + 8 * k, 150, 60]} for k in range(shots)]},
        "output": {"directory": "out", "overwrite": True},
    }


def shot_lines(directory):
    with open(os.path.join(directory, "manifest.jsonl")) as f:
        return [json.loads(line) for line in f if '"shot"' in line]


def interrupt_survey(tmp, signum, to_rank=False, rerun=True):
    """Two groups of one rank. An earlier survey of another job writes
    every shot's file; this job (--restart fresh) gets the signal once a
    shot is done. SIGINT and SIGTERM stop the shots under way, SIGUSR1
    lets them finish; either way no shot starts after it, the files of
    the shots not done are the earlier ones, and the manifest records the
    shots done, which the re-run skips while it computes the rest (rerun:
    a re-run reads only the manifest and the files, which every caller
    checks alike, so one of the signals that stop shots under way skips
    it: its 22 shots were the suite's longest minute)."""
    if signum == signal.SIGUSR1 and not to_rank:
        require_launcher_passing_sigusr1(tmp)
    shots = LAUNCHER_SHOTS if launcher_env(signum, to_rank) else DIRECT_SHOTS
    out_dir = os.path.join(tmp, "out")
    names = [f"shot_{n:04d}.h5" for n in range(1, shots + 1)]
    run_job(tmp, survey_job(0.05, shots), name="short", ranks=2)
    earlier = digests(out_dir, names)

    proc = start(tmp, survey_job(SHOT_SECONDS, shots), ranks=2, args=("--restart", "fresh"),
                 env=launcher_env(signum, to_rank))
    wait_for_line(proc, "shot ")
    send(proc, signum, to_rank)
    out, err = finish(proc)
    name = seen_signal(signum)
    after = " once the shots under way were done" if signum == signal.SIGUSR1 else ""
    message = re.findall(rf"seisfd: interrupted by {name}{after}: (\d+) shots? done in this run, "
                         rf"0 skipped \(done earlier\), 0 failed, (\d+) stopped \(their new files "
                         rf"removed, earlier ones left as they were\), (\d+) not started, of "
                         rf"{shots}; the manifest records the shots done, and a re-run computes "
                         rf"the rest\n", err)
    check(len(message) == 1, f"not one message of the interruption:\n{err}")
    done, stopped, pending = (int(x) for x in message[0])
    check(done + stopped + pending == shots and pending > 0 and done >= 1,
          f"{done} done, {stopped} stopped, {pending} not started")
    check(stopped == 0 or signum != signal.SIGUSR1, "SIGUSR1 stopped shots under way")
    check(proc.returncode == expected_status(signum, to_rank),
          f"exit status {proc.returncode}, expected {expected_status(signum, to_rank)}")

    report = read_report(os.path.join(out_dir, "report.json"))
    status = {s["index"]: s["status"] for s in report["shots"]}
    recorded = {m["shot"] for m in shot_lines(out_dir) if m["status"] == "done"}
    check(report["status"] == "interrupted" and report["signal"] == name and
          recorded == {n for n, s in status.items() if s == "done"} and
          sorted(status.values()).count("interrupted") == stopped,
          f"report {report['status']} {report['signal']} {status}; manifest {sorted(recorded)}")
    not_done = [names[n - 1] for n in status if n not in recorded]
    check_clean(tmp, err, out_dir, {n: earlier[n] for n in not_done})
    summary = f"{done} done, {stopped} stopped, {pending} not started; exit {proc.returncode}"
    if not rerun:
        return summary + "; the re-run is the SIGTERM test's"

    rc, out, err = run(["run", "job.yaml"], ranks=2, cwd=tmp)
    check(rc == 0 and f"survey finished: {shots - done} shot" in out and
          f"done in this run, {done} skipped (done earlier), 0 failed, of {shots}" in out,
          f"the re-run did not compute only the rest:\n{out}\n{err}")
    return f"{summary}; the re-run computed {shots - done}"


def test_survey_sigint_to_launcher(tmp):
    return interrupt_survey(tmp, signal.SIGINT, rerun=False)


@heavy
def test_survey_sigterm_to_launcher(tmp):
    return interrupt_survey(tmp, signal.SIGTERM)


@heavy
def test_survey_sigusr1_to_launcher(tmp):
    return interrupt_survey(tmp, signal.SIGUSR1)


def test_survey_sigterm_to_one_rank(tmp):
    return interrupt_survey(tmp, signal.SIGTERM, to_rank=True)
