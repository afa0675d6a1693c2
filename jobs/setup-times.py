#!/usr/bin/env python3
"""Every physics' set-up on this machine, against issue 27's goal of
1 s per 10^9 points for an analytic model built and on its device.

  jobs/setup-times.py [--device cuda] [--size 1024] [--size-of elastic=800,...]
                      [--rounds 1] [--seisfd bin/seisfd] [--folder out/setup-times]

For each physics the build runs on the device (as `seisfd --version` lists
them), a three-layer model (the tests' layer values, tests/testlib.py) on
a cube of --size points a side (--size-of overrides it by physics), CPML
20, two steps, runs once per round with `mpirun -np 1 --bind-to none`
where mpirun exists; the table gives the set-up summary's parts of the
fastest round and the total per 10^9 points. The jobs stay in --folder.
"""
import argparse
import os
import re
import shutil
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

PARTS = ("devices", "slab cut", "model", "checks", "medium", "backend")


def parse_sizes(text, default):
    sizes = {}
    for item in filter(None, (text or "").split(",")):
        name, _, value = item.partition("=")
        sizes[name.strip()] = int(value)
    return lambda physics: sizes.get(physics, default)


def job_for(physics, n, folder):
    import testlib
    h = 10.0
    side = n * h
    job = testlib.base_job(n=(n, n, n), h=h, cpml=20, frequency=5.0,
                           source=[side / 2, side / 2, side / 2],
                           receivers=[[side / 2 + 50.0, side / 2, side / 2]],
                           gather=os.path.join(folder, physics + ".h5"))
    job["time"] = {"dt": "auto", "nt": 2}
    job["physics"] = {"type": physics}
    job["model"] = testlib.medium(physics, tops=[0.0, side / 3, 2 * side / 3])
    if "vs" in testlib.physics_parameters(physics):
        job["source"]["type"] = "explosive"
    return testlib.write_job(os.path.join(folder, physics + ".yaml"), job)


def set_up_of(command):
    env = dict(os.environ, OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    out = subprocess.run(command, capture_output=True, text=True, env=env)
    line = re.search(r"set-up\s+([\d.]+) s on the slowest rank: (.*)", out.stdout)
    if out.returncode != 0 or not line:
        sys.exit(f"{' '.join(command)} failed:\n{out.stdout[-2000:]}{out.stderr[-2000:]}")
    parts = dict(re.findall(r"(devices|slab cut|model|checks|medium|backend) ([\d.]+)", line[2]))
    return float(line[1]), {p: float(parts.get(p, "nan")) for p in PARTS}


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--device", default="cuda", choices=("cpu", "cuda"))
    ap.add_argument("--size", type=int, default=1024)
    ap.add_argument("--size-of", default="", help="physics=N,... (e.g. elastic=800)")
    ap.add_argument("--rounds", type=int, default=1)
    ap.add_argument("--seisfd", default=os.path.join(ROOT, "bin", "seisfd"))
    ap.add_argument("--folder", default=os.path.join(ROOT, "out", "setup-times"))
    args = ap.parse_args()
    os.environ["SEISFD_BIN_DIR"] = os.path.dirname(os.path.abspath(args.seisfd))
    import testlib
    os.makedirs(args.folder, exist_ok=True)
    size = parse_sizes(args.size_of, args.size)
    physics = testlib.declared_physics(args.device)
    if not physics:
        sys.exit(f"{args.seisfd} runs no physics on {args.device} (seisfd --version)")
    jobs = {p: job_for(p, size(p), args.folder) for p in physics}
    launcher = ["mpirun", "-np", "1", "--bind-to", "none"] if shutil.which("mpirun") else []
    if launcher and os.geteuid() == 0:
        launcher.append("--allow-run-as-root")
    best = {}
    for _ in range(args.rounds):
        for p in physics:
            command = launcher + [args.seisfd, "run", jobs[p]]
            total, parts = set_up_of(command)
            if p not in best or total < best[p][0]:
                best[p] = (total, parts)
    print(f"| physics | points | set-up, s | {' | '.join(PARTS)} | s per 10^9 points |")
    print("| --- " * (len(PARTS) + 4) + "|")
    for p in physics:
        total, parts = best[p]
        points = float(size(p)) ** 3
        cells = " | ".join(f"{parts[q]:.2f}" for q in PARTS)
        print(f"| {p} | {int(points)} | {total:.2f} | {cells} | {total / points * 1e9:.2f} |")


if __name__ == "__main__":
    main()
