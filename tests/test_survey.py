"""Surveys: many shots in one job on groups of ranks, restart after a kill,
failed shots, and the run report (README, "Surveys" and "Run report")."""
import hashlib
import json
import os
import re
import signal
import socket
import subprocess
import time

import h5py
import numpy as np

from testlib import check, kill_job, leftovers, rank_pids, read_gather, run, run_job, \
    session_processes, signal_ranks, small_tmpfs, start, threads_per_rank, time_limit, \
    wait_for_line, write_job

GRID = {"nx": 40, "ny": 30, "nz": 32, "dx": 10, "dy": 10, "dz": 10}
RECEIVERS = {"line": {"start": [40, 150, 20], "end": [360, 150, 20], "count": 17}}
# Overrides of every kind; shot 3 has another frequency (hence other CPML
# profiles) and its depth apart from its position.
SHOTS = [{"position": [100, 150, 60]},
         {"position": [200, 150, 80], "amplitude": 2.0},
         {"position": [300, 150], "depth": 100, "frequency": 15},
         {"position": [250, 120, 70], "delay": 0.1}]


def survey_job(shots=SHOTS, ranks_per_shot=2, directory="out", duration=0.15, grid=GRID,
               segy=False, check_every=None):
    job = {
        "grid": grid,
        "time": {"dt": 0.001, "duration": duration},
        "model": {"type": "layered", "layers": [{"top": 0, "vp": 1800}, {"top": 200, "vp": 2600}]},
        "boundaries": {"cpml": 8, "free_surface": True},
        "source": {"frequency": 12},
        "receivers": RECEIVERS,
        "survey": {"ranks_per_shot": ranks_per_shot, "shots": shots},
        "output": {"directory": directory, "segy": segy},
    }
    if check_every is not None:
        job["run"] = {"check_every": check_every}
    return job


def single_shot_job(shot, gather):
    """The same shot as a job of its own."""
    job = survey_job()
    del job["survey"]
    position = list(shot["position"])
    if len(position) == 2:
        position.append(shot["depth"])
    job["source"] = {"frequency": shot.get("frequency", 12), "position": position,
                     "amplitude": shot.get("amplitude", 1.0)}
    if "delay" in shot:
        job["source"]["delay"] = shot["delay"]
    job["output"] = {"gather": gather, "overwrite": True}
    return job


def manifest_lines(directory):
    with open(os.path.join(directory, "manifest.jsonl")) as f:
        return [json.loads(line) for line in f if line.strip()]


def shot_lines(directory, status=None):
    return [m for m in manifest_lines(directory)
            if "shot" in m and (status is None or m["status"] == status)]


def digest(path):
    with open(path, "rb") as f:
        return hashlib.sha256(f.read()).hexdigest()


def test_groups_of_two_match_single_shots(tmp):
    """4 ranks as 2 groups of 2, 4 shots with per-shot overrides (one also
    overridden by number): every
    gather equals the same shot run alone on 1 rank, bit for bit (both
    decompositions add the same terms in the same order), and both groups
    took shots from the dispatcher."""
    job = survey_job(segy=True)
    # An override by number on top of a listed shot's own: both apply.
    job["survey"]["overrides"] = [{"shot": 3, "amplitude": 0.5}]
    rc, out, err = run_job(tmp, job, name="survey", ranks=4)
    check("4 shots, receivers fixed, 2 groups of 2 ranks" in out, f"no survey summary:\n{out}")
    done = shot_lines(os.path.join(tmp, "out"), "done")
    check(sorted(m["shot"] for m in done) == [1, 2, 3, 4], f"manifest: {done}")
    for n, shot in enumerate(SHOTS, start=1):
        shot = dict(shot, amplitude=0.5) if n == 3 else shot
        alone = f"alone{n}.h5"
        run_job(tmp, single_shot_job(shot, alone), name=f"alone{n}", ranks=1)
        a = read_gather(os.path.join(tmp, alone))
        s = read_gather(os.path.join(tmp, "out", f"shot_{n:04d}.h5"))
        check(np.abs(a["traces"]).max() > 0, f"shot {n} recorded nothing")
        check(np.array_equal(a["traces"], s["traces"]),
              f"shot {n}: the survey's gather differs from the shot alone by "
              f"{np.abs(a['traces'] - s['traces']).max() / np.abs(a['traces']).max():.3g} of the peak")
        check(np.array_equal(a["source"], s["source"]) and np.array_equal(a["receivers"], s["receivers"]),
              f"shot {n}: positions differ")
        check(s["attrs"]["shot"] == n and s["attrs"]["survey_shots"] == 4, f"shot {n}: attributes")
        check(os.path.exists(os.path.join(tmp, "out", f"shot_{n:04d}.sgy")), f"no SEG-Y for shot {n}")
    with open(os.path.join(tmp, "out", "report.json")) as f:
        report = json.load(f)
    groups = {s["group"] for s in report["shots"]}
    check(groups == {0, 1}, f"the shots went to groups {groups}, not to both")
    return "4 shots on 2 groups of 2 == each shot alone on 1 rank, bit for bit"


