"""The conformance suite: what every physics must do, on every backend it
has, checked for each physics `seisfd --version` declares (never a list
written here), on a medium made from the parameters it says it takes
(testlib's medium). A new physics gets all of it by being declared.

- On the CPU, 1, 2 and 3 ranks (uneven slabs, z absorbing layers thicker
  than a slab) record the same gather and snapshots of every field.
- Shot 2 of a 2-shot survey on one group of ranks (the backend reset
  between the shots) records what the shot run alone records.
- The instability guard stops a run made to grow (SEISFD_TEST_GROWTH) with
  its message, on 1 and 3 ranks alike.
- On the GPU (tests named gpu_, which skip without one): the CPU's gathers
  on 1, 2 and 4 ranks, on both halo paths (test_gpu's helpers), the GPU's
  own gathers alike on those rank counts, snapshots, orders 2 and 4, the
  interior kernels, a survey, the guard's decision and bench.
The long-run bound of every declared physics is tests/test_long_runs.py's."""
import os
import re

import h5py
import numpy as np

from test_gpu import compare_survey, gather_of, growth_stop, layered_job, paths_note, \
    require_gpus, snapshots_of
from test_guard import GROWTH, digest, report_of, small_job
from testlib import LAYER_VALUES, base_job, check, declared_physics, heavy, leftovers, medium, \
    physics_parameters, read_gather, run, run_job, tolerance, write_cost_table, write_job

RANKS = (1, 2, 3)
GPU_RANKS = (1, 2, 4)
# The slab job's 1-rank gather of each physics and precision, run once for
# the rank and the survey tests.
_one_rank = {"float32": {}, "mixed": {}}


def physics_job(physics, n, cpml, free_surface=True, duration=0.25):
    """test_gpu's layered job (off-grid source and receivers, some astride
    slab boundaries and in the layers) in the physics' own three layers,
    the source in the second; dt the program's."""
    job = layered_job(n, cpml=cpml, free_surface=free_surface, duration=duration)
    h, nz = job["grid"]["dz"], n[2]
    job["physics"] = {"type": physics}
    job["time"]["dt"] = "auto"
    job["model"] = medium(physics, tops=[0.0, h * nz * 0.4, h * nz * 0.7])
    job["source"]["position"][2] = h * nz * 0.55 + 2.7
    return job


def slab_job(physics, gather="gather.h5"):
    """35 planes, a free surface on top and a 12-point z layer at the
    bottom: uneven slabs on 2 and 3 ranks (cut by cost: with
    write_cost_table's costs on the CPU, by the table on a GPU), the z layer
    reaching across a slab boundary on 3; receivers down the depth
    at every few planes; snapshots of every field."""
    job = physics_job(physics, (36, 30, 35), cpml=12, duration=0.2)
    job["receivers"]["points"] += [[181.3, 140.2, z] for z in (48.7, 95.0, 118.7, 160.5, 200.0,
                                                                241.3, 290.0, 331.9)]
    job["output"] = {"gather": gather, "overwrite": True,
                     "snapshots": {"path": gather[:-3] + "-snaps.h5", "every": 40,
                                   "decimation": [2, 1, 3]}}
    return job


def snapshot_arrays(path):
    """{field/step: array} of a snapshot file."""
    with h5py.File(path, "r") as f:
        group = f["snapshots"]
        return {f"{field}/{step}": group[field][step][:] for field in group
                for step in group[field]}


def peak_difference(values, reference):
    """The largest difference over the reference's peak (the difference
    itself where the reference is all zero)."""
    peak = np.abs(reference).max()
    off = float(np.abs(values - reference).max())
    return off / peak if peak > 0 else off


def gather_difference(traces, reference):
    """peak_difference of two gathers, each component over its own peak
    where they have a component axis ([component][receiver][sample])."""
    if reference.ndim == 3:
        return max(peak_difference(t, r) for t, r in zip(traces, reference))
    return peak_difference(traces, reference)


