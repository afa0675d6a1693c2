#!/usr/bin/env python3
"""seisfd's CPU backend against Devito, side by side on this machine.

  jobs/bench-cpu.py [--rounds 3] [--threads 2] [--size 128] [--steps 100]
                    [--layers 12] [--cases acoustic,vti,tti,elastic,acoustic-256]
                    [--seisfd bin/seisfd[,bin/native/seisfd]] [--venv out/devito-venv]
                    [--devito-math fast,safe]

Each case runs seisfd's `bench --device cpu` and Devito's own operator for
the same physics at the same spatial order (8) on a grid of the same total
points (Devito's damping layer inside it, as seisfd's CPML), with and
without the layers, the two codes alternating, `--rounds` times each; the
table gives the best of each in Mpoints/s and seisfd over Devito. Devito
(pinned, `DEVITO`) installs from PyPI into the venv on first use; it is a
benchmark dependency only. Devito compiles its operators with
-march=native: pass a native seisfd build (`make native`) beside the
portable one to compare at the same instruction set. Its default
floating-point mode is -ffast-math (reassociation, fused multiply-adds);
seisfd builds with -ffp-contract=off and keeps every sum's order, so that
its vector sets agree bit for bit. `safe` runs Devito with
DEVITO_SAFE_MATH=1, which drops -ffast-math: with its -std=c99 GCC then
contracts nothing either, seisfd's mode. The table gives each mode's
column and seisfd over each.

The Devito operators: acoustic `u.dt2 = v^2 lap(u)` with its damping term
(examples/seismic/acoustic, kernel OT2); VTI and TTI the pseudo-acoustic
`AnisotropicWaveSolver` (examples/seismic/tti, epsilon 0.2, delta 0.1; TTI
theta 45, phi 30 degrees); elastic the staggered velocity-stress
`ElasticWaveSolver` (examples/seismic/elastic). seisfd's VTI/TTI are its own
pseudo-acoustic equations (docs/physics.md), so their work per point
differs from Devito's: the table says so rather than hide it."""
import argparse
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# pytest and scipy: the examples package (its seismic solvers) imports them.
DEVITO = ("devito==4.8.23", "pytest", "scipy")
CASES = {
    # name: (seisfd physics, Devito solver, fixed size or None)
    "acoustic": ("acoustic", "acoustic", None),
    "vti": ("vti", "vti", None),
    "tti": ("tti", "tti", None),
    "elastic": ("elastic", "elastic", None),
    "acoustic-256": ("acoustic", "acoustic", 256),
}


def devito_python(venv):
    """The venv's python with Devito importable, installed on first use."""
    python = os.path.join(venv, "bin", "python")
    if not os.path.exists(python):
        made = subprocess.run([sys.executable, "-m", "venv", venv], capture_output=True, text=True)
        if made.returncode:
            sys.exit(f"bench-cpu: cannot make the venv {venv} for Devito ({made.stderr.strip()[-300:]}); "
                     "on Debian: apt-get install python3-venv")
    probe = subprocess.run([python, "-c", "import devito, pytest, scipy"], capture_output=True)
    if probe.returncode:
        print(f"installing {' '.join(DEVITO)} into {venv} (once)", file=sys.stderr, flush=True)
        subprocess.run([python, "-m", "pip", "install", "-q", *DEVITO], check=True)
    return python


def devito_case(solver, size, steps, layers, rounds):
    """Runs in the venv: the time loop's best time over rounds for `steps`
    steps on a grid of size^3 points in all, `layers` of them the damping
    layer on each face, one source and one receiver (seisfd's bench records
    none; the examples' default of a receiver a surface point cost Devito
    12% of its step); prints {"mpoints": ...} as JSON."""
    import numpy as np
    from devito import configuration
    configuration["log-level"] = "ERROR"
    from examples.seismic import AcquisitionGeometry, Model
    inner = (size - 2 * layers,) * 3
    spacing = (10.0, 10.0, 10.0)
    fill = lambda value: np.full(inner, value, dtype=np.float32)
    common = dict(origin=(0.0, 0.0, 0.0), shape=inner, spacing=spacing, space_order=8, nbl=layers,
                  dtype=np.float32)
    if solver == "elastic":
        model = Model(vp=fill(2.0), vs=fill(1.2), b=fill(1.0 / 2.0), **common)
    elif solver == "acoustic":
        model = Model(vp=fill(2.0), **common)
    else:
        # Without theta and phi the examples' VTI kernel drops the rotation.
        angles = dict(theta=fill(np.radians(45.0)), phi=fill(np.radians(30.0))) if solver == "tti" else {}
        model = Model(vp=fill(2.0), epsilon=fill(0.2), delta=fill(0.1), **angles, **common)
    middle = np.array([[d * (n - 1) / 2.0 for d, n in zip(spacing, inner)]])
    geometry = AcquisitionGeometry(model, middle, middle, t0=0.0, tn=4000.0, src_type="Ricker", f0=0.010)
    if solver == "acoustic":
        from examples.seismic.acoustic import AcousticWaveSolver
        s = AcousticWaveSolver(model, geometry, space_order=8)
    elif solver == "elastic":
        from examples.seismic.elastic import ElasticWaveSolver
        s = ElasticWaveSolver(model, geometry, space_order=8)
    else:
        from examples.seismic.tti import AnisotropicWaveSolver
        s = AnisotropicWaveSolver(model, geometry, space_order=8)
    run = lambda: s.forward(time_m=1, time_M=steps)
    run()   # compiles the operator
    best = float("inf")
    for _ in range(rounds):
        # The time loop's own sections, as seisfd's bench times its steps
        # (the Python call around them costs tens of ms).
        best = min(best, sum(entry.time for entry in run()[-1].values()))
    print(json.dumps({"mpoints": size ** 3 * steps / best / 1e6}))