def long_survey():
    """Six shots of about a second each on one rank."""
    grid = {"nx": 48, "ny": 48, "nz": 48, "dx": 10, "dy": 10, "dz": 10}
    shots = [{"position": [120 + 40 * k, 240, 100]} for k in range(6)]
    job = survey_job(shots=shots, ranks_per_shot=1, duration=0.5, grid=grid, segy=True)
    job["receivers"] = {"line": {"start": [40, 240, 20], "end": [440, 240, 20], "count": 21}}
    return job


def outputs_of(directory):
    return sorted(f for f in os.listdir(directory) if f.startswith("shot_"))


def test_killed_survey_resumes_without_recomputing(tmp):
    """SIGKILL to the launcher and its ranks once the manifest records a
    finished shot; the re-run skips the recorded shots (their files keep
    their times, their manifest lines stay single) and ends with outputs
    equal byte for byte to an uninterrupted run's."""
    reference, killed = os.path.join(tmp, "reference"), os.path.join(tmp, "killed")
    os.makedirs(reference)
    os.makedirs(killed)
    write_job(os.path.join(reference, "job.yaml"), long_survey())
    rc, out, err = run(["run", "job.yaml"], ranks=2, cwd=reference)
    check(rc == 0, f"the uninterrupted survey failed:\n{err[-3000:]}")

    proc = start(killed, long_survey(), ranks=2)
    directory = os.path.join(killed, "out")
    end = time.time() + time_limit(120)
    while not (os.path.exists(os.path.join(directory, "manifest.jsonl")) and
               shot_lines(directory, "done")):
        if proc.poll() is not None:
            check(False, f"the survey ended before the kill:\n{proc.stderr.read()}")
        check(time.time() < end, f"no shot finished within {time_limit(120):g} s")
        time.sleep(0.05)
    kill_job(proc)
    before = {m["shot"]: m for m in shot_lines(directory, "done")}
    check(len(before) < 6, "every shot finished before the kill; nothing to resume")
    times = {n: {f["name"]: os.stat(os.path.join(directory, f["name"])).st_mtime_ns
                 for f in m["files"]} for n, m in before.items()}

    rc, out, err = run(["run", "job.yaml"], ranks=2, cwd=killed)
    check(rc == 0, f"the re-run failed:\n{err[-3000:]}")
    check(f"{len(before)} shot{'s' if len(before) > 1 else ''} done and verified (skipped)" in out,
          f"the re-run did not skip the {len(before)} recorded shots:\n{out}")
    lines = shot_lines(directory)
    for n, files in times.items():
        mine = [m for m in lines if m["shot"] == n]
        check(mine == [before[n]], f"shot {n} was recorded again after the kill: {mine}")
        for name, mtime in files.items():
            check(os.stat(os.path.join(directory, name)).st_mtime_ns == mtime,
                  f"{name} was written again although shot {n} was done")
    check(sorted(m["shot"] for m in shot_lines(directory, "done")) == list(range(1, 7)),
          f"not every shot is done: {lines}")
    names = outputs_of(directory)
    check(names == outputs_of(os.path.join(reference, "out")) and len(names) == 12,
          f"outputs {names}")
    for name in names:
        check(digest(os.path.join(directory, name)) ==
              digest(os.path.join(reference, "out", name)),
              f"{name} differs from the uninterrupted run's")
    leftovers = [f for f in os.listdir(directory) if f.endswith(".partial")]
    check(not leftovers, f"partial files left: {leftovers}")
    return (f"killed after {len(before)} of 6 shots; re-run skipped them and matched the "
            f"uninterrupted run byte for byte")