def same_on_every_rank_count(tmp, physics, precision="float32"):
    """The slab job on 1, 2 and 3 ranks: checks that the gathers and every
    field's snapshots agree bit for bit (tolerance "ranks"); returns the
    1-rank gather and the snapshots' fields. In mixed precision the 2-rank
    run also checks, after every stage, that every state array holds only
    values its 16-bit blocks store (SEISFD_TEST_STORED: slow, and the same
    on any rank count)."""
    gathers, snaps = {}, {}
    for ranks in RANKS:
        name = f"{physics}-{precision}{ranks}"
        job = slab_job(physics, f"{name}.h5")
        job["run"] = {"precision": precision}
        env = write_cost_table(tmp, physics, precisions=(precision,))
        if precision == "mixed" and ranks == 2:
            env["SEISFD_TEST_STORED"] = "1"
        run_job(tmp, job, name=name, ranks=ranks, env=env)
        gathers[ranks] = read_gather(os.path.join(tmp, f"{name}.h5"))["traces"]
        snaps[ranks] = snapshot_arrays(os.path.join(tmp, f"{name}-snaps.h5"))
    reference = gathers[1]
    limit = tolerance("ranks", reference.dtype)
    what = f"{physics} ({precision})"
    check(np.isfinite(reference).all() and np.abs(reference).max() > 0,
          f"{what}: the 1-rank gather is empty or not finite")
    check(snaps[1] and any(np.abs(a).max() > 0 for a in snaps[1].values()),
          f"{what}: no snapshots, or all zero")
    for ranks in RANKS[1:]:
        off = gather_difference(gathers[ranks], reference)
        check(gathers[ranks].shape == reference.shape and off <= limit,
              f"{what}: {ranks} ranks' gather differs from 1 rank's by {off:.3g} of the "
              f"peak (limit {limit:g})")
        check(snaps[ranks].keys() == snaps[1].keys(),
              f"{what}: {ranks} ranks wrote snapshots {sorted(snaps[ranks])}, 1 rank "
              f"{sorted(snaps[1])}")
        for key, value in snaps[1].items():
            off = peak_difference(snaps[ranks][key], value)
            check(off <= limit, f"{what}: snapshot {key} on {ranks} ranks differs from "
                                f"1 rank's by {off:.3g} of its peak (limit {limit:g})")
    return reference, sorted({key.split("/")[0] for key in snaps[1]})


@heavy
def test_every_physics_gives_the_same_gather_and_snapshots_on_1_2_and_3_ranks(tmp):
    """On the CPU, bit for bit (tolerance "ranks"): the gather and every
    field's snapshots of a layered medium with a free surface."""
    notes = []
    for physics in declared_physics("cpu"):
        _one_rank["float32"][physics], fields = same_on_every_rank_count(tmp, physics)
        notes.append(f"{physics} ({'/'.join(fields)})")
    return "1, 2, 3 ranks alike: " + ", ".join(notes)


# How far run.precision: mixed may record from float32 on the slab job (of
# the peak, each component its own), and how near it may not: its 16-bit
# blocks round every value to 15 bits of its block's largest.
MIXED_APART = (1e-6, 4e-3)


@heavy
def test_every_physics_in_mixed_precision_is_the_same_on_1_2_and_3_ranks(tmp):
    """run.precision: mixed, on the CPU: the slab job's gather and snapshots
    bit for bit alike on 1, 2 and 3 ranks (the 16-bit blocks lie along rows,
    which no slab cut divides), and apart from float32's by what rounding
    to the blocks makes, neither nothing nor more."""
    notes = []
    for physics in declared_physics("cpu"):
        mixed, _ = same_on_every_rank_count(tmp, physics, "mixed")
        _one_rank["mixed"][physics] = mixed
        off = gather_difference(mixed, one_rank_gather(tmp, physics))
        check(MIXED_APART[0] <= off <= MIXED_APART[1],
              f"{physics}: mixed differs from float32 by {off:.3g} of the peak (expected "
              f"{MIXED_APART[0]:g} .. {MIXED_APART[1]:g})")
        notes.append(f"{physics} {off:.1e}")
    return "1, 2, 3 ranks alike; from float32: " + ", ".join(notes)


