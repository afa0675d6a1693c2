"""Slabs cut by cost: the planes of z absorbing layers cost more than the
interior's, so the cut gives their ranks fewer planes. With costs from a
table the cut is what the cost model (sf_plane_costs.h) predicts; it
changes no gather (bit for bit against the equal cut); a layer thicker
than a slab still works; a bad table row is one clear error; and without
a table row every rank times the physics at set-up where the job's steps
pay for it, and otherwise cuts equal slabs and predicts nothing."""
import json
import os
import re

import numpy as np

from testlib import (COST_TABLE_HEADER as HEADER, COSTS_NS, alone, base_job, check, read_gather,
                     run, run_job, write_cost_table as write_table, write_job)



def layered_faces(job, xy, zmin, zmax):
    job["boundaries"]["cpml"] = {"xmin": xy, "xmax": xy, "ymin": xy, "ymax": xy, "zmin": zmin,
                                 "zmax": zmax}
    return job


def plane_costs(n, faces, order=8, ns=COSTS_NS):
    """The cost model: every point pays the interior cost, and each axis
    whose layer (plus the stencil's reach) holds it adds its extra."""
    nx, ny, nz = n
    R = order // 2

    def reach(points, low, high):
        return min(points, (low + R if low else 0) + (high + R if high else 0))

    base = nx * ny * ns["interior"]
    frame = (reach(nx, faces[0], faces[1]) * ny * (ns["x"] - ns["interior"]) +
             reach(ny, faces[2], faces[3]) * nx * (ns["y"] - ns["interior"]))
    costs = []
    for z in range(nz):
        in_z = (faces[4] and z < faces[4] + R) or (faces[5] and z >= nz - faces[5] - R)
        costs.append(base + frame + (nx * ny * (ns["z"] - ns["interior"]) if in_z else 0.0))
    return costs


def neighbours(rank, ranks):
    return (rank > 0) + (rank < ranks - 1)


def expected_cut(costs, ranks, neighbour, least=4):
    """Every rank's share is the total (planes and neighbours) over the
    ranks; boundary r at the plane where the summed plane cost is nearest
    the shares of ranks 0..r-1 less their neighbours' costs (ties to the
    lower plane), slabs grown to `least` planes."""
    prefix = np.concatenate([[0.0], np.cumsum(costs)])
    nz = len(costs)
    share = (prefix[-1] + sum(neighbours(r, ranks) * neighbour for r in range(ranks))) / ranks
    start, target = [0], 0.0
    for r in range(1, ranks):
        target += share - neighbours(r - 1, ranks) * neighbour
        lo = int(np.searchsorted(prefix, target, side="right")) - 1
        lo = min(max(lo, 0), nz - 1)
        hi = min(lo + 1, nz)
        start.append(max(start[-1], lo if target - prefix[lo] <= prefix[hi] - target else hi))
    start.append(nz)
    for r in range(1, ranks):
        start[r] = max(start[r], start[r - 1] + least)
    for r in range(ranks - 1, 0, -1):
        start[r] = min(start[r], start[r + 1] - least)
    return start


def printed_cut(out):
    items = re.findall(r"(\d+):(\d+)-(\d+)(?: [\d.]+ [mu]?s)?", "".join(
        line for line in out.splitlines(keepends=True) if "planes by rank" in line))
    check(items, f"no 'planes by rank' in the set-up:\n{out}")
    return [int(a) for _, a, _ in items] + [int(items[-1][2]) + 1]


def test_cut_follows_the_cost_model(tmp):
    """Thick z layers (18 and 30 planes of 64) with thin x and y layers,
    on 1 to 5 ranks: the printed slabs are the cost model's cut, the
    layers' ranks get fewer planes, and each rank's predicted time (its
    planes and its neighbours) is within one plane's cost of its share."""
    n, faces = (30, 26, 64), (3, 3, 4, 4, 18, 30)
    job = layered_faces(base_job(n=n, duration=0.005), 3, 18, 30)
    job["boundaries"]["cpml"].update(ymin=4, ymax=4)
    path = write_job(os.path.join(tmp, "job.yaml"), job)
    env = write_table(tmp)
    costs = plane_costs(n, faces)
    neighbour = n[0] * n[1] * COSTS_NS["neighbour"]
    cuts = []
    for ranks in range(1, 6):
        rc, out, err = run(["check", path], ranks=ranks, cwd=tmp, env=env)
        check(rc == 0, f"check on {ranks} ranks failed:\n{err[-2000:]}")
        got, want = printed_cut(out), expected_cut(costs, ranks, neighbour)
        check(got == want, f"{ranks} ranks: cut {got}, the cost model gives {want}")
        check(f"{tmp}/costs.csv:3" in out, f"the summary does not name the table row:\n{out}")
        spent = [sum(costs[a:b]) + neighbours(r, ranks) * neighbour
                 for r, (a, b) in enumerate(zip(want, want[1:]))]
        share = sum(spent) / ranks
        check(all(abs(v - share) <= max(costs) + 1e-9 for v in spent),
              f"{ranks} ranks: rank costs {spent}, a share {share}")
        cuts.append(got)
    check(cuts[3][1] - cuts[3][0] < cuts[3][2] - cuts[3][1],
          f"4 ranks: the z layer's rank has no fewer planes: {cuts[3]}")
    return "cuts " + "; ".join(",".join(map(str, c)) for c in cuts[1:])