def test_second_survey_on_directory_refused(tmp):
    """A survey holds its output directory for the whole run: a second run
    on it is refused at once (run and check), naming the first's host and
    process; the first completes."""
    job = survey_job(shots=SHOTS[:2], ranks_per_shot=1)
    first = start(tmp, job, "first")
    wait_for_line(first, "  restart ")   # the directory is claimed
    holder = rank_pids(first.pid)
    signal_ranks(first, signal.SIGSTOP)
    try:
        rc, out, err = run_job(tmp, job, name="second", expect_ok=False)
        rc_check, _, err_check = run(["check", "second.yaml"], cwd=tmp)
    finally:
        signal_ranks(first, signal.SIGCONT)
    busy = (rf"second\.yaml:\d+:\d+: output\.directory: 'out' is in use by another seisfd run "
            rf"\(host {re.escape(socket.gethostname())}, pid {holder[0]}, ")
    check(rc != 0 and re.search(busy, err), f"the second survey was not refused:\n{err}")
    check(rc_check != 0 and re.search(busy, err_check), f"check did not see the lock:\n{err_check}")
    out, err = first.communicate(timeout=time_limit(300))
    check(first.returncode == 0 and len(shot_lines(os.path.join(tmp, "out"), "done")) == 2,
          f"the first survey did not complete:\n{err[-3000:]}")
    check(not leftovers(tmp), f"left behind: {leftovers(tmp)}")
    return f"refused naming pid {holder[0]}; the first survey completed"


def wait_for_done(proc, directory, count, timeout=600):
    """Waits until the manifest records `count` done shots (or more); the
    bound only catches a survey that hangs, not a slow machine."""
    limit = time_limit(timeout)
    end = time.time() + limit
    path = os.path.join(directory, "manifest.jsonl")
    while not (os.path.exists(path) and len(shot_lines(directory, "done")) >= count):
        if proc.poll() is not None:
            check(False, f"the survey ended early:\n{proc.stderr.read()}")
        check(time.time() < end, f"{count} shots not done within {limit:g} s")
        time.sleep(0.02)


def survey_held_after_its_first_shot(tmp, count):
    """A survey of `count` shots on 1-rank groups (about 0.3 s a shot),
    its ranks stopped once the manifest records a shot: (the shots, the
    launcher, the output directory, the manifest's path)."""
    shots = [{"position": [80 + 50 * k, 150, 80]} for k in range(count)]
    directory = os.path.join(tmp, "out")
    proc = start(tmp, survey_job(shots=shots, ranks_per_shot=1, duration=1.0))
    wait_for_done(proc, directory, 1)
    signal_ranks(proc, signal.SIGSTOP)
    return shots, proc, directory, os.path.join(directory, "manifest.jsonl")


def test_removed_manifest_is_written_again(tmp):
    """manifest.jsonl removed while a survey runs, and later replaced by
    another file: the survey notices before its next record and writes it
    again whole, with a warning, and ends 0; the manifest then records
    every shot once with its files, and a re-run skips them all."""
    shots, proc, directory, manifest = survey_held_after_its_first_shot(tmp, 5)
    os.remove(manifest)
    signal_ranks(proc, signal.SIGCONT)
    wait_for_done(proc, directory, 2)
    signal_ranks(proc, signal.SIGSTOP)
    replaced = len(shot_lines(directory)) < len(shots)   # a record is still to come
    if replaced:
        with open(manifest + ".other", "w") as f:
            f.write('{"seisfd_manifest": 1, "job_hash": "0000000000000000"}\n')
        os.replace(manifest + ".other", manifest)
    signal_ranks(proc, signal.SIGCONT)
    out, err = proc.communicate(timeout=time_limit(300))
    check(proc.returncode == 0, f"the survey failed:\n{err[-3000:]}")
    check(err.count("was removed or replaced during the run") == 1 + replaced,
          f"not warned of each change:\n{err}")
    lines = manifest_lines(directory)
    check("seisfd_manifest" in lines[0] and lines[0]["job_hash"] != "0000000000000000" and
          len(lines) == 1 + len(shots), f"manifest {lines}")
    done = shot_lines(directory, "done")
    check(sorted(m["shot"] for m in done) == list(range(1, len(shots) + 1)), f"manifest {lines}")
    for m in done:
        for f in m["files"]:
            check(os.path.getsize(os.path.join(directory, f["name"])) == f["size"], f"{f}")
    rc, out, err = run(["run", "job.yaml"], cwd=tmp)
    check(rc == 0 and f"{len(shots)} shots done and verified (skipped), 0 to compute" in out,
          f"the re-run did not skip every shot:\n{out}\n{err}")
    return f"manifest removed{' and replaced' if replaced else ''} mid-run, written again; " \
           "re-run skipped all"


