#!/usr/bin/env python3
"""Strong- and weak-scaling studies of seisfd.

  scaling.py run MODE TEMPLATE --ranks 1,2,4,8 --out DIR [--launcher 'mpirun -np {ranks}']
             [--points-per-rank-z N | --nz EXPR] [--var NAME=EXPR] [--repeat K] ...
  scaling.py run strong --bench '--device cuda --size 512 --steps 50' --ranks 1,2,4 --out DIR
  scaling.py script slurm|pbs MODE TEMPLATE --ranks ... --out DIR
             (--gpus-per-node G | --ranks-per-node R) [--submit] ...
  scaling.py collect MODE DIR|REPORT ... [--out DIR]

MODE is `strong` (one grid, more ranks) or `weak` (nz grows with the rank
count). `run` runs `seisfd run` on the job template once per rank count
(and repetition), each in its own directory OUT/runs/ranks-NNNN-repK, and
writes OUT/scaling.csv, OUT/efficiency.png and OUT/breakdown.png from the
JSON reports. `script` writes (and with --submit submits) one batch job that
runs the whole series inside one allocation. `collect` builds the CSV and
the plots from reports of runs made any other way."""
import argparse
import ast
import csv
import json
import math
import operator
import os
import re
import shlex
import shutil
import signal
import statistics
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_SEISFD = os.path.join(ROOT, "bin", "seisfd")

PHASES = ("stencil", "halo_pack", "halo_d2h", "halo_mpi", "halo_h2d", "halo_unpack",
          "halo_exposed", "acquisition", "io")
HALO_TRANSFER_PHASES = ("halo_pack", "halo_d2h", "halo_mpi", "halo_h2d", "halo_unpack")
# Phases that do not overlap each other, stacked per step: the first three
# add up to about the time loop (the halo transfers overlap compute, so only
# their exposed part belongs here); I/O, which includes the gather written
# after the loop, goes on top, above the measured loop time.
LOOP_PHASES = ("stencil", "acquisition", "halo_exposed", "io")
PHASE_LABELS = {
    "stencil": "stencil + CPML", "halo_pack": "halo pack", "halo_d2h": "halo device→host",
    "halo_mpi": "halo MPI", "halo_h2d": "halo host→device", "halo_unpack": "halo unpack",
    "halo_exposed": "halo exposed", "acquisition": "source/receivers",
    "io": "I/O (whole shot, over steps)",
}
PHASE_COLOURS = {
    "stencil": "tab:blue", "acquisition": "tab:green", "io": "tab:purple",
    "halo_exposed": "tab:red", "halo_pack": "tab:orange", "halo_d2h": "tab:olive",
    "halo_mpi": "tab:pink", "halo_h2d": "tab:cyan", "halo_unpack": "tab:brown",
}

CSV_COLUMNS = (
    ["mode", "ranks", "ranks_per_shot", "groups", "nodes", "nx", "ny", "nz", "points_per_rank",
     "steps", "shots", "repeats", "loop_seconds", "loop_seconds_min", "loop_seconds_max",
     "seconds_per_step", "wall_seconds", "points_per_second", "speedup", "efficiency"]
    + [f"{p}_seconds" for p in PHASES]
    + ["physics", "order", "device", "halo_transport", "hosts", "gpus", "gpu_names", "report"])

RUNS_DIR = "runs"
CSV_NAME, EFFICIENCY_PNG, BREAKDOWN_PNG = "scaling.csv", "efficiency.png", "breakdown.png"
REPORT_NAME, JOB_NAME, COMMAND_NAME = "report.json", "job.yaml", "command.txt"
STDERR_TAIL_LINES = 12
DPI = 100


class ScalingError(Exception):
    """A problem reported to the user as one line (plus, for a failed run,
    the end of its stderr)."""


def warn(message):
    print(f"scaling: warning: {message}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------- expressions

_OPERATORS = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul,
              ast.Div: operator.truediv, ast.FloorDiv: operator.floordiv,
              ast.Mod: operator.mod, ast.Pow: operator.pow, ast.USub: operator.neg,
              ast.UAdd: operator.pos}
_FUNCTIONS = {"min": min, "max": max, "round": round, "int": int,
              "ceil": math.ceil, "floor": math.floor}


def evaluate(expression, names, what):
    """An arithmetic expression over `names` (ranks, nodes, ...): numbers,
    + - * / // % **, parentheses, min, max, round, int, ceil, floor. Parsed,
    not eval()ed, so a command line cannot run code."""
    try:
        tree = ast.parse(expression.strip(), mode="eval")
    except SyntaxError:
        raise ScalingError(f"{what}: '{expression}' is not an arithmetic expression")

    def value(node):
        if isinstance(node, ast.Constant) and isinstance(node.value, (int, float)):
            return node.value
        if isinstance(node, ast.Name):
            if node.id not in names:
                raise ScalingError(f"{what}: unknown name '{node.id}' in '{expression}' "
                                   f"(known: {', '.join(sorted(names))})")
            return names[node.id]
        if isinstance(node, ast.BinOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.left), value(node.right))
        if isinstance(node, ast.UnaryOp) and type(node.op) in _OPERATORS:
            return _OPERATORS[type(node.op)](value(node.operand))
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) \
                and node.func.id in _FUNCTIONS and not node.keywords:
            return _FUNCTIONS[node.func.id](*[value(a) for a in node.args])
        raise ScalingError(f"{what}: '{expression}' may only use numbers, names, "
                           f"+ - * / // % **, and {', '.join(_FUNCTIONS)}")

    try:
        result = value(tree.body)
    except ZeroDivisionError:
        raise ScalingError(f"{what}: '{expression}' divides by zero")
    return int(result) if isinstance(result, float) and result.is_integer() else result


def format_number(value):
    return str(value) if isinstance(value, int) else f"{value:.10g}"


# ------------------------------------------------------------------ templates

PLACEHOLDER = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*)\}")