def one_rank_gather(tmp, physics, precision="float32"):
    """The slab job's gather on 1 rank: the rank test's, or run here."""
    if physics not in _one_rank[precision]:
        name = f"{physics}-{precision}1"
        job = slab_job(physics, f"{name}.h5")
        job["run"] = {"precision": precision}
        run_job(tmp, job, name=name)
        _one_rank[precision][physics] = read_gather(os.path.join(tmp, f"{name}.h5"))["traces"]
    return _one_rank[precision][physics]


VECTOR_SETS = ("portable", "avx2", "avx512")


@heavy
def test_every_physics_gives_the_same_gather_on_every_vector_set(tmp):
    """The CPU's row sweeps built for each vector set (SEISFD_CPU_VECTORS)
    record the same gather bit for bit: no set fuses a multiply and an add.
    Sets the CPU lacks run as the widest it has, which the summary says."""
    ran = {}
    for physics in declared_physics("cpu"):
        reference = one_rank_gather(tmp, physics)
        for vectors in VECTOR_SETS:
            name = f"{physics}-{vectors}"
            rc, out, err = run_job(tmp, slab_job(physics, f"{name}.h5"), name=name,
                                   env={"SEISFD_CPU_VECTORS": vectors})
            m = re.search(r"vectors +(.+?) \(SEISFD_CPU_VECTORS=" + vectors + r"; the CPU has (.+?)\)\n",
                          out)
            check(m, f"{physics}: no vectors line naming SEISFD_CPU_VECTORS={vectors}:\n{out}")
            ran[vectors] = m.group(1)
            traces = read_gather(os.path.join(tmp, f"{name}.h5"))["traces"]
            check(np.array_equal(traces, reference),
                  f"{physics}: {m.group(1)} gives another gather than the default set, by "
                  f"{gather_difference(traces, reference):.3g} of the peak")
    rc, out, err = run_job(tmp, slab_job("acoustic", "bad.h5"), name="bad", expect_ok=False,
                           env={"SEISFD_CPU_VECTORS": "sse4"})
    check(rc != 0 and "SEISFD_CPU_VECTORS='sse4': expected portable, avx2 or avx512" in err,
          f"an unknown set: exit {rc}, {err[-300:]}")
    return ("every physics alike bit for bit on " +
            ", ".join(f"{v} ({ran[v]})" for v in VECTOR_SETS))


@heavy
def test_every_physics_resets_between_survey_shots(tmp):
    """Shot 2 of a survey on one group of 2 ranks, after a shot of another
    position, frequency and amplitude, records what the slab job records
    alone on 1 rank (tolerance "shots": bit for bit), in either precision."""
    for precision in ("float32", "mixed"):
        for physics in declared_physics("cpu"):
            survey = slab_job(physics)
            survey["run"] = {"precision": precision}
            position = survey["source"].pop("position")
            survey["survey"] = {"ranks_per_shot": 2, "shots": [
                {"position": [x + 40.0 for x in position], "frequency": 16, "amplitude": 2.5},
                {"position": position}]}
            folder = f"{physics}-{precision}-shots"
            survey["output"] = {"directory": folder}
            _, out, _ = run_job(tmp, survey, name=f"{physics}-{precision}-survey", ranks=2)
            check("2 shots, receivers fixed, 1 group of 2 ranks" in out,
                  f"{physics}: not one group for both shots:\n{out[-2000:]}")
            reference = one_rank_gather(tmp, physics, precision)
            shot = read_gather(os.path.join(tmp, folder, "shot_0002.h5"))["traces"]
            limit = tolerance("shots", reference.dtype)
            off = gather_difference(shot, reference)
            check(shot.shape == reference.shape and off <= limit,
                  f"{physics} ({precision}): survey shot 2 differs from the shot alone by "
                  f"{off:.3g} of the peak (limit {limit:g})")
    return f"{', '.join(declared_physics('cpu'))}: shot 2 == the shot alone, bit for bit, " \
        "in float32 and mixed"