def test_manifest_cut_during_the_run_fails_the_job(tmp):
    """manifest.jsonl emptied in place (the same file, so no record sees a
    change) once a shot is recorded: the last look before the exit finds
    that it no longer holds the run's lines and fails the job with one
    clear error; its header gone too, the re-run starts afresh and
    completes."""
    _, proc, directory, manifest = survey_held_after_its_first_shot(tmp, 4)
    os.truncate(manifest, 0)
    signal_ranks(proc, signal.SIGCONT)
    out, err = proc.communicate(timeout=time_limit(300))
    lost = (f"seisfd: error: the manifest '{os.path.join('out', 'manifest.jsonl')}' no longer "
            f"holds the lines this run wrote: it was removed, replaced or cut after the last of "
            f"them; a re-run computes the shots it does not record again")
    check(proc.returncode == 1 and err.count(lost) == 1 and "survey finished: 4 shots" in out,
          f"exit {proc.returncode}, not the one error:\n{err}")
    rc, out, err = run(["run", "--restart", "fresh", "job.yaml"], cwd=tmp)
    check(rc == 0 and "survey finished: 4 shots done in this run" in out and
          len(shot_lines(directory, "done")) == 4, f"the re-run did not complete:\n{out}\n{err}")
    return "the cut manifest failed the job with one error; a fresh re-run completed"


def test_killed_rank_ends_job_and_rerun_resumes(tmp):
    """SIGKILL to one rank (not the launcher) of 4 ranks in 2 groups of 2,
    once the manifest records a done shot: the whole job ends within
    seconds and no seisfd process is left; the re-run skips the recorded
    shots and every shot's files equal those of an uninterrupted run."""
    reference, killed = os.path.join(tmp, "reference"), os.path.join(tmp, "killed")
    os.makedirs(reference)
    os.makedirs(killed)
    shots = [{"position": [60 + 50 * k, 150, 80]} for k in range(6)]
    job = survey_job(shots=shots, ranks_per_shot=2, duration=1.0, segy=True)
    write_job(os.path.join(reference, "job.yaml"), job)
    rc, out, err = run(["run", "job.yaml"], ranks=4, cwd=reference)
    check(rc == 0, f"the uninterrupted survey failed:\n{err[-3000:]}")

    proc = start(killed, job, ranks=4)
    directory = os.path.join(killed, "out")
    wait_for_done(proc, directory, 1)
    victim = rank_pids(proc.pid)[-1]
    os.kill(victim, signal.SIGKILL)
    killed_at = time.time()
    try:
        proc.communicate(timeout=time_limit(60))
    except subprocess.TimeoutExpired:
        kill_job(proc)
        check(False, f"the job went on for {time_limit(60):g} s after one of its ranks was killed")
    took = time.time() - killed_at
    check(proc.returncode != 0 and took < time_limit(20),
          f"exit {proc.returncode} {took:.1f} s after the kill")
    end = time.time() + time_limit(5)
    while session_processes(proc.pid):
        check(time.time() < end, f"processes left: {session_processes(proc.pid)}")
        time.sleep(0.05)
    before = {m["shot"] for m in shot_lines(directory, "done")}
    check(len(before) < len(shots), "every shot finished before the kill; nothing to resume")

    rc, out, err = run(["run", "job.yaml"], ranks=4, cwd=killed)
    check(rc == 0, f"the re-run failed:\n{err[-3000:]}")
    check(f"{len(before)} shot{'s' if len(before) > 1 else ''} done and verified (skipped)" in out,
          f"the re-run did not skip the {len(before)} recorded shots:\n{out}")
    names = outputs_of(directory)
    check(names == outputs_of(os.path.join(reference, "out")) and len(names) == 2 * len(shots),
          f"outputs {names}")
    for name in names:
        check(digest(os.path.join(directory, name)) ==
              digest(os.path.join(reference, "out", name)),
              f"{name} differs from the uninterrupted run's")
    check(not leftovers(killed), f"left behind: {leftovers(killed)}")
    return (f"rank {victim} killed after {len(before)} of {len(shots)} shots: job ended in "
            f"{took:.1f} s; re-run matched the uninterrupted run byte for byte")


def test_full_disk_fails_later_shots_and_rerun_completes(tmp):
    """The output file system fills up once the first shot is done (a
    small tmpfs, the manifest's last page full too): the later shots fail
    naming their files, the done shot's files and manifest line stay, the
    manifest's failure is a warning, and the job ends non-zero listing the
    failed shots; with room again a re-run computes just those."""
    with small_tmpfs(os.path.join(tmp, "disk"), "1m") as disk:
        return fill_disk_mid_survey(tmp, disk)