def substitute(text, values, where):
    """Replaces {name} placeholders; any other {word} is an error naming its
    line, so that a typo cannot reach seisfd as a literal path."""
    def replace(match):
        name = match.group(1)
        if name not in values:
            line = text.count("\n", 0, match.start()) + 1
            hint = " (give --nz EXPR or --points-per-rank-z N)" if name == "nz" else \
                   " (give --ranks-per-node N)" if name == "nodes" else ""
            raise ScalingError(f"{where}:{line}: unknown placeholder {{{name}}}{hint}; "
                               f"known: {', '.join('{' + k + '}' for k in sorted(values))}")
        return format_number(values[name]) if not isinstance(values[name], str) else values[name]
    return PLACEHOLDER.sub(replace, text)


def _flow_entries(body):
    """Splits the inside of a one-line flow mapping at its top-level commas."""
    entries, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(body):
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "{[":
            depth += 1
        elif ch in "}]":
            depth -= 1
        elif ch == "," and depth == 0:
            entries.append(body[start:i])
            start = i + 1
    entries.append(body[start:])
    return [e.strip() for e in entries if e.strip()]


def _set_in_flow_line(line, key, value):
    match = re.match(r"^([A-Za-z_]\w*\s*:\s*)\{(.*)\}(\s*(#.*)?)$", line.rstrip("\n"))
    if not match:
        return None
    entries = [e for e in _flow_entries(match.group(2))
               if not re.match(rf"[\"']?{key}[\"']?\s*:", e)]
    entries.insert(0, f"{key}: {value}")
    return f"{match.group(1)}{{{', '.join(entries)}}}{match.group(3)}\n"


def set_mapping_key(text, section, key, value, where):
    """Sets `section.key: value` in a YAML job text, replacing an existing
    value: the template's top-level `section:` may be a block mapping or a
    one-line flow mapping ({a: 1, b: 2}); a missing section is appended.
    Other layouts (JSON, multi-line flow) are refused with what to write."""
    lines = text.splitlines(keepends=True)
    if lines and not lines[-1].endswith("\n"):
        lines[-1] += "\n"
    heads = [i for i, line in enumerate(lines) if re.match(rf"^{section}\s*:", line)]
    if not heads:
        if text.lstrip().startswith(("{", "[")):
            raise ScalingError(f"{where}: a JSON or flow-style template needs its placeholders "
                               f"written out: put {key}: {value} in its {section} mapping")
        return "".join(lines) + f"{section}:\n  {key}: {value}\n"
    head = heads[0]
    if re.match(rf"^{section}\s*:\s*(#.*)?$", lines[head].rstrip("\n")):
        return _set_in_block(lines, head, key, value)
    flow = _set_in_flow_line(lines[head], key, value)
    if flow is None:
        raise ScalingError(f"{where}:{head + 1}: cannot set {section}.{key} in this layout; "
                           f"write `{key}: {value}` in the {section} mapping yourself")
    lines[head] = flow
    return "".join(lines)


def _set_in_block(lines, head, key, value):
    end, indent, found = head + 1, None, None
    while end < len(lines):
        stripped = lines[end].strip()
        content = stripped and not stripped.startswith("#")
        if content and not lines[end][0].isspace():
            break    # the next top-level key
        if content:
            depth = len(lines[end]) - len(lines[end].lstrip(" "))
            indent = depth if indent is None else indent
            if depth == indent and re.match(rf"[\"']?{key}[\"']?\s*:", stripped):
                found = end
        end += 1
    indent = indent or 2
    entry = " " * indent + f"{key}: {value}\n"
    if found is None:
        lines.insert(head + 1, entry)
        return "".join(lines)
    stop = found + 1   # a nested value continues on deeper-indented lines
    while stop < end and (not lines[stop].strip()
                          or len(lines[stop]) - len(lines[stop].lstrip(" ")) > indent):
        stop += 1
    lines[found:stop] = [entry]
    return "".join(lines)


def prepare_template(text, where, sets_nz):
    """Makes the template write its report (and, unless it places its
    outputs with {out}, its gather) where the driver looks, and take nz from
    the driver when it sets nz: keys are set in the text, then the
    placeholders are substituted per run."""
    if "{report}" not in text:
        text = set_mapping_key(text, "output", "report", '"{report}"', where)
    if "{out}" not in text:
        text = set_mapping_key(text, "output", "gather", '"{out}/gather.h5"', where)
    if sets_nz and "{nz}" not in text:
        text = set_mapping_key(text, "grid", "nz", "{nz}", where)
    return text


# --------------------------------------------------------------------- series

class Run:
    """One launch of seisfd: its rank count, repetition, directory and files."""

    def __init__(self, ranks, rep, directory):
        self.ranks, self.rep, self.directory = ranks, rep, directory
        self.job = os.path.join(directory, JOB_NAME)
        self.report = os.path.join(directory, REPORT_NAME)
        self.stdout = os.path.join(directory, "stdout.log")
        self.stderr = os.path.join(directory, "stderr.log")
        self.values, self.job_text, self.command, self.nz = {}, None, None, None

    @property
    def label(self):
        return f"ranks {self.ranks} (rep {self.rep})"


def rank_list(text):
    try:
        ranks = sorted({int(x) for x in re.split(r"[,\s]+", text.strip()) if x})
    except ValueError:
        raise argparse.ArgumentTypeError(f"'{text}' is not a list of rank counts (e.g. 1,2,4,8)")
    if not ranks or ranks[0] < 1:
        raise argparse.ArgumentTypeError(f"'{text}': rank counts must be positive integers")
    return ranks


def variable(text):
    name, sep, expression = text.partition("=")
    if not sep or not re.fullmatch(r"[A-Za-z_]\w*", name.strip()) or not expression.strip():
        raise argparse.ArgumentTypeError(f"'{text}' is not NAME=EXPR (e.g. threads=16//ranks)")
    return name.strip(), expression.strip()


def default_launcher():
    """mpirun with $MPIRUN_FLAGS, as `make test` exports them (root needs
    --allow-run-as-root there)."""
    mpirun = os.environ.get("MPIRUN", "mpirun")
    flags = os.environ.get("MPIRUN_FLAGS", "")
    return " ".join(x for x in (mpirun, flags, "-np {ranks}") if x)


def nz_expression(args):
    if args.points_per_rank_z is not None:
        return f"{args.points_per_rank_z} * ranks"
    return args.nz