def growth_stops(tmp, physics, gather, ranks, precision="float32"):
    """The small job made to grow by 3% a step on `ranks` ranks: checks the
    guard's message (the field, the checks, the growth, where and what to
    change), exit 1, the report failed with that reason, the gather an
    earlier run wrote left as it was and nothing temporary beside it;
    returns the message's match."""
    job = small_job(physics)
    job["run"] = {"precision": precision}
    before = digest(gather)
    rc, out, err = run_job(tmp, job, name=physics, ranks=ranks, expect_ok=False,
                           env={"SEISFD_TEST_GROWTH": "1.03"})
    m = GROWTH.search(err)
    check(rc == 1 and m and err.count("seisfd: error") == 1,
          f"{physics} ({precision}) on {ranks} ranks: exit {rc}, no growth message:\n{err}")
    checks, rise = int(m.group(2)), float(m.group(3))
    check(checks >= 6 and float(m.group(6)) >= 10.0 and rise >= 10.0,
          f"{physics} ({precision}): {checks} checks, x {rise}")
    shot = report_of(tmp)
    check(shot["status"] == "failed" and shot["reason"] in err,
          f"{physics} ({precision}): report {shot['status']}: {shot['reason']}")
    check(digest(gather) == before and not leftovers(tmp),
          f"{physics} ({precision}): the earlier gather changed or files were left: "
          f"{leftovers(tmp)}")
    return m


@heavy
def returning_layers(physics, h, nz):
    """Layers whose values return lower down (the physics' second, third,
    second, third), tops midway between planes."""
    names = physics_parameters(physics)
    return [{"top": h * (round(nz * top) + 0.5) if top else 0.0,
             **{n: LAYER_VALUES[n][index] for n in names}}
            for top, index in ((0.0, 1), (0.3, 2), (0.45, 1), (0.8, 2))]


def test_every_physics_layered_model_equals_its_values_from_files(tmp):
    """A layered model whose values return, under a free surface, gives
    the gather of the same values read from raw files, bit for bit, on 2
    ranks: the planes that repeat an earlier one, which the backends copy
    rather than form anew, hold what forming them gives."""
    nx, ny, nz = 32, 28, 30
    for physics in declared_physics("cpu"):
        job = physics_job(physics, (nx, ny, nz), cpml=6, duration=0.08)
        h = job["grid"]["dz"]
        layers = returning_layers(physics, h, nz)
        job["model"] = {"type": "layered", "layers": layers}
        layered, _, _ = gather_of(tmp, job, "cpu", f"{physics}-layered", ranks=2)
        paths = {}
        for name in physics_parameters(physics):
            values = np.empty((nz, ny, nx), np.float32)
            for k in range(nz):
                values[k] = [layer[name] for layer in layers if layer["top"] <= k * h][-1]
            paths[name] = os.path.join(tmp, f"{physics}-{name}.bin")
            values.astype("<f4").tofile(paths[name])
        job["model"] = {"type": "raw", "dims": [nx, ny, nz]}
        if len(paths) == 1:
            job["model"]["path"] = paths["vp"]
        else:
            job["model"]["paths"] = paths
        from_files, _, _ = gather_of(tmp, job, "cpu", f"{physics}-files", ranks=2)
        check(np.abs(layered).max() > 0, f"{physics}: an empty gather")
        check(np.array_equal(layered, from_files),
              f"{physics}: the layered gather differs from the files' by "
              f"{np.abs(layered - from_files).max():.3g} (peak {np.abs(layered).max():.3g})")
    return "every physics bit for bit on 2 ranks"