def run_devito(python, solver, size, steps, layers, threads, math):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), DEVITO_LANGUAGE="openmp",
               DEVITO_LOGGING="ERROR", OMP_PROC_BIND="close",
               DEVITO_SAFE_MATH="1" if math == "safe" else "0")
    out = subprocess.run([python, os.path.abspath(__file__), "--devito-case", solver, str(size),
                          str(steps), str(layers)], capture_output=True, text=True, env=env)
    if out.returncode:
        sys.exit(f"bench-cpu: Devito's {solver} case failed:\n{out.stderr[-3000:]}")
    return json.loads(out.stdout.strip().splitlines()[-1])["mpoints"]


def run_seisfd(binary, physics, size, steps, layers, threads):
    env = dict(os.environ, OMP_NUM_THREADS=str(threads), OMP_PROC_BIND="close")
    args = [binary, "bench", "--device", "cpu", "--physics", physics, "--size", str(size),
            "--steps", str(steps), "--warmup", "5", "--cpml", str(layers), "--copy-mib", "64"]
    out = subprocess.run(args, capture_output=True, text=True, env=env)
    m = re.search(r"throughput +([\d.e+]+) Mpoints/s", out.stdout + out.stderr)
    if out.returncode or not m:
        sys.exit(f"bench-cpu: {' '.join(args)} failed:\n{(out.stdout + out.stderr)[-3000:]}")
    return float(m.group(1))


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--rounds", type=int, default=3)
    p.add_argument("--threads", type=int, default=2)
    p.add_argument("--size", type=int, default=128, help="grid points a side, layers included")
    p.add_argument("--steps", type=int, default=100)
    p.add_argument("--layers", type=int, default=12, help="CPML / damping points a face")
    p.add_argument("--cases", default=",".join(CASES))
    p.add_argument("--seisfd", default=os.path.join(ROOT, "bin", "seisfd"),
                   help="one or more seisfd binaries, comma-separated")
    p.add_argument("--venv", default=os.path.join(ROOT, "out", "devito-venv"))
    p.add_argument("--devito-math", default="fast,safe",
                   help="Devito's floating-point modes, comma-separated: fast (its default, "
                        "-ffast-math), safe (DEVITO_SAFE_MATH=1: seisfd's mode)")
    p.add_argument("--devito-case", nargs=4, help=argparse.SUPPRESS)
    a = p.parse_args()
    if a.devito_case:
        solver, size, steps, layers = a.devito_case
        devito_case(solver, int(size), int(steps), int(layers), 2)
        return
    maths = a.devito_math.split(",")
    if not maths or any(m not in ("fast", "safe") for m in maths):
        sys.exit(f"bench-cpu: --devito-math takes fast, safe or both, not '{a.devito_math}'")
    python = devito_python(a.venv)
    binaries = a.seisfd.split(",")
    rows = []
    for case in a.cases.split(","):
        if case not in CASES:
            sys.exit(f"bench-cpu: no case '{case}'; the cases: {', '.join(CASES)}")
        physics, solver, fixed = CASES[case]
        size = fixed or a.size
        for layers in ((0,) if fixed or a.layers == 0 else (0, a.layers)):
            best = {b: 0.0 for b in binaries}
            devito = {m: 0.0 for m in maths}
            for _ in range(a.rounds):
                for b in binaries:
                    best[b] = max(best[b], run_seisfd(b, physics, size, a.steps, layers, a.threads))
                for m in maths:
                    devito[m] = max(devito[m], run_devito(python, solver, size, a.steps, layers,
                                                          a.threads, m))
            rows.append((case, size, layers, best, devito))
            print(f"{case} {size}^3 layers {layers}: " +
                  ", ".join(f"{os.path.relpath(b, ROOT)} {v:.0f}" for b, v in best.items()) +
                  "".join(f", Devito {m} {v:.0f}" for m, v in devito.items()) + " Mpoints/s",
                  file=sys.stderr, flush=True)
    print_table(rows, binaries, maths)


def print_table(rows, binaries, maths):
    names = [os.path.relpath(b, ROOT) for b in binaries]
    pairs = [(n, m) for m in maths for n in names]
    print("| case | layers | " + " | ".join(f"{n} (Mpoints/s)" for n in names) + " | " +
          " | ".join(f"Devito {m}" for m in maths) + " | " +
          " | ".join(f"{n} / Devito {m}" for n, m in pairs) + " |")
    print("| --- " * (2 + len(names) + len(maths) + len(pairs)) + "|")
    for case, size, layers, best, devito in rows:
        values = [best[b] for b in binaries]
        ratios = [best[b] / devito[m] for m in maths for b in binaries]
        print(f"| {case} {size}³ | {layers} | " + " | ".join(f"{v:.0f}" for v in values) + " | " +
              " | ".join(f"{devito[m]:.0f}" for m in maths) + " | " +
              " | ".join(f"{r:.2f}" for r in ratios) + " |")


if __name__ == "__main__":
    main()