def run_values(args, ranks, rep, directory):
    """The placeholder values of one run."""
    values = {"ranks": ranks, "rep": rep, "out": directory,
              "report": os.path.join(directory, REPORT_NAME)}
    if args.ranks_per_node:
        values["nodes"] = -(-ranks // args.ranks_per_node)
    numbers = {k: v for k, v in values.items() if not isinstance(v, str)}
    expression = nz_expression(args)
    if expression is not None:
        nz = evaluate(expression, numbers, "--nz" if args.nz else "--points-per-rank-z")
        if not isinstance(nz, int) or nz < 1:
            raise ScalingError(f"nz = {expression} gives {nz} for {ranks} ranks: "
                               "not a positive whole number")
        values["nz"] = numbers["nz"] = nz
    for name, expression in args.var:
        if name in values:
            raise ScalingError(f"--var {name}: {{{name}}} is set by the driver; pick another name")
        values[name] = numbers[name] = evaluate(expression, numbers, f"--var {name}")
    return values


def check_series_options(args):
    if (args.template is None) == (args.bench is None):
        raise ScalingError("give a job TEMPLATE or --bench ARGS (one of the two)")
    if args.nz is not None and args.points_per_rank_z is not None:
        raise ScalingError("give --nz or --points-per-rank-z, not both")
    if args.bench is not None and (args.mode == "weak" or nz_expression(args) is not None):
        raise ScalingError("--bench runs an N³ cube (--size N): weak scaling and nz need a "
                           "job TEMPLATE")
    if args.mode == "weak" and nz_expression(args) is None:
        raise ScalingError("weak scaling grows nz with the rank count: give "
                           "--points-per-rank-z N (nz = N·ranks) or --nz EXPR")
    if args.template is not None and not os.path.isfile(args.template):
        raise ScalingError(f"no such job template: '{args.template}'")


def plan_series(args):
    """Every run of the series with its job text and command, built before
    anything runs, so that a bad template or expression stops the series
    at once rather than after hours of runs."""
    check_series_options(args)
    out = os.path.abspath(args.out)
    if re.search(r": | #|[\"\\\n]", out):
        raise ScalingError(f"--out '{out}': the path would break the YAML job file "
                           "(avoid ': ', ' #', quotes and backslashes)")
    runs = []
    for ranks in args.ranks:
        for rep in range(1, args.repeat + 1):
            run = Run(ranks, rep, os.path.join(out, RUNS_DIR, f"ranks-{ranks:04d}-rep{rep}"))
            run.values = run_values(args, ranks, rep, run.directory)
            run.nz = run.values.get("nz")
            runs.append(run)
    template = read_template(args, runs[0].values) if args.template is not None else None
    for run in runs:
        set_command(run, args, template)
    return runs


def read_template(args, values):
    with open(args.template) as f:
        text = f.read()
    substitute(text, values, args.template)   # so that errors cite the user's line numbers
    return prepare_template(text, args.template, nz_expression(args) is not None)


def set_command(run, args, template):
    launcher = shlex.split(os.path.expandvars(substitute(args.launcher, run.values, "--launcher")))
    seisfd = os.path.abspath(args.seisfd)
    if template is not None:
        run.job_text = substitute(template, run.values, args.template)
        run.command = launcher + [seisfd, "run", run.job]
    else:
        bench = shlex.split(substitute(args.bench, run.values, "--bench"))
        run.command = launcher + [seisfd, "bench", *bench, "--report", run.report]


# -------------------------------------------------------------------- running

def strip_launcher_banners(lines):
    """OpenMPI frames its notes between lines of dashes; the run's own
    error usually sits above them, so they are dropped from the tail."""
    kept, inside = [], False
    for line in lines:
        if re.fullmatch(r"-{20,}", line.strip()):
            inside = not inside
        elif not inside and line.strip():
            kept.append(line)
    return kept


def stderr_tail(path):
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError:
        return []
    return (strip_launcher_banners(lines) or [x for x in lines if x.strip()])[-STDERR_TAIL_LINES:]


def launch(run, timeout):
    with open(run.stdout, "w") as out, open(run.stderr, "w") as err:
        try:
            process = subprocess.Popen(run.command, stdout=out, stderr=err,
                                       start_new_session=True)
        except OSError as e:
            raise ScalingError(f"{run.label}: cannot start '{run.command[0]}': {e.strerror}")
        try:
            return process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            stop_process_group(process)
            raise ScalingError(f"{run.label}: no result within --timeout {timeout:g} s "
                               f"(stopped); its output is in {run.directory}")
        except KeyboardInterrupt:
            stop_process_group(process)
            raise


def stop_process_group(process):
    """The launcher and the ranks it started form one session: stop them all."""
    for sig, grace in ((signal.SIGTERM, 10), (signal.SIGKILL, None)):
        try:
            os.killpg(process.pid, sig)
        except ProcessLookupError:
            return
        try:
            process.wait(timeout=grace)
            return
        except subprocess.TimeoutExpired:
            continue


def failed_run_message(run, status):
    tail = stderr_tail(run.stderr)
    text = f"{run.label}: `{shlex.join(run.command)}` exited with status {status}"
    if tail:
        text += f"; the end of {run.stderr}:\n" + "\n".join("    " + x for x in tail)
    else:
        text += f" and printed nothing on stderr ({run.stderr})"
    return text


def prepare_run_directories(runs, resume):
    existing = [r for r in runs if os.path.exists(r.directory)]
    if existing and not resume:
        raise ScalingError(f"{existing[0].directory} already exists: pass --resume to keep the "
                           "finished runs of an earlier series, or choose another --out")


def finished_summary(run):
    """The summary of a run already done (--resume), or None to run it."""
    if not os.path.isfile(run.report):
        return None
    try:
        summary = summarize(load_report(run.report))
        check_run_matches(run, summary)
        return summary
    except ScalingError as e:
        warn(f"{run.label}: running again: {e}")
        return None


def execute(run, args):
    try:
        if os.path.exists(run.directory):
            shutil.rmtree(run.directory)   # a leftover of an unfinished run: start clean
        os.makedirs(run.directory)
    except OSError as e:
        raise ScalingError(f"cannot create {run.directory}: {e.strerror or e}")
    if run.job_text is not None:
        write_atomically(run.job, run.job_text)
    write_atomically(os.path.join(run.directory, COMMAND_NAME), shlex.join(run.command) + "\n")
    status = launch(run, args.timeout)
    if status != 0:
        raise ScalingError(failed_run_message(run, status))
    if not os.path.isfile(run.report):
        raise ScalingError(f"{run.label}: seisfd finished but wrote no report at {run.report} "
                           "(a seisfd without the JSON report?)")
    summary = summarize(load_report(run.report))
    check_run_matches(run, summary)
    return summary


def check_run_matches(run, summary):
    """Catches a launcher that ignores {ranks}, or a template whose nz the
    driver did not control, before they turn into a wrong curve."""
    if summary["ranks"] != run.ranks:
        raise ScalingError(f"{run.label}: the report says {summary['ranks']} ranks; does the "
                           "launcher pass {ranks} (e.g. mpirun -np {ranks})?")
    if run.nz is not None and summary["nz"] != run.nz:
        raise ScalingError(f"{run.label}: the report says nz = {summary['nz']}, the series "
                           f"asked for {run.nz}; does the template set grid.nz twice?")


def run_series(args):
    runs = plan_series(args)
    prepare_run_directories(runs, args.resume)
    summaries = []
    for run in runs:
        summary = finished_summary(run) if args.resume else None
        if summary is None:
            print(f"scaling: {run.label}: {shlex.join(run.command)}", flush=True)
            summary = execute(run, args)
            verb = "ran"
        else:
            verb = "kept"
        summaries.append(summary)
        print(f"scaling: {run.label}: {verb}: {summary['loop_seconds']:.4g} s time loop, "
              f"{summary['seconds_per_step'] * 1e3:.4g} ms per step", flush=True)
    return summaries


# -------------------------------------------------------------------- reports

def load_report(path):
    try:
        with open(path) as f:
            report = json.load(f)
    except FileNotFoundError:
        raise ScalingError(f"no such report: '{path}'")
    except json.JSONDecodeError as e:
        raise ScalingError(f"{path}: not a JSON report (line {e.lineno}: {e.msg})")
    except OSError as e:
        raise ScalingError(f"cannot read '{path}': {e.strerror}")
    if not isinstance(report, dict):
        raise ScalingError(f"{path}: not a seisfd report (not a JSON object)")
    for key in ("config", "ranks", "shots", "processes"):
        if key not in report:
            raise ScalingError(f"{path}: not a seisfd report (no '{key}')")
    report["_path"] = path
    return report


def field(mapping, key, path, what):
    if not isinstance(mapping, dict) or key not in mapping or mapping[key] is None:
        raise ScalingError(f"{path}: the report has no {what}{key}")
    return mapping[key]


def summarize(report):
    """One CSV row's worth of a report. A scaling job normally has one shot;
    with several, the per-shot times are their median (the decomposition is
    what scales) and failed shots make the report unusable."""
    path = report["_path"]
    config = report["config"]
    shots = report["shots"]
    failed = [s for s in shots if s.get("status") == "failed"]
    if failed:
        shot = failed[0]
        raise ScalingError(f"{path}: shot {shot.get('index', '?')} failed: "
                           f"{shot.get('reason') or 'no reason given'}")
    done = [s for s in shots if s.get("status") == "done"]
    if not done:
        raise ScalingError(f"{path}: no shot finished (statuses: "
                           f"{', '.join(str(s.get('status')) for s in shots) or 'no shots'})")
    loops = [float(field(s, "loop_seconds", path, "shot ")) for s in done]
    per_step = [loop / int(field(s, "steps", path, "shot ")) for loop, s in zip(loops, done)]
    # A phase the halo path does not have (host copies without host staging) is null.
    phases = {p: statistics.median(float((s.get("phases") or {}).get(p) or 0.0) for s in done)
              for p in PHASES}
    ranks = int(report["ranks"])
    ranks_per_shot = int(report.get("ranks_per_shot") or ranks)
    nx, ny, nz = (int(field(config, k, path, "config.")) for k in ("nx", "ny", "nz"))
    totals = report.get("totals") or {}
    points_per_second = totals.get("points_per_second") or statistics.median(
        float(s.get("points_per_second", 0.0)) for s in done)
    processes = report["processes"] or []
    hosts = unique(str(p.get("host", "?")) for p in processes)
    gpus = [p["gpu"] for p in processes if isinstance(p.get("gpu"), dict)]
    gpu_ids = unique(str(g.get("uuid") or (p.get("host"), g.get("index")))
                     for p in processes for g in [p.get("gpu")] if isinstance(g, dict))
    return {
        "ranks": ranks, "ranks_per_shot": ranks_per_shot,
        "groups": int(report.get("groups") or max(1, ranks // ranks_per_shot)),
        "nodes": len(hosts), "nx": nx, "ny": ny, "nz": nz,
        "points_per_rank": nx * ny * nz / ranks_per_shot,
        "steps": int(done[0]["steps"]), "shots": len(done),
        "loop_seconds": statistics.median(loops),
        "seconds_per_step": statistics.median(per_step),
        "wall_seconds": float(report.get("wall_seconds") or 0.0),
        "points_per_second": float(points_per_second),
        "phases": {p: v / int(done[0]["steps"]) for p, v in phases.items()},
        "phase_seconds": phases,
        "physics": config.get("physics", ""), "order": config.get("order", ""),
        "device": config.get("device", ""),
        "halo_transport": config.get("halo_transport", ""),
        "hosts": ";".join(hosts), "gpus": len(gpu_ids),
        "gpu_names": ";".join(unique(str(g.get("name", "?")) for g in gpus)),
        "report": os.path.abspath(path),
    }


def unique(items):
    seen = []
    for item in items:
        if item not in seen:
            seen.append(item)
    return seen


def find_reports(paths):
    """Report files among PATHs: files as given, directories searched for
    report.json and *.report.json. A run directory of this driver (it holds
    command.txt) without its report is an error: the series is incomplete."""
    found = []
    for path in paths:
        if os.path.isfile(path):
            found.append(path)
        elif os.path.isdir(path):
            found.extend(reports_below(path))
        else:
            raise ScalingError(f"no such report or directory: '{path}'")
    if not found:
        raise ScalingError(f"no report.json under {', '.join(paths)}")
    return found


def reports_below(directory):
    found = []
    for folder, subfolders, files in os.walk(directory):
        subfolders.sort()
        reports = sorted(f for f in files if f == REPORT_NAME or f.endswith(".report.json"))
        if COMMAND_NAME in files and REPORT_NAME not in files:
            raise ScalingError(f"{folder}: no {REPORT_NAME}: the run did not finish (its "
                               f"stderr: {os.path.join(folder, 'stderr.log')})")
        found.extend(os.path.join(folder, f) for f in reports)
    return found


# ---------------------------------------------------------------------- table

def pick_repeat(summaries, pick):
    """The run that represents a rank count: the fastest, or the median one
    (a real run, so that its phases belong to its time)."""
    ordered = sorted(summaries, key=lambda s: s["seconds_per_step"])
    return ordered[0] if pick == "best" else ordered[(len(ordered) - 1) // 2]


def scaling_table(summaries, mode, pick):
    """CSV rows, one per rank count, with speedup and efficiency against the
    smallest rank count (N0, time per step T0): strong E = N0·T0 / (N·T),
    speedup T0 / T; weak E = T0 / T, speedup (N/N0)·T0/T (scaled). N is the
    ranks per shot, which is the rank count for a one-shot job."""
    by_ranks = {}
    for s in summaries:
        by_ranks.setdefault(s["ranks"], []).append(s)
    rows = []
    for ranks in sorted(by_ranks):
        group = by_ranks[ranks]
        row = dict(pick_repeat(group, pick))
        loops = [s["loop_seconds"] for s in group]
        row.update(mode=mode, repeats=len(group), loop_seconds_min=min(loops),
                   loop_seconds_max=max(loops))
        rows.append(row)
    check_consistent(rows, mode)
    base = rows[0]
    for row in rows:
        ratio = base["seconds_per_step"] / row["seconds_per_step"]
        scale = row["ranks_per_shot"] / base["ranks_per_shot"]
        row["efficiency"] = ratio / scale if mode == "strong" else ratio
        row["speedup"] = ratio if mode == "strong" else ratio * scale
    return rows


def check_consistent(rows, mode):
    base = rows[0]
    for row in rows[1:]:
        for key in ("physics", "order", "device", "halo_transport", "nx", "ny") + (
                ("nz",) if mode == "strong" else ()):
            if row[key] != base[key]:
                raise ScalingError(f"the reports mix {key} = {base[key]} ({base['report']}) and "
                                   f"{row[key]} ({row['report']}): not one {mode} series")
        if row["steps"] != base["steps"]:
            warn(f"{row['ranks']} ranks ran {row['steps']} steps, {base['ranks']} ranks "
                 f"{base['steps']}: compared per step")
        if mode == "weak" and abs(row["points_per_rank"] / base["points_per_rank"] - 1) > 0.01:
            warn(f"{row['ranks']} ranks hold {row['points_per_rank']:.4g} points per rank, "
                 f"{base['ranks']} ranks {base['points_per_rank']:.4g}: not constant work")
    for row in rows:
        if row["device"] == "cuda" and 0 < row["gpus"] < row["ranks"]:
            warn(f"{row['ranks']} ranks ran on {row['gpus']} GPUs: ranks shared GPUs")


def csv_value(value):
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.9g}"
    return value


def write_csv(rows, path):
    def emit(f):
        writer = csv.writer(f, lineterminator="\n")
        writer.writerow(CSV_COLUMNS)
        for row in rows:
            flat = dict(row, **{f"{p}_seconds": row["phase_seconds"][p] for p in PHASES})
            writer.writerow([csv_value(flat[c]) for c in CSV_COLUMNS])
    write_atomically(path, emit)


def write_atomically(path, content):
    """Writes `content` (text, or a function given the open file) under a
    .partial name and renames it, so a file under its final name is complete."""
    partial = path + ".partial"
    try:
        with open(partial, "w") as f:
            if callable(content):
                content(f)
            else:
                f.write(content)
        os.replace(partial, path)
    except OSError as e:
        raise ScalingError(f"cannot write '{path}': {e.strerror or e}")


def print_table(rows, mode, goal):
    print(f"{'ranks':>6} {'nodes':>5} {'grid':>18} {'ms/step':>10} {'Gpoints/s':>10} "
          f"{'speedup':>8} {'efficiency':>10}")
    for r in rows:
        grid = f"{r['nx']}x{r['ny']}x{r['nz']}"
        flag = "  below goal" if goal and r["efficiency"] < goal else ""
        print(f"{r['ranks']:>6} {r['nodes']:>5} {grid:>18} {r['seconds_per_step'] * 1e3:>10.4g} "
              f"{r['points_per_second'] / 1e9:>10.4g} {r['speedup']:>8.3f} "
              f"{100 * r['efficiency']:>9.1f}%{flag}")


# ---------------------------------------------------------------------- plots

def pyplot():
    try:
        import matplotlib
    except ImportError:
        raise ScalingError("python3-matplotlib is not installed (make deps installs it); the "
                           "CSV is written: run `scaling.py collect` where it is, for the plots")
    matplotlib.use("Agg")   # files only: batch nodes have no display
    import matplotlib.pyplot as plt
    return plt


def series_title(rows, mode):
    base = rows[0]
    if mode == "strong":
        grid = f"{base['nx']}×{base['ny']}×{base['nz']} points"
    else:
        grid = (f"{base['nx']}×{base['ny']}×{base['nz'] // max(1, base['ranks_per_shot'])}"
                " points per rank (nz grows)")
    device = base["gpu_names"].split(";")[0] if base["device"] == "cuda" and base["gpu_names"] \
        else base["device"] or "?"
    if base["device"] == "cuda" and base["halo_transport"]:
        device += f", halos by {base['halo_transport']}"
    return (f"{mode.capitalize()} scaling: {base['physics']} order {base['order']}, {grid}, "
            f"{base['steps']} steps, on {device}")


def rank_axis(ax, ranks):
    ax.set_xscale("log", base=2)
    ax.set_xticks(ranks)
    ax.set_xticklabels([str(r) for r in ranks])
    ax.minorticks_off()
    ax.set_xlim(ranks[0] / 1.3, ranks[-1] * 1.3)
    ax.set_xlabel("MPI ranks")
    ax.grid(True, alpha=0.3)


def plot_efficiency(rows, mode, goal, title, path):
    plt = pyplot()
    ranks = [r["ranks"] for r in rows]
    efficiency = [100 * r["efficiency"] for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(12, 5), layout="constrained")
    left.axhline(100, color="grey", linewidth=1, label="ideal")
    if goal:
        left.axhline(100 * goal, color="tab:red", linestyle="--", linewidth=1,
                     label=f"goal {100 * goal:g}%")
    left.plot(ranks, efficiency, "o-", color="tab:blue", label="measured")
    for x, y in zip(ranks, efficiency):
        left.annotate(f"{y:.1f}%", (x, y), textcoords="offset points", xytext=(0, -16),
                      ha="center", fontsize=9,
                      bbox=dict(boxstyle="round,pad=0.15", facecolor="white", edgecolor="none"))
    rank_axis(left, ranks)
    left.set_ylim(0, max(110, max(efficiency) + 10))
    left.set_ylabel("parallel efficiency (%)")
    left.set_title("strong: N₀·T₀ / (N·T)" if mode == "strong" else "weak: T₀ / T")
    left.legend(loc="lower left")
    if mode == "strong":
        speedup = [r["speedup"] for r in rows]
        right.plot(ranks, [r / ranks[0] for r in ranks], color="grey", linewidth=1, label="ideal")
        right.plot(ranks, speedup, "o-", color="tab:blue", label="measured")
        right.set_yscale("log", base=2)
        ideal_levels = [r / ranks[0] for r in ranks]
        right.set_yticks(ideal_levels)
        right.set_yticklabels([f"{v:g}" for v in ideal_levels])
        right.minorticks_off()
        right.set_ylabel(f"speedup over {ranks[0]} rank{'s' if ranks[0] > 1 else ''}")
        right.set_title("speedup T₀ / T")
    else:
        per_step = [1e3 * r["seconds_per_step"] for r in rows]
        right.axhline(per_step[0], color="grey", linewidth=1, label="ideal (constant)")
        right.plot(ranks, per_step, "o-", color="tab:blue", label="measured")
        right.set_ylim(0, max(per_step) * 1.25)
        right.set_ylabel("time per step (ms)")
        right.set_title("time per step, work per rank fixed")
    rank_axis(right, ranks)
    right.legend(loc="best")
    fig.suptitle(title)
    save_png(fig, path)


def stacked_bars(ax, rows, phases, positions):
    bottom = [0.0] * len(rows)
    for phase in phases:
        heights = [1e3 * r["phases"][phase] for r in rows]
        ax.bar(positions, heights, bottom=bottom, width=0.6, color=PHASE_COLOURS[phase],
               label=PHASE_LABELS[phase])
        bottom = [b + h for b, h in zip(bottom, heights)]
    return bottom


def mark(ax, positions, values, label, **style):
    """Short horizontal ticks across the bars: a measured or ideal level."""
    for i, (x, y) in enumerate(zip(positions, values)):
        ax.hlines(y, x - 0.38, x + 0.38, label=label if i == 0 else None, **style)


def plot_breakdown(rows, mode, title, path):
    plt = pyplot()
    positions = list(range(len(rows)))
    labels = [f"{r['ranks']}" + (f"\nnz {r['nz']}" if mode == "weak" else "") for r in rows]
    loop = [1e3 * r["seconds_per_step"] for r in rows]
    base = rows[0]
    ideal = [loop[0] * (base["ranks_per_shot"] / r["ranks_per_shot"] if mode == "strong" else 1)
             for r in rows]
    fig, (left, right) = plt.subplots(1, 2, figsize=(13, 6), layout="constrained")
    tops = stacked_bars(left, rows, LOOP_PHASES, positions)
    mark(left, positions, loop, "time loop (measured)", colors="black", linewidth=2)
    mark(left, positions, ideal, "ideal", colors="grey", linestyles="--", linewidth=1.5)
    left.set_ylim(0, 1.15 * max(tops + loop + ideal))
    left.set_title("time per step by phase (max over ranks)")
    right_tops = stacked_bars(right, rows, HALO_TRANSFER_PHASES, positions)
    exposed = [1e3 * r["phases"]["halo_exposed"] for r in rows]
    mark(right, positions, exposed, "halo exposed (not hidden by compute)", colors="black",
         linewidth=2)
    right.set_ylim(0, 1.15 * max(right_tops + exposed) if max(right_tops + exposed) > 0 else 1)
    right.set_title("halo exchange per step, by stage")
    for ax in (left, right):
        ax.set_xticks(positions)
        ax.set_xticklabels(labels)
        ax.set_xlabel("MPI ranks")
        ax.set_ylabel("milliseconds per step")
        ax.grid(True, axis="y", alpha=0.3)
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.14), ncol=3, fontsize=8,
                  frameon=False)
    fig.suptitle(title)
    save_png(fig, path)


def save_png(fig, path):
    plt = pyplot()
    partial = path + ".partial"
    try:
        fig.savefig(partial, dpi=DPI, format="png")
        os.replace(partial, path)
    except OSError as e:
        raise ScalingError(f"cannot write '{path}': {e.strerror or e}")
    finally:
        plt.close(fig)


def write_results(summaries, args, out):
    rows = scaling_table(summaries, args.mode, args.pick)
    os.makedirs(out, exist_ok=True)
    csv_path = os.path.join(out, CSV_NAME)
    write_csv(rows, csv_path)
    print_table(rows, args.mode, args.goal)
    print(csv_path)
    if args.no_plots:
        return
    title = args.title or series_title(rows, args.mode)
    plot_efficiency(rows, args.mode, args.goal, title, os.path.join(out, EFFICIENCY_PNG))
    plot_breakdown(rows, args.mode, title, os.path.join(out, BREAKDOWN_PNG))
    print(os.path.join(out, EFFICIENCY_PNG))
    print(os.path.join(out, BREAKDOWN_PNG))


# -------------------------------------------------------------- batch scripts

# Seconds before a Slurm job's time limit that its run under way gets
# SIGUSR1 (docs/user-guide.md, "Signals").
STOP_NOTICE_SECONDS = 60


def batch_launcher(args):
    """The launcher of one series step inside the allocation: a rank per GPU
    (or per RANKS_PER_NODE slot) on as many nodes as the step needs."""
    cores = args.cores_per_rank
    if args.scheduler == "slurm":
        # Every task sees all GPUs of its node (seisfd takes node-local rank
        # mod GPUs): per-task GPU binding would hide the peers from CUDA IPC.
        gpu = " --gpu-bind=none" if args.gpus_per_node else ""
        return (f"srun --nodes={{nodes}} --ntasks={{ranks}} --cpus-per-task={cores}"
                f"{gpu} --cpu-bind=cores")
    common = "mpirun -np {ranks} --hostfile $PBS_NODEFILE -x OMP_NUM_THREADS"
    if args.gpus_per_node:   # seisfd binds each rank to the cores nearest its GPU
        return f"{common} --map-by ppr:{args.ranks_per_node}:node --bind-to none"
    return (f"{common} -x OMP_PROC_BIND -x OMP_PLACES "
            f"--map-by ppr:{args.ranks_per_node}:node:PE={cores} --bind-to core")


def batch_header(args, nodes, log):
    r, c = args.ranks_per_node, args.cores_per_rank
    name = f"seisfd-{args.mode}"
    if args.scheduler == "slurm":
        lines = [f"--job-name={name}", f"--nodes={nodes}", f"--ntasks-per-node={r}",
                 f"--cpus-per-task={c}"]
        if args.gpus_per_node:
            lines += [f"--gpus-per-node={args.gpus_per_node}"]
        # The run under way stops cleanly a minute before the limit and the
        # series with it; submitted again, the series continues.
        lines += ["--exclusive", f"--time={args.time}", f"--signal=USR1@{STOP_NOTICE_SECONDS}",
                  f"--output={log}-%j.log"]
        return [f"#SBATCH {x}" for x in lines + args.directive]
    gpus = f":ngpus={args.gpus_per_node}" if args.gpus_per_node else ""
    lines = [f"-N {name}", f"-l select={nodes}:ncpus={r * c}{gpus}:mpiprocs={r}:ompthreads={c}",
             "-l place=scatter:excl", f"-l walltime={args.time}", "-j oe", f"-o {log}.log"]
    return [f"#PBS {x}" for x in lines + args.directive] + [
        "# PBS has no standard signal ahead of the walltime (Slurm's --signal): at the",
        "# walltime the run under way gets SIGTERM, then SIGKILL, and submitting the",
        "# script again continues the series."]


def series_arguments(args, launcher):
    """The `run` command line that the batch job executes: absolute paths,
    since the job starts elsewhere."""
    argv = ["python3", os.path.abspath(__file__), "run", args.mode]
    if args.template:
        argv.append(os.path.abspath(args.template))
    else:
        argv.append(f"--bench={args.bench}")   # = keeps a value starting with -- a value
    argv += ["--ranks", ",".join(map(str, args.ranks)), "--out", os.path.abspath(args.out),
             "--launcher", launcher, "--ranks-per-node", str(args.ranks_per_node),
             "--repeat", str(args.repeat), "--pick", args.pick,
             "--seisfd", os.path.abspath(args.seisfd), "--resume"]
    if args.points_per_rank_z is not None:
        argv += ["--points-per-rank-z", str(args.points_per_rank_z)]
    if args.nz is not None:
        argv += ["--nz", args.nz]
    for name, expression in args.var:
        argv += ["--var", f"{name}={expression}"]
    for flag, value in (("--timeout", args.timeout), ("--goal", args.goal),
                        ("--title", args.title)):
        if value is not None:
            argv.append(f"{flag}={value}")
    if args.no_plots:
        argv.append("--no-plots")
    return argv


def command_lines(argv):
    """A shell command with one option per line, for a reader of the script."""
    words = [shlex.quote(w) for w in argv]
    text = words[0]
    for word in words[1:]:
        text += (" \\\n    " if word.startswith("--") else " ") + word
    return text


def batch_script(args):
    if not args.gpus_per_node and not args.ranks_per_node:
        raise ScalingError("give --gpus-per-node G (one rank per GPU) or --ranks-per-node R "
                           "(CPU nodes)")
    if args.gpus_per_node:
        args.ranks_per_node = args.gpus_per_node
    args.launcher = args.launcher or batch_launcher(args)
    plan_series(args)   # a bad template or expression fails here, not in the queue
    nodes = -(-max(args.ranks) // args.ranks_per_node)
    out = os.path.abspath(args.out)
    body = [
        "#!/bin/bash",
        f"# {args.mode.capitalize()}-scaling series of seisfd on {', '.join(map(str, args.ranks))}"
        " ranks, written by jobs/scaling.py script;",
        f"# the results go to {out}. Submitting it again continues a series cut off",
        "# by the time limit (finished runs are kept).",
        *batch_header(args, nodes, os.path.join(out, f"{args.scheduler}")),
        "",
        "set -euo pipefail",
        f"cd {shlex.quote(os.getcwd())}   # where the template's relative paths start",
        *args.setup,
        f"export OMP_NUM_THREADS={args.cores_per_rank} OMP_PLACES=cores OMP_PROC_BIND=close",
        *(["# Halo buffers in device memory where the MPI takes them",
           "# (docs/clusters-and-gpus.md, \"GPU-aware MPI\");",
           "# with Open MPI and UCX, UCX_MEMTYPE_CACHE=n keeps UCX from mistaking them for host memory.",
           "export SEISFD_GPU_AWARE_MPI=${SEISFD_GPU_AWARE_MPI:-auto} UCX_MEMTYPE_CACHE=n"]
          if args.gpus_per_node else []),
        "# scaling.py fills in the launcher's {placeholders} and $VARIABLES for each run.",
        *(["# shellcheck disable=SC2016"] if "$" in args.launcher else []),
        command_lines(series_arguments(args, args.launcher)),
        "",
    ]
    return "\n".join(body), nodes


def write_batch_script(args):
    text, nodes = batch_script(args)
    os.makedirs(os.path.abspath(args.out), exist_ok=True)
    path = args.script or os.path.join(args.out, f"scaling.{args.scheduler}")
    write_atomically(path, text)
    os.chmod(path, 0o755)
    print(f"scaling: {path}: {nodes} node{'s' if nodes > 1 else ''}, "
          f"ranks {', '.join(map(str, args.ranks))}")
    if args.submit:
        submit = "sbatch" if args.scheduler == "slurm" else "qsub"
        try:
            p = subprocess.run([submit, path], capture_output=True, text=True)
        except OSError as e:
            raise ScalingError(f"cannot run {submit}: {e.strerror} (submit {path} by hand)")
        if p.returncode != 0:
            raise ScalingError(f"{submit} {path} failed: {(p.stderr or p.stdout).strip()}")
        print(p.stdout.strip())
    else:
        print(path)


# ------------------------------------------------------------- command line

def goal_fraction(text):
    value = float(text)
    if not 0 < value <= 1:
        raise argparse.ArgumentTypeError(f"{text}: the goal is a fraction, 0 < G <= 1 "
                                         "(e.g. 0.95)")
    return value


def positive_int(text):
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive integer")
    return value


def add_result_options(p):
    p.add_argument("--pick", choices=("best", "median"), default="best",
                   help="which repetition of a rank count is reported (default: best)")
    p.add_argument("--goal", type=goal_fraction,
                   help="draw a goal line on the efficiency plot, e.g. 0.95")
    p.add_argument("--title", help="title of the plots (default: from the reports)")
    p.add_argument("--no-plots", action="store_true", help="write the CSV only")


def add_series_options(p):
    p.add_argument("mode", choices=("strong", "weak"))
    p.add_argument("template", nargs="?",
                   help="job YAML; the driver sets output.report (and output.gather unless "
                        "the template uses {out}, grid.nz when it sets nz)")
    p.add_argument("--ranks", type=rank_list, required=True, help="rank counts, e.g. 1,2,4,8")
    p.add_argument("--out", required=True, help="directory of the series and its results")
    p.add_argument("--bench", metavar="ARGS",
                   help="run `seisfd bench ARGS --report FILE` instead of a template (strong)")
    p.add_argument("--points-per-rank-z", type=positive_int, metavar="N",
                   help="nz = N x ranks (weak scaling)")
    p.add_argument("--nz", metavar="EXPR", help="nz as an expression of ranks, e.g. 256*ranks+40")
    p.add_argument("--var", type=variable, action="append", default=[], metavar="NAME=EXPR",
                   help="a further placeholder {NAME}, e.g. threads=32//ranks")
    p.add_argument("--ranks-per-node", type=positive_int, metavar="R",
                   help="defines {nodes} = ceil(ranks / R) for the launcher")
    p.add_argument("--repeat", type=positive_int, default=1, metavar="K",
                   help="runs per rank count (default 1)")
    p.add_argument("--seisfd", default=DEFAULT_SEISFD, help="the program (default: bin/seisfd)")
    p.add_argument("--timeout", type=float, metavar="S", help="stop a run after S seconds")
    p.add_argument("--resume", action="store_true",
                   help="keep runs of an earlier series in --out that have a valid report")
    add_result_options(p)


def parse(argv):
    p = argparse.ArgumentParser(prog="scaling.py", description=__doc__.split("\n")[0],
                                epilog="See docs/clusters-and-gpus.md, 'Scaling studies'.")
    sub = p.add_subparsers(dest="command", required=True)
    run = sub.add_parser("run", help="run the series here (or inside an allocation)")
    add_series_options(run)
    run.add_argument("--launcher", default=default_launcher(),
                     help="command before seisfd, with {ranks} (default: '%(default)s')")
    script = sub.add_parser("script", help="write (and --submit) a batch job running the series")
    script.add_argument("scheduler", choices=("slurm", "pbs"))
    add_series_options(script)
    script.add_argument("--gpus-per-node", type=positive_int, metavar="G",
                        help="GPU nodes: one rank per GPU, G per node")
    script.add_argument("--cores-per-rank", type=positive_int, default=8, metavar="C",
                        help="host cores (OpenMP threads) per rank (default 8)")
    script.add_argument("--launcher", help="override the launcher the script uses")
    script.add_argument("--time", default="01:00:00", help="wall-time limit (default 01:00:00)")
    script.add_argument("--directive", action="append", default=[], metavar="TEXT",
                        help="an extra #SBATCH/#PBS line, e.g. --directive=--account=abc")
    script.add_argument("--setup", action="append", default=[], metavar="CMD",
                        help="a shell line before the series, e.g. 'module load cuda openmpi'")
    script.add_argument("--script", metavar="PATH", help="where to write it "
                                                         "(default: OUT/scaling.slurm or .pbs)")
    script.add_argument("--submit", action="store_true", help="hand it to sbatch or qsub")
    collect = sub.add_parser("collect", help="CSV and plots from existing reports")
    collect.add_argument("mode", choices=("strong", "weak"))
    collect.add_argument("paths", nargs="+", metavar="DIR|REPORT")
    collect.add_argument("--out", help="where the CSV and plots go (default: the first "
                                       "PATH when it is a directory)")
    add_result_options(collect)
    return p.parse_args(argv)


def main(argv=None):
    args = parse(argv)
    try:
        if args.command == "run":
            summaries = run_series(args)
            write_results(summaries, args, os.path.abspath(args.out))
        elif args.command == "script":
            write_batch_script(args)
        else:
            out = args.out or (args.paths[0] if os.path.isdir(args.paths[0]) else None)
            if out is None:
                raise ScalingError("give --out DIR for the CSV and plots")
            summaries = [summarize(load_report(p)) for p in find_reports(args.paths)]
            write_results(summaries, args, out)
    except ScalingError as e:
        print(f"scaling: error: {e}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("scaling: interrupted", file=sys.stderr)
        return 130
    return 0


if __name__ == "__main__":
    sys.exit(main())