def test_every_physics_made_to_grow_is_stopped_by_the_guard(tmp):
    """Made to grow by 3% a step, each physics stops with the guard's
    message (growth_stops), on 3 ranks as on 1, and on 1 rank in mixed
    precision (whose blocks turn what float32 would overflow into NaN)."""
    notes, gather = [], os.path.join(tmp, "out", "shot.h5")
    for physics in declared_physics("cpu"):
        run_job(tmp, small_job(physics, duration=0.1), name=physics)
        decided = {ranks: growth_stops(tmp, physics, gather, ranks) for ranks in (1, 3)}
        check(decided[3].group(1, 2, 4, 5, 7, 8) == decided[1].group(1, 2, 4, 5, 7, 8),
              f"{physics}: 3 ranks decided otherwise:\n{decided[1].group(0)}\n"
              f"{decided[3].group(0)}")
        mixed = growth_stops(tmp, physics, gather, 1, "mixed")
        m = decided[1]
        check(mixed.group(1, 2) == m.group(1, 2),
              f"{physics}: mixed decided otherwise:\n{m.group(0)}\n{mixed.group(0)}")
        notes.append(f"{physics} {m.group(1)} x {float(m.group(3)):.3g} after {m.group(2)} checks "
                     f"from step {m.group(7)} (mixed: after {mixed.group(2)})")
    return "; ".join(notes)


# The edge test's receivers, by pairs: one on the edge, one a hair past it,
# and the component staggered half a cell off the nodes across that edge
# (a velocity along its own axis), which uses the point where it is (its
# lattice reaches past the edge anyway) instead of moving it onto the edge.
EDGE_PAIRS = ((0, 1, "vx"), (2, 3, "vz"))
ALL_COMPONENTS = ["vx", "vy", "vz", "p"]


def run_recording_all_it_can(tmp, job, name):
    """Runs the job recording every component, or, where the physics
    refuses some, the components it records by default; returns the
    gather's traces with a component axis and the components' names."""
    job["receivers"]["components"] = ALL_COMPONENTS
    rc, _, err = run_job(tmp, job, name=name, expect_ok=False)
    if rc != 0:
        check("receivers.components" in err, f"{name}: exit {rc}:\n{err[-3000:]}")
        del job["receivers"]["components"]
        run_job(tmp, job, name=name)
    gather = read_gather(os.path.join(tmp, job["output"]["gather"]))
    attrs, traces = gather["attrs"], gather["traces"]
    if traces.ndim == 2:
        return traces[None], [attrs["component"]]
    return traces, attrs["components"].split(",")


def test_every_physics_records_a_hair_outside_the_grid_as_on_its_edge(tmp):
    """The job's checks let a position lie up to 1e-9 of a spacing past
    the grid's edge; such a receiver records what one on the edge does, on
    every component: bit for bit on the nodes (clamped onto the edge),
    within "edge" where the component's lattice is staggered along the
    axis it lies past (it reaches half a cell past the nodes anyway, so the
    point is used as it is)."""
    h = 10.0
    edge = [[0.0, 251.3, 205.1], [-1e-9 * h, 251.3, 205.1],
            [150.0, 79.7, 0.0], [150.0, 79.7, -1e-9 * h]]
    notes = []
    for physics in declared_physics("cpu"):
        job = base_job(n=(32, 32, 32), h=h, cpml=6, duration=0.12, dt=0.001,
                       source=[160.3, 158.1, 161.7], receivers=edge,
                       gather=f"{physics}-edge.h5")
        job["physics"] = {"type": physics}
        job["model"] = medium(physics)
        traces, components = run_recording_all_it_can(tmp, job, f"{physics}-edge")
        worst = 0.0
        for c, name in enumerate(components):
            for on, past, staggered in EDGE_PAIRS:
                peak = np.abs(traces[c, on]).max()
                check(peak > 0, f"{physics} {name}: a silent edge receiver")
                off = float(np.abs(traces[c, past] - traces[c, on]).max() / peak)
                limit = tolerance("edge", traces.dtype) if name == staggered else 0.0
                check(off <= limit, f"{physics} {name}: receiver {past} a hair outside differs "
                                    f"from the one on the edge by {off:.2e} (limit {limit:g})")
                worst = max(worst, off)
        notes.append(f"{physics} ({'/'.join(components)}) {worst:.1e}")
    return "largest differences from the edge receiver: " + ", ".join(notes)