def test_cut_changes_no_gather(tmp):
    """A layered model with a free surface on 4 ranks, cut by cost and into
    equal numbers of planes, and with a zmax layer thicker than every
    slab on 5 ranks: each gather is its 1-rank gather bit for bit."""
    job = base_job(n=(30, 28, 48), duration=0.08, source=[151.3, 139.1, 200.7],
                   receivers=[[80.5, 140.2, 20.3], [200.1, 90.7, 300.4], [150.0, 140.0, 460.0]])
    job["model"] = {"type": "layered", "layers": [{"top": 0, "vp": 1800}, {"top": 240, "vp": 2600}]}
    job["boundaries"]["free_surface"] = True
    env = write_table(tmp)

    def gather(name, ranks, slabs, zmax):
        layered_faces(job, 5, 0, zmax)
        job["run"] = {"slabs": slabs}
        job["output"]["gather"] = f"{name}.h5"
        _, out, _ = run_job(tmp, job, name=name, ranks=ranks, env=env)
        return read_gather(os.path.join(tmp, f"{name}.h5"))["traces"], printed_cut(out)

    cuts = {}
    for zmax, cases in ((14, (("balanced", 4, "balanced"), ("equal", 4, "equal"))),
                        (20, (("thick", 5, "balanced"),))):
        reference, _ = gather(f"one-{zmax}", 1, "balanced", zmax)
        for name, ranks, slabs in cases:
            traces, cuts[name] = gather(name, ranks, slabs, zmax)
            check(np.array_equal(traces, reference), f"{name}: the gather differs from one "
                  f"rank's by {np.abs(traces - reference).max():.3g}")
    check(cuts["balanced"] != cuts["equal"], f"the cut by cost is the equal one: {cuts}")
    thickest = max(b - a for a, b in zip(cuts["thick"], cuts["thick"][1:]))
    check(thickest < 20, f"a slab as thick as the layer: {cuts['thick']}")
    return (f"balanced {cuts['balanced']}, equal {cuts['equal']}, a 20-plane layer on 5 ranks "
            f"{cuts['thick']}")


def test_report_has_each_ranks_slab_and_times(tmp):
    """The run report gives each rank's planes and its predicted and
    measured compute time per step, and the timing table their rows."""
    job = layered_faces(base_job(n=(28, 26, 40), duration=0.03), 4, 10, 10)
    job["output"]["report"] = "report.json"
    _, out, _ = run_job(tmp, job, ranks=2, env=write_table(tmp))
    with open(os.path.join(tmp, "report.json")) as f:
        slabs = [p["slab"] for p in json.load(f)["processes"]]
    check([s["first_plane"] for s in slabs] == printed_cut(out)[:-1] and
          sum(s["planes"] for s in slabs) == 40, f"report slabs {slabs}")
    check(all(s["predicted_compute_seconds_per_step"] > 0 and
              s["measured_compute_seconds_per_step"] > 0 for s in slabs), f"report times {slabs}")
    check(re.search(r"^  ms/step predicted +[\d.]+", out, re.M) and
          re.search(r"^  ms/step measured +[\d.]+", out, re.M), f"no rows in the table:\n{out}")
    return ", ".join(f"rank {r}: {s['planes']} planes, predicted "
                     f"{1e3 * s['predicted_compute_seconds_per_step']:.3g} ms, measured "
                     f"{1e3 * s['measured_compute_seconds_per_step']:.3g} ms"
                     for r, s in enumerate(slabs))


def vti_job(nt):
    """40 x 36 x 48 points of VTI with thick z layers (no table row is
    for VTI), time.nt `nt`: the run takes nt + 8 steps, the time-dispersion
    correction's margin."""
    job = layered_faces(base_job(n=(40, 36, 48)), 6, 12, 12)
    job["time"] = {"dt": 0.001, "nt": nt}
    job["physics"] = {"type": "vti"}
    job["model"].update(epsilon=0.2, delta=0.1)
    return job


def timed_costs(out):
    """The timed costs of the summary: (interior, [x, y, z layers]), or None."""
    m = re.search(r"point costs +([\d.]+) ns .*; in the x, y, z layers ([\d.]+), ([\d.]+), "
                  r"([\d.]+) ns; a neighbour [\d.e+-]+ ns a plane point: timed on 2 ranks .* at "
                  r"set-up \(the table has no row", out)
    return (float(m.group(1)), [float(v) for v in m.groups()[1:]]) if m else None


