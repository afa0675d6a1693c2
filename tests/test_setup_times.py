"""The set-up driver jobs/setup-times.py: the jobs it writes (every
physics the build runs, the tests' three layers) and the table it prints
from their set-up summaries, on the CPU."""
import os
import re
import subprocess
import sys

from testlib import ROOT, check, declared_physics, physics_parameters, time_limit

SETUP_TIMES = os.path.join(ROOT, "jobs", "setup-times.py")


def test_every_physics_set_up_timed_per_point(tmp):
    """On the CPU at 48^3 (44^3 for elastic), one round: a row for every
    physics `seisfd --version` lists, in its order, whose parts add up to
    its total to the printed rounding and whose seconds per 10^9 points
    are that total over the grid's points; each job it left is layered with
    the physics' own parameters."""
    out = subprocess.run([sys.executable, SETUP_TIMES, "--device", "cpu", "--size", "48",
                          "--size-of", "elastic=44", "--folder", tmp],
                         capture_output=True, text=True, timeout=time_limit(300),
                         env=dict(os.environ, OMP_NUM_THREADS="1"))
    check(out.returncode == 0, out.stdout + out.stderr)
    rows = re.findall(r"^\| (\w+) \| ([\d.e+]+) \| ([\d.]+) \| (.*) \| ([\d.]+) \|$",
                      out.stdout, re.M)
    physics = declared_physics("cpu")
    check([r[0] for r in rows] == physics, f"rows {[r[0] for r in rows]}, physics {physics}")
    for name, points, total, parts, per_point in rows:
        n = 44 if name == "elastic" else 48
        check(float(points) == n ** 3, f"{name}: {points} points, not {n}^3")
        part_sum = sum(float(x) for x in parts.split(" | "))
        check(abs(part_sum - float(total)) <= 0.005 * 6 + 1e-9,
              f"{name}: parts {parts} add to {part_sum:.2f}, the total is {total}")
        check(abs(float(per_point) - float(total) / n ** 3 * 1e9) <= 0.005 * 1e9 / n ** 3 + 0.01,
              f"{name}: {per_point} s per 1e9 points for {total} s over {n}^3")
        with open(os.path.join(tmp, name + ".yaml")) as f:
            text = f.read()
        layers = re.findall(r'"top"', text)
        missing = [p for p in physics_parameters(name) if f'"{p}"' not in text]
        check(len(layers) == 3 and not missing, f"{name}: {len(layers)} layers, {missing} missing")
    return f"{len(rows)} physics: " + ", ".join(f"{r[0]} {r[2]} s" for r in rows)