def test_every_physics_memory_estimate_matches_its_allocations(tmp):
    """The memory check refuses a job from what the physics declares it
    allocates (sf_physics_memory); the set-up summary prints that estimate
    beside what the CPU backend then allocated. On 2 ranks, without layers
    and with 12-point layers (nearly half the points in their reach, so an
    array of the layers left out of the declaration shows), they agree
    within 20% (the layers' padding is the backends' own)."""
    notes = []
    for physics in declared_physics("cpu"):
        for cpml in (0, 12):
            job = base_job(n=(64, 48, 40), h=10.0, cpml=cpml, duration=0.05, dt=0.001,
                           source=[300.3, 230.1, 200.7], receivers=[[150.0, 150.0, 150.0]],
                           gather="memory.h5")
            job["physics"] = {"type": physics}
            job["model"] = medium(physics)
            path = write_job(os.path.join(tmp, f"{physics}-{cpml}.yaml"), job)
            rc, out, err = run(["check", path], ranks=2, cwd=tmp)
            check(rc == 0, f"{physics}: check failed: {err[-2000:]}")
            m = re.search(r"memory per rank +[\d.]+ MiB \(min\) \.\. ([\d.]+) MiB \(max\), cpu "
                          r"backend \(the memory check's estimate of the fields and layers: "
                          r"([\d.]+) MiB\)", out)
            check(m, f"{physics}: no memory line with the estimate in:\n{out[-2000:]}")
            allocated, estimated = float(m.group(1)), float(m.group(2))
            ratio = estimated / allocated
            check(0.8 <= ratio <= 1.2, f"{physics}, {cpml}-point layers: the memory check "
                                       f"estimates {estimated} MiB, the backend allocated "
                                       f"{allocated} MiB")
            notes.append(f"{physics} {cpml} {ratio:.2f}")
    return "estimate over allocation: " + ", ".join(notes)


def gpu_physics():
    """The physics with kernels on both backends, after the GPU check."""
    require_gpus(1)
    cpu = declared_physics("cpu")
    return [p for p in declared_physics("cuda") if p in cpu]


def gpu_against_cpu(tmp, job, name, gpu_ranks, cpu_ranks=1):
    """The job's gather on the CPU and on the GPU on each of gpu_ranks
    (both halo paths on several): each GPU gather within "gpu" of the
    CPU's, and of the GPU's own on the first rank count. Returns the
    largest difference and the host-staged runs' stdout by rank count."""
    reference, _, _ = gather_of(tmp, job, "cpu", f"{name}-cpu", ranks=cpu_ranks)
    limit = tolerance("gpu", reference.dtype)
    check(np.abs(reference).max() > 0, f"{name}: the CPU gather is empty")
    gathers, outs, worst = {}, {}, 0.0
    for ranks in gpu_ranks:
        gathers[ranks], outs[ranks], _ = gather_of(tmp, job, "cuda", f"{name}-gpu{ranks}",
                                                   ranks=ranks)
        off = gather_difference(gathers[ranks], reference)
        check(off <= limit, f"{name}: the GPU on {ranks} rank(s) differs from the CPU by "
                            f"{off:.3g} of the peak (limit {limit:g})")
        ranks_off = gather_difference(gathers[ranks], gathers[gpu_ranks[0]])
        check(ranks_off <= tolerance("gpu ranks", reference.dtype),
              f"{name}: the GPU on {ranks} ranks differs from the GPU on {gpu_ranks[0]} by "
              f"{ranks_off:.3g} of the peak")
        worst = max(worst, off)
    return worst, outs