def steps_of(out):
    m = re.search(r"^  time step .*, (\d+) steps", out, re.M)
    check(m, f"no steps in the summary:\n{out}")
    return int(m.group(1))


@alone
def test_costs_timed_without_a_table_row_where_it_pays(tmp):
    """No row for this physics: on 2 ranks, a job whose timing slabs (5 of
    24 planes, 7 steps each) take at most a tenth of its steps on its
    24-plane slabs (350) times the physics at set-up, the layers' points
    come out dearer than the interior's, and the summary says so."""
    path = write_job(os.path.join(tmp, "job.yaml"), vti_job(342))
    rc, out, err = run(["check", path], ranks=2, cwd=tmp, env=write_table(tmp))
    check(rc == 0 and steps_of(out) == 350, f"check failed:\n{out}{err[-2000:]}")
    costs = timed_costs(out)
    check(costs and "cut by cost" in out, f"no timed costs in the summary:\n{out}")
    interior, layers = costs
    check(all(v > 0 for v in layers) and max(layers) > interior,
          f"layers {layers} ns against {interior} ns interior")
    return f"interior {interior} ns, layers {layers} ns"


def test_short_jobs_and_one_rank_time_nothing(tmp):
    """The same job at 349 steps, too short to pay for the timing: the
    costs are not timed, the cut is equal, the summary says why, and the
    run's timing table and report predict nothing. On one rank nothing is
    timed whatever the steps. A survey of 4 such shots on one group of 2
    ranks serves enough steps, and times."""
    env = write_table(tmp)
    short = vti_job(341)
    short["output"]["report"] = "report.json"
    _, out, _ = run_job(tmp, short, ranks=2, env=env)
    check(steps_of(out) == 349, f"not 349 steps:\n{out}")
    reason = ("not timed: 349 steps are too few to pay for timing the physics at set-up (5 slabs "
              "of 24 planes, 7 steps each), and the table has no row for")
    check(reason in out and "equal numbers of planes (the costs not timed)" in out and
          printed_cut(out) == [0, 24, 48], f"the short job's summary:\n{out}")
    check(not re.search(r"ms/step predicted", out) and re.search(r"ms/step measured", out),
          f"the timing table predicts:\n{out}")
    with open(os.path.join(tmp, "report.json")) as f:
        slabs = [p["slab"] for p in json.load(f)["processes"]]
    check(all(s["predicted_compute_seconds_per_step"] is None and
              s["measured_compute_seconds_per_step"] > 0 for s in slabs), f"report {slabs}")

    path = write_job(os.path.join(tmp, "long.yaml"), vti_job(5000))
    rc, out, err = run(["check", path], cwd=tmp, env=env)
    check(rc == 0 and "not timed: one rank has no slabs to cut, and the table has no row" in out,
          f"one rank:\n{out}{err[-2000:]}")

    survey = vti_job(92)
    del survey["output"]["gather"], survey["source"]["position"]
    survey["output"]["directory"] = "survey"
    survey["survey"] = {"ranks_per_shot": 2, "shots": [{"position": [151.3 + 20 * k, 177.9, 240.7]}
                                                       for k in range(4)]}
    path = write_job(os.path.join(tmp, "survey.yaml"), survey)
    rc, out, err = run(["check", path], ranks=2, cwd=tmp, env=env)
    check(rc == 0 and timed_costs(out), f"the survey of 400 steps did not time:\n{out}{err[-2000:]}")
    return "349 steps: equal cut, nothing predicted; one rank: nothing timed; 4 shots x 100: timed"


def test_bad_cost_table_is_one_clear_error(tmp):
    job = base_job(n=(24, 24, 24), duration=0.005)
    path = write_job(os.path.join(tmp, "job.yaml"), job)
    table = os.path.join(tmp, "bad.csv")
    with open(table, "w") as f:
        f.write(HEADER + "cpu,acoustic,8,float32,1.0,2.0,fast,4.0,0.5,2026-11-26,*\n")
    rc, _, err = run(["check", path], ranks=2, cwd=tmp, env={"SEISFD_PLANE_COSTS": table})
    check(rc != 0 and f"{table}:2: 'fast' is not a number of nanoseconds" in err and
          err.count("seisfd: error") == 1, f"exit {rc}:\n{err[-2000:]}")
    rc, _, err = run(["check", path], cwd=tmp, env={"SEISFD_PLANE_COSTS": table + ".missing"})
    check(rc != 0 and "SEISFD_PLANE_COSTS=" in err and "cannot open it" in err,
          f"exit {rc}:\n{err[-2000:]}")