def fill_disk_mid_survey(tmp, disk):
    shots = [{"position": [80 + 50 * k, 150, 80]} for k in range(4)]
    job = survey_job(shots=shots, ranks_per_shot=1, duration=1.0, directory="disk/out", segy=True)
    directory = os.path.join(disk, "out")
    manifest = os.path.join(directory, "manifest.jsonl")
    proc = start(tmp, job)
    wait_for_done(proc, directory, 1)
    signal_ranks(proc, signal.SIGSTOP)
    done = {m["shot"]: m for m in shot_lines(directory, "done")}
    kept = {f["name"]: digest(os.path.join(directory, f["name"]))
            for m in done.values() for f in m["files"]}
    with open(manifest, "a") as f:   # blank lines (ignored) up to a page boundary
        f.write("\n" * (-os.path.getsize(manifest) % 4096))
    with open(os.path.join(disk, "filler"), "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    signal_ranks(proc, signal.SIGCONT)
    out, err = proc.communicate(timeout=time_limit(300))
    failed = [n for n in range(1, len(shots) + 1) if n not in done]
    check(proc.returncode != 0 and f"{len(failed)} shot" in err, f"exit {proc.returncode}:\n{err}")
    for n in failed:
        check(re.search(rf"^  shot {n}: .*'disk/out/shot_{n:04d}\.", err, re.M),
              f"shot {n}'s failure does not name its file:\n{err}")
    check("No space left on device" in err and "is not recorded there for now" in err,
          f"the manifest's failure was not a warning:\n{err}")
    check({m["shot"]: m for m in shot_lines(directory, "done")} == done and
          all(digest(os.path.join(directory, name)) == h for name, h in kept.items()),
          "the done shots' files or manifest lines changed")
    check(not leftovers(tmp), f"left behind: {leftovers(tmp)}")

    os.remove(os.path.join(disk, "filler"))
    rc, out, err = run(["run", "job.yaml"], cwd=tmp)
    check(rc == 0 and f"{len(done)} shot{'s' if len(done) > 1 else ''} done and verified "
          f"(skipped), {len(failed)} to compute" in out, f"the re-run:\n{out}\n{err}")
    check(sorted(m["shot"] for m in shot_lines(directory, "done")) == list(range(1, len(shots) + 1)),
          "not every shot is done after the re-run")
    return f"shots {failed} failed on the full disk, {sorted(done)} kept; the re-run completed them"


def test_unstable_shot_fails_while_others_complete(tmp):
    """Shot 2 made to overflow float32 (SEISFD_TEST_GROWTH=1000:2, the test
    hook multiplying its wavefield by 1000 a step) is unstable: it is
    recorded as failed with the step and a point of the grid, leaves no
    file, the other shots complete, and the job exits non-zero listing it;
    a re-run computes shot 2 again and skips the others."""
    shots = [{"position": [100, 150, 60]}, {"position": [200, 150, 120]},
             {"position": [300, 150, 90]}]
    job = survey_job(shots=shots, ranks_per_shot=1, check_every=1)
    growth = {"SEISFD_TEST_GROWTH": "1000:2"}
    rc, out, err = run_job(tmp, job, name="unstable", ranks=2, expect_ok=False, env=growth)
    check(rc != 0, "a survey with a failed shot exited 0")
    m = re.search(r"shot 2: unstable: a non-finite value \(NaN or Inf\) in p at step (\d+) .* "
                  r"= \(([-0-9.e]+), ([-0-9.e]+), ([-0-9.e]+)\) m", err)
    check(m and "1 shot failed" in err, f"the failure is not listed:\n{err}")
    where = [float(v) for v in m.groups()[1:]]
    check(all(0 <= x <= 10 * (GRID[k] - 1) for x, k in zip(where, ("nx", "ny", "nz"))),
          f"the first non-finite value is at {where}, outside the grid")
    directory = os.path.join(tmp, "out")
    check(outputs_of(directory) == ["shot_0001.h5", "shot_0003.h5"],
          f"files after the failure: {outputs_of(directory)}")
    failed = shot_lines(directory, "failed")
    check([m["shot"] for m in failed] == [2] and "non-finite" in failed[0]["reason"],
          f"manifest: {failed}")
    check(sorted(m["shot"] for m in shot_lines(directory, "done")) == [1, 3], "shots 1 and 3")
    with open(os.path.join(directory, "report.json")) as f:
        statuses = [s["status"] for s in json.load(f)["shots"]]
    check(statuses == ["done", "failed", "done"], f"report statuses {statuses}")

    count = len(shot_lines(directory))
    rc, out, err = run_job(tmp, job, name="unstable", ranks=2, expect_ok=False, env=growth)
    check(rc != 0 and "2 shots done and verified (skipped), 1 to compute" in out,
          f"the re-run did not recompute only shot 2:\n{out}\n{err}")
    new = shot_lines(directory)[count:]
    check([(m["shot"], m["status"]) for m in new] == [(2, "failed")], f"new lines {new}")
    return f"shot 2 failed at step {m.group(1)}; 1 and 3 done; re-run retried 2 only"


def test_failed_write_fails_only_that_shot(tmp):
    """A shot whose gather cannot be put in place (a directory appears at
    its name after the checks before the run) fails with the I/O error;
    the others complete and nothing temporary is left. A re-run refuses
    the directory before computing anything."""
    directory = os.path.join(tmp, "out")
    shots = [{"position": [100 + 100 * k, 150, 80]} for k in range(3)]
    proc = start(tmp, survey_job(shots=shots, ranks_per_shot=1), name="io")
    wait_for_line(proc, "  restart ")
    os.makedirs(os.path.join(directory, "shot_0002.h5", "inside"))
    out, err = proc.communicate(timeout=time_limit(300))
    check(proc.returncode != 0, "a survey with a failed write exited 0")
    check(re.search(r"shot 2: .*'out/shot_0002\.h5'.*(directory|Is a directory)", err),
          f"no I/O reason:\n{err}")
    check(outputs_of(directory) == ["shot_0001.h5", "shot_0002.h5", "shot_0003.h5"] and
          os.path.isdir(os.path.join(directory, "shot_0002.h5")), f"files: {outputs_of(directory)}")
    check([m["shot"] for m in shot_lines(directory, "failed")] == [2], "manifest")
    check(not leftovers(tmp), f"left behind: {leftovers(tmp)}")
    rc, out, err = run(["run", "io.yaml"], cwd=tmp)
    check(rc != 0 and re.search(r"io\.yaml:\d+:\d+: output\.directory: 'out/shot_0002\.h5' is a "
                                r"directory, which an output cannot replace", err) and
          "done in" not in out,
          f"the re-run did not refuse the directory before computing:\n{out}\n{err}")
    return "shot 2's write failed, shots 1 and 3 written; the re-run refused the directory"


def test_changed_job_refused_unless_fresh(tmp):
    """A manifest of another job is refused, naming it; --restart fresh
    starts over; a change outside the physics (run.check_every) resumes;
    files of the survey's names without a manifest need overwrite."""
    shots = SHOTS[:2]
    job = survey_job(shots=shots, ranks_per_shot=1)
    run_job(tmp, job, name="first", ranks=1)
    changed = survey_job(shots=shots, ranks_per_shot=1)
    changed["model"]["layers"][1]["vp"] = 2700
    rc, out, err = run_job(tmp, changed, name="changed", ranks=1, expect_ok=False)
    check(rc != 0 and re.search(r"changed\.yaml:\d+:\d+: output\.directory: the manifest "
                                r"'out/manifest\.jsonl' was written for another job", err)
          and "--restart fresh" in err, f"the changed job was not refused:\n{err}")
    path = write_job(os.path.join(tmp, "changed.yaml"), changed)
    rc, out, err = run(["run", "--restart", "fresh", path], ranks=1, cwd=tmp)
    check(rc == 0 and "--restart fresh" in out, f"--restart fresh failed:\n{err}")
    header = manifest_lines(os.path.join(tmp, "out"))
    check(len(header) == 3 and header[0]["job"].endswith("changed.yaml"),
          f"the fresh manifest: {header}")
    resumed = survey_job(shots=shots, ranks_per_shot=1, check_every=7)
    resumed["model"]["layers"][1]["vp"] = 2700
    rc, out, err = run_job(tmp, resumed, name="resumed", ranks=1)
    check("2 shots done and verified (skipped), 0 to compute" in out,
          f"a change of run.check_every did not resume:\n{out}")
    foreign = survey_job(shots=shots, ranks_per_shot=1, directory="other")
    os.makedirs(os.path.join(tmp, "other"))
    open(os.path.join(tmp, "other", "shot_0002.h5"), "w").close()
    rc, out, err = run_job(tmp, foreign, name="foreign", ranks=1, expect_ok=False)
    check(rc != 0 and "'other/shot_0002.h5' already exists and no manifest" in err,
          f"a foreign file was not refused:\n{err}")
    return "another job refused, fresh start, resume across run keys, foreign files refused"


SHOT_KEYS = {"index": int, "status": str, "group": int, "seconds": float, "loop_seconds": float,
             "steps": int, "points_per_second": float, "files": list, "phases": dict}
SETUP_PARTS = ["devices", "slab_cut", "model", "checks", "medium", "backend"]

PHASES = ["stencil", "halo_pack", "halo_d2h", "halo_mpi", "halo_h2d", "halo_unpack",
          "halo_exposed", "acquisition", "io"]
CONFIG_KEYS = {"physics": str, "order": int, "nx": int, "ny": int, "nz": int, "dx": float,
               "dy": float, "dz": float, "dt": float, "steps": int, "cpml": int,
               "free_surface": bool, "device": str, "gpu_aware_mpi": str, "halo_transport": str,
               "model": str, "shots": int}
# Host copies exist only with host staging on a GPU: null elsewhere.
COPY_PHASES = ["halo_d2h", "halo_h2d"]
TOTAL_KEYS = ["shots", "done", "failed", "skipped", "interrupted", "points_per_second",
              "shots_per_hour", "loop_seconds"]


def is_type(value, kind):
    if kind is float:
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind is int:
        return isinstance(value, int) and not isinstance(value, bool)
    return isinstance(value, kind)


def check_report(path, command, ranks, groups, shots):
    """Every documented field, of its type, with consistent values."""
    with open(path) as f:
        r = json.load(f)
    stamp = r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$"
    check(r["command"] == command and isinstance(r["seisfd_version"], str), "command, version")
    check(re.match(stamp, r["started"]) and re.match(stamp, r["finished"]), "times")
    check(is_type(r["wall_seconds"], float) and r["wall_seconds"] > 0, "wall_seconds")
    check(r["status"] == "done" and r["signal"] is None, f"status {r['status']}, {r['signal']}")
    if command == "run":
        check(isinstance(r["job"]["path"], str) and re.match(r"^[0-9a-f]{16}$", r["job"]["hash"]),
              f"job {r['job']}")
    else:
        check(r["job"] == {"path": None, "hash": None}, f"bench job {r['job']}")
    for key, kind in CONFIG_KEYS.items():
        check(is_type(r["config"].get(key), kind), f"config.{key} = {r['config'].get(key)}")
    check(r["config"]["device"] == "cpu" and r["config"]["shots"] == shots, "config device, shots")
    check(r["config"]["gpu_aware_mpi"] == "auto" and r["config"]["halo_transport"] == "host memory",
          f"config halo {r['config']}")
    check((r["ranks"], r["groups"], r["ranks_per_shot"]) == (ranks, groups, ranks // groups),
          "ranks, groups, ranks_per_shot")
    check([p["rank"] for p in r["processes"]] == list(range(ranks)), "processes")
    for p in r["processes"]:
        check(isinstance(p["host"], str) and p["gpu"] is None and p["memory_bytes"] > 0 and
              p["group"] == p["rank"] // (ranks // groups) and
              p["halo"].startswith("host memory: the CPU backend") and
              sorted(p["setup_seconds"]) == sorted(SETUP_PARTS) and min(p["setup_seconds"].values()) >= 0 and
              # testlib sets OMP_NUM_THREADS for every run
              p["threads"] == {"count": threads_per_rank(ranks),
                               "origin": "OMP_NUM_THREADS"}, f"process {p}")
    check(len(r["shots"]) == shots, "shot entries")
    c = r["config"]
    for s in r["shots"]:
        for key, kind in SHOT_KEYS.items():
            check(is_type(s.get(key), kind), f"shots[].{key} = {s.get(key)}")
        check(sorted(s["phases"]) == sorted(PHASES + ["guard"]), f"phases {sorted(s['phases'])}")
        check(all(s["phases"][p] is None for p in COPY_PHASES) and
              all(is_type(v, float) and v >= 0 for p, v in s["phases"].items()
                  if p not in COPY_PHASES), f"phase values {s['phases']}")
        if s["status"] == "done":
            rate = c["nx"] * c["ny"] * c["nz"] * s["steps"] / s["loop_seconds"]
            check(abs(s["points_per_second"] / rate - 1) < 1e-6, "points_per_second")
            check(s["seconds"] >= s["loop_seconds"] > 0 and s["phases"]["stencil"] > 0, "times")
        check(("reason" in s) == (s["status"] in ("failed", "interrupted")),
              "reason only when failed or interrupted")
    for key in TOTAL_KEYS:
        check(is_type(r["totals"].get(key), float), f"totals.{key}")
    check(r["totals"]["shots"] == shots and
          r["totals"]["done"] == sum(s["status"] == "done" for s in r["shots"]), "totals")
    return r


def test_report_has_every_documented_field(tmp):
    """The reports of a survey (2 groups of 1 rank), of a single shot and
    of bench --report parse and carry every documented field."""
    job = survey_job(shots=SHOTS[:3], ranks_per_shot=1)
    run_job(tmp, job, name="survey", ranks=2)
    r = check_report(os.path.join(tmp, "out", "report.json"), "run", 2, 2, 3)
    check(all(s["files"] == [f"out/shot_{s['index']:04d}.h5"] for s in r["shots"]),
          f"files {[s['files'] for s in r['shots']]}")
    run_job(tmp, single_shot_job(SHOTS[0], "single/g.h5"), name="single", ranks=2)
    r = check_report(os.path.join(tmp, "single", "g.report.json"), "run", 2, 1, 1)
    check(r["shots"][0]["files"] == ["single/g.h5"], "single-shot files")
    rc, out, err = run(["bench", "--size", "32", "--steps", "5", "--warmup", "1", "--cpml", "6",
                        "--report", "bench.json"], ranks=1, cwd=tmp)
    check(rc == 0, f"bench --report failed:\n{err}")
    r = check_report(os.path.join(tmp, "bench.json"), "bench", 1, 1, 1)
    check(r["shots"][0]["steps"] == 5, "bench times the steps after the warm-up")
    return "survey, single-shot and bench reports complete"


def test_elastic_grid_survey_with_moving_receivers(tmp):
    """An elastic survey given as a grid of shots, receivers moving with
    the source, an override by shot number: each shot equals the same shot
    alone (its receivers placed by hand), bit for bit, and the SEG-Y files
    come one per component."""
    job = {
        "physics": {"type": "elastic", "order": 4},
        "grid": {"nx": 36, "ny": 24, "nz": 28, "dx": 10, "dy": 10, "dz": 10},
        "time": {"dt": 0.001, "duration": 0.1},
        "model": {"type": "homogeneous", "vp": 2000, "vs": 1100, "rho": 2000},
        "boundaries": {"cpml": 6, "free_surface": True},
        "source": {"type": "force", "direction": [0, 0, 1], "frequency": 12},
        "receivers": {"components": ["vx", "vz", "p"],
                      "line": {"start": [-60, 0, 40], "end": [60, 0, 40], "count": 7}},
        "survey": {"ranks_per_shot": 1, "receivers": "moving",
                   "grid": {"start": [100, 120, 60], "step": [70, 10], "count": [2, 1]},
                   "overrides": [{"shot": 2, "amplitude": 3, "frequency": 10}]},
        "output": {"directory": "out", "segy": True},
    }
    run_job(tmp, job, name="elastic", ranks=2)
    for n, (x, amplitude, frequency) in enumerate([(100, 1.0, 12), (170, 3.0, 10)], start=1):
        alone = json.loads(json.dumps(job))
        del alone["survey"]
        alone["source"].update(position=[x, 120, 60], amplitude=amplitude, frequency=frequency)
        alone["receivers"]["line"] = {"start": [x - 60, 120, 40], "end": [x + 60, 120, 40],
                                      "count": 7}
        alone["output"] = {"gather": f"alone{n}.h5"}
        run_job(tmp, alone, name=f"alone{n}", ranks=1)
        a = read_gather(os.path.join(tmp, f"alone{n}.h5"))
        s = read_gather(os.path.join(tmp, "out", f"shot_{n:04d}.h5"))
        check(a["traces"].shape == (3, 7, 101) and np.abs(a["traces"]).max() > 0, "shape")
        check(np.array_equal(a["traces"], s["traces"]) and np.array_equal(a["receivers"], s["receivers"]),
              f"elastic shot {n} differs from the shot alone")
        for component in ("vx", "vz", "p"):
            check(os.path.exists(os.path.join(tmp, "out", f"shot_{n:04d}_{component}.sgy")),
                  f"no SEG-Y of {component} for shot {n}")
    return "2 elastic shots with moving receivers == each alone, bit for bit"