def test_gpu_every_physics_matches_cpu_on_one_two_and_four_ranks(tmp):
    """Layers on every face on 1 rank; the slab job (a free surface, z
    layers across slab boundaries) on 1, 2 (uneven) and 4 ranks sharing
    the GPU, the host-staged run timing its halo copies."""
    worst = {}
    for physics in gpu_physics():
        faces, _ = gpu_against_cpu(tmp, physics_job(physics, (56, 52, 60), cpml=10,
                                                    free_surface=False), f"{physics}-faces", (1,))
        slabs, outs = gpu_against_cpu(tmp, slab_job(physics), f"{physics}-slabs", GPU_RANKS)
        check(re.search(r"halo D2H\s+\d", outs[2]), f"{physics}: no halo timing:\n{outs[2]}")
        worst[physics] = max(faces, slabs)
    return ("largest differences " + ", ".join(f"{p} {v:.2g}" for p, v in worst.items()) +
            f" of the peak; {paths_note(tmp)}")


def test_gpu_every_physics_interior_kernel_matches_cpu(tmp):
    """Grids with tiles clear of every layer, so the interior kernels run:
    thin layers on 1 rank, and none at all with an odd nx and a free
    surface on 2 ranks (tiles past the grid's edge, plane 0 held at zero)."""
    worst = {}
    for physics in gpu_physics():
        thin, _ = gpu_against_cpu(tmp, physics_job(physics, (140, 76, 48), cpml=6,
                                                   free_surface=False, duration=0.12),
                                  f"{physics}-thin", (1,))
        bare, _ = gpu_against_cpu(tmp, physics_job(physics, (61, 45, 40), cpml=0,
                                                   duration=0.15), f"{physics}-bare", (2,))
        worst[physics] = max(thin, bare)
    return ("largest differences " + ", ".join(f"{p} {v:.2g}" for p, v in worst.items()) +
            f" of the peak; {paths_note(tmp)}")


def test_gpu_every_physics_matches_cpu_with_layers_that_come_back(tmp):
    """Layers whose values return lower down, the first under a free
    surface: the GPU sends each distinct plane of such a model once and
    copies it on the device to the planes that repeat it (the surface's
    plane standing alone for the elastic kinds); 1 and 2 ranks."""
    worst = {}
    for physics in gpu_physics():
        job = physics_job(physics, (40, 36, 44), cpml=8, duration=0.15)
        job["model"] = {"type": "layered", "layers": returning_layers(physics, job["grid"]["dz"], 44)}
        worst[physics], _ = gpu_against_cpu(tmp, job, f"{physics}-returning", (1, 2))
    return "largest differences " + ", ".join(f"{p} {v:.2g}" for p, v in worst.items())


def test_gpu_every_physics_orders_two_and_four_match_cpu(tmp):
    """The other stencil radii (register queues, shared tiles), 1 rank."""
    worst = {}
    for physics in gpu_physics():
        for order in (2, 4):
            job = physics_job(physics, (40, 36, 44), cpml=8, duration=0.12)
            job["physics"]["order"] = order
            off, _ = gpu_against_cpu(tmp, job, f"{physics}-order{order}", (1,))
            worst[f"{physics} {order}"] = off
    return "largest differences " + ", ".join(f"{k} {v:.2g}" for k, v in worst.items())


def test_gpu_every_physics_snapshots_match_cpu(tmp):
    """Every field's snapshots copied from the GPU (decimated lattice, 2
    ranks, both halo paths) within "gpu" of the CPU's."""
    notes = []
    for physics in gpu_physics():
        folder = os.path.join(tmp, physics)
        os.makedirs(folder)
        snaps = {d: snapshots_of(folder, d, lambda _: physics_job(physics, (44, 40, 37), cpml=8,
                                                                  duration=0.12),
                                 lambda f: {f"{c}/{k}": v[:] for c in f["snapshots"]
                                            for k, v in f["snapshots"][c].items()})
                 for d in ("cpu", "cuda")}
        check(snaps["cpu"] and snaps["cpu"].keys() == snaps["cuda"].keys(),
              f"{physics}: snapshots {sorted(snaps['cpu'])} vs {sorted(snaps['cuda'])}")
        worst = 0.0
        for key, reference in snaps["cpu"].items():
            off = peak_difference(snaps["cuda"][key], reference)
            limit = tolerance("gpu", reference.dtype)
            check(off <= limit, f"{physics}: snapshot {key} differs from the CPU's by {off:.3g} "
                                f"of its peak (limit {limit:g})")
            worst = max(worst, off)
        notes.append(f"{physics} {len(snaps['cpu'])} snapshots, {worst:.2g}")
    return "; ".join(notes) + f" of the peak; {paths_note(tmp)}"


def test_gpu_every_physics_survey_matches_cpu_and_guards(tmp):
    """A survey of 3 shots (another depth, frequency and amplitude among
    them, receivers moving with the source) on one group of 2 ranks: the
    shots after the GPU backend's reset match the CPU's, and the shot made
    to overflow fails on both with the GPU's guard."""
    notes = []
    for physics in gpu_physics():
        job = physics_job(physics, (44, 40, 37), cpml=8, duration=0.12)
        del job["source"]["position"]
        job["receivers"] = {"line": {"start": [-80.5, 0.4, 15.2], "end": [80.5, 0.4, 150.3],
                                     "count": 7}}
        job["survey"] = {"ranks_per_shot": 2, "receivers": "moving", "shots": [
            {"position": [150.3, 200.1, 120.7]},
            {"position": [250.3, 180.1], "depth": 90.4, "frequency": 15, "amplitude": 2.0},
            {"position": [200.0, 200.0, 150.0]}]}
        folder = os.path.join(tmp, physics)
        os.makedirs(folder)
        worst = compare_survey(folder, job, 3, 3, gpu_difference)
        notes.append(f"{physics} {worst:.2g}")
    return ("shots 1, 2 match the CPU (" + ", ".join(notes) + " of the peak), shot 3 failed; " +
            paths_note(tmp))


def gpu_difference(traces, reference, what):
    """compare_survey's comparison: within "gpu" of the reference."""
    off = gather_difference(traces, reference)
    limit = tolerance("gpu", reference.dtype)
    check(off <= limit, f"{what} differs from the CPU by {off:.3g} of the peak (limit {limit:g})")
    return off


def test_gpu_every_physics_guard_decides_as_on_cpu(tmp):
    """The guard's sums on the GPU decide as the CPU's: each physics made
    to grow by 3% a step stops at the same check, for the same field, in
    the same region."""
    notes = []
    for physics in gpu_physics():
        cpu, gpu = growth_stop(tmp, physics, "cpu"), growth_stop(tmp, physics, "cuda")
        check(cpu.group(1, 2, 4, 5, 7, 8) == gpu.group(1, 2, 4, 5, 7, 8),
              f"{physics}: the GPU decided otherwise:\n{cpu.group(0)}\n{gpu.group(0)}")
        notes.append(f"{physics} {gpu.group(1)} at step {gpu.group(5)}")
    return "alike: " + ", ".join(notes)


def bench_rates(tmp, device, physics_list, size, extra=()):
    """Bench of each physics on the device: it runs and reports a rate."""
    rates = []
    for physics in physics_list:
        rc, out, err = run(["bench", "--physics", physics, "--device", device, "--size", str(size),
                            "--steps", "10", "--warmup", "2", *extra], cwd=tmp)
        check(rc == 0, f"bench --physics {physics} --device {device} failed:\n{err}")
        rate = re.search(r"throughput\s+([\d.]+) Gpoints/s", out)
        check(rate and float(rate.group(1)) > 0, f"{physics}: no throughput in:\n{out}")
        rates.append(f"{physics} {rate.group(1)}")
    return f"{size}^3: " + ", ".join(rates) + " Gpoints/s"


def test_every_physics_bench_runs(tmp):
    """Bench builds a job of its own: each physics runs in it."""
    return bench_rates(tmp, "cpu", declared_physics("cpu"), 24, ("--cpml", "4", "--copy-mib", "16"))


def test_gpu_every_physics_bench_runs(tmp):
    return bench_rates(tmp, "cuda", gpu_physics(), 64, ("--copy-mib", "256"))
