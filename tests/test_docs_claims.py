"""What the docs say the program can do is what the program says of itself
(docs/testing.md, "The documentation"): the README's table of physics per
backend against `seisfd --version`, and docs/benchmark.md's table of bench
options against `seisfd bench --help`, which prints the parser's own table,
and docs/job-keys.md against `seisfd help keys`, which prints the job
reader's own key tables."""
import os
import re
import subprocess

from testlib import ROOT, SEISFD, check, time_limit

BACKENDS_MARKER = "<!-- backends:"
BENCH_MARKER = "<!-- bench-options:"


def table_after(path, marker):
    """The rows (lists of cells) of the Markdown table that follows marker,
    header first, the separator row dropped."""
    with open(os.path.join(ROOT, path), encoding="utf-8") as f:
        lines = f.read().split("\n")
    starts = [i for i, line in enumerate(lines) if line.startswith(marker)]
    check(len(starts) == 1, f"{path}: {len(starts)} lines start with '{marker}', not one")
    rows = []
    for line in lines[starts[0] + 1:]:
        if not line.startswith("|"):
            break
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if not all(re.fullmatch(r":?-+:?", c) for c in cells):
            rows.append(cells)
    check(len(rows) > 1, f"{path}: no table after '{marker}'")
    return rows


def program_output(args):
    p = subprocess.run([SEISFD, *args], capture_output=True, text=True,
                       timeout=time_limit(60))
    check(p.returncode == 0, f"seisfd {' '.join(args)}: exit {p.returncode}\n{p.stderr}")
    return p.stdout


def physics_per_backend():
    """{backend: set of physics} from the `physics  BACKEND: ...` lines of
    --version, one per backend built in."""
    out = program_output(["--version"])
    found = re.findall(r"^\s*physics\s+(\w+):\s*(.+)$", out, re.M)
    check(found, f"--version names no physics per backend:\n{out}")
    return {backend: {p.strip() for p in names.split(",")} for backend, names in found}


def test_backends_table_matches_the_program(tmp):
    rows = table_after("README.md", BACKENDS_MARKER)
    header, body = rows[0], rows[1:]
    built = physics_per_backend()
    documented = {name: {row[0] for row in body if row[col] == "yes"}
                  for col, name in enumerate(header) if col > 0}
    check(set(built) <= set(documented),
          f"backends built in but not in the README's table: {sorted(set(built) - set(documented))}")
    for backend, physics in built.items():
        check(physics == documented[backend],
              f"{backend}: the README says {sorted(documented[backend])}, "
              f"the program runs {sorted(physics)}")
    unbuilt = sorted(set(documented) - set(built))
    note = f"; not built here, so not compared: {', '.join(unbuilt)}" if unbuilt else ""
    return f"{', '.join(sorted(built))} as the README says{note}"


def bench_usage_options():
    """{option: the values it names (its choices split on |, or its
    range)} from bench --help's option lines (an option too wide for the
    column has its meaning on the lines after it)."""
    out = program_output(["bench", "--help"])
    options = {}
    for line in out.split("\n"):
        m = re.match(r"^  (--[a-z-]+)(?: (\S+))?(?:\s{2,}(.*))?$", line)
        if m:
            options[m.group(1)] = (m.group(2), m.group(3) or "")
        elif options and line.startswith(" " * 10):
            key = list(options)[-1]
            options[key] = (options[key][0], options[key][1] + " " + line.strip())
    check(options, f"bench --help lists no options:\n{out}")
    return options


def words(cell):
    """The backquoted or bare words of a table cell, as a set."""
    return {w.strip("`") for w in re.split(r",\s*|\s+", cell) if w.strip("`")}


def ranges(text):
    """The integer ranges a..b written in text, with or without spaces."""
    return set(re.findall(r"(\d+) ?\.\. ?(\d+)", text))


def test_bench_options_match_the_program(tmp):
    rows = table_after("docs/benchmark.md", BENCH_MARKER)
    documented = {row[0].strip("`"): row for row in rows[1:]}
    program = bench_usage_options()
    check(set(documented) == set(program),
          f"bench options only in the docs: {sorted(set(documented) - set(program))}; "
          f"only in the program: {sorted(set(program) - set(documented))}")
    for option, (value, meaning) in program.items():
        cell = documented[option][1]
        if value and "|" in value:
            check(words(cell) >= set(value.split("|")),
                  f"{option}: the program takes {value}, the docs say {cell}")
        if ranges(meaning):
            check(ranges(meaning) == ranges(cell),
                  f"{option}: the program's range {sorted(ranges(meaning))}, the docs' {cell}")
    return f"{len(program)} options, their choices and ranges as the docs say"


JOB_KEYS = "docs/job-keys.md"


def test_job_keys_reference_is_the_programs(tmp):
    """docs/job-keys.md is what `seisfd help keys` prints from the reader's
    key tables, byte for byte (make docs/job-keys.md writes it)."""
    printed = program_output(["help", "keys"])
    with open(os.path.join(ROOT, JOB_KEYS), encoding="utf-8") as f:
        shipped = f.read()
    check(printed == shipped, f"{JOB_KEYS} differs from `seisfd help keys`: run "
          f"`make docs/job-keys.md` and commit it")
    return f"{JOB_KEYS} is the program's output ({len(shipped.splitlines())} lines)"


def documented_keys():
    """{heading: [keys in order]} of the reference's tables."""
    tables = {}
    heading = None
    with open(os.path.join(ROOT, JOB_KEYS), encoding="utf-8") as f:
        for line in f:
            if line.startswith("## "):
                heading = line[3:].strip()
                tables[heading] = []
            m = re.match(r"^\| `([^`]+)` \|", line)
            if m and heading:
                tables[heading].append(m.group(1))
    return tables


UNKNOWN = "zz_not_a_key"


def keys_told(tmp, text):
    """{path: [keys]}: the keys an unknown key in each mapping of text is
    told it may use, from `seisfd check`'s messages."""
    path = os.path.join(tmp, "job.yaml")
    with open(path, "w") as f:
        f.write(text)
    p = subprocess.run([SEISFD, "check", "job.yaml"], cwd=tmp, capture_output=True, text=True,
                       timeout=time_limit(120))
    check(p.returncode != 0, f"check accepted unknown keys:\n{p.stdout}")
    told = {}
    for where, allowed in re.findall(rf"^job\.yaml:\d+:\d+: ((?:[a-z_.\[\]0-9]+\.)?){UNKNOWN}: unknown "
                                     rf"key(?:, did you mean '[^']*'\?)? \(allowed here: "
                                     rf"([^)]*)\)$", p.stderr, re.M):
        told[where.rstrip(".")] = allowed.split(", ")
    return told, p.stderr


def with_unknown_keys(text, sections, nested):
    """text with UNKNOWN at the top level and in each of sections (added
    where absent), and a mapping {section: (key, [its lines])} added with
    UNKNOWN in it and in its section."""
    out = []
    for line in text.split("\n"):
        out.append(line)
        m = re.match(r"^([a-z_]+):\s*(#.*)?$", line)
        if m and m.group(1) in nested:
            key, items = nested[m.group(1)]
            out.append(f"  {key}:")
            out += [f"    {item}" for item in items + [f"{UNKNOWN}: 1"]]
        if m and (m.group(1) in nested or m.group(1) in sections):
            out.append(f"  {UNKNOWN}: 1")
    text = "\n".join(out).rstrip("\n") + "\n"
    for section in sections:
        if not re.search(rf"^{section}:", text, re.M):
            text += f"{section}:\n  {UNKNOWN}: 1\n"
    return text + f"{UNKNOWN}: 1\n"


def test_every_key_the_reader_takes_is_in_the_reference(tmp):
    """An unknown key in each table-driven mapping is told the keys that
    mapping takes; they are the reference's table for it, in its order (a
    single elastic shot, which takes every output key, and surveys with a
    grid and with a list of shots)."""
    docs = documented_keys()
    with open(os.path.join(ROOT, "configs/elastic-seafloor.yaml"), encoding="utf-8") as f:
        shot = f.read()
    with open(os.path.join(ROOT, "configs/survey.yaml"), encoding="utf-8") as f:
        survey = f.read()
    shot = re.sub(r"^  cpml: .*\n", "", shot, flags=re.M)
    shot = re.sub(r"^(    count: .*)$", rf"\1\n    {UNKNOWN}: 1", shot, count=1, flags=re.M)
    cases = [
        (with_unknown_keys(shot,
                           ["grid", "time", "physics", "source", "run"],
                           {"boundaries": ("cpml", ["xmin: 20"]),
                            "receivers": ("grid", ["origin: [0, 0, 0]", "spacing: [10, 10]",
                                                   "count: [2, 2]"]),
                            "output": ("snapshots", ["path: s.h5", "every: 10"])}),
         {"": "The sections", "grid": "grid", "time": "time",
          "run": "run", "boundaries": "boundaries", "source": "source",
          "boundaries.cpml": "boundaries.cpml, as a mapping of faces",
          "receivers": "receivers", "receivers.line": "receivers.line",
          "receivers.grid": "receivers.grid",
          "output": "output, a single shot", "output.snapshots": "output.snapshots"}),
        (with_unknown_keys(
            re.sub(r"^(    count: .*)$", rf"\1\n    {UNKNOWN}: 1",
                   survey.replace("{shot: 4,", f"{{{UNKNOWN}: 1, shot: 4,"), flags=re.M),
            ["output", "survey"], {}),
         {"output": "output, a survey", "survey": "survey", "survey.grid": "survey.grid",
          "survey.overrides[0]": "survey.overrides[N]"}),
        (re.sub(r"^  grid:.*\n(    .*\n)*", f"  shots:\n    - {{{UNKNOWN}: 1, position: [150, 250, 10]}}\n",
                survey, flags=re.M),
         {"survey.shots[0]": "survey.shots[N]"}),        # The physics section of a physics that takes every key of it
        # (the attenuation keys are an attenuating physics' only).
        (with_unknown_keys(shot.replace("  type: elastic", "  type: visco_acoustic"), ["physics"], {}),
         {"physics": "physics"}),
    ]
    # The source and a survey's shots list the wavelet keys, a table of
    # their own, in place of their row `wavelet`.
    for heading in ["source", "survey.shots[N]", "survey.overrides[N]"]:
        docs[heading] = [k for key in docs[heading]
                         for k in (docs["source: the wavelet keys"] if key == "wavelet" else [key])]
    compared = 0
    for text, expected in cases:
        told, err = keys_told(tmp, text)
        for path, heading in expected.items():
            check(heading in docs, f"{JOB_KEYS} has no table '{heading}'")
            check(path in told, f"no unknown-key message for '{path or 'the top level'}':\n{err}")
            check(told[path] == docs[heading],
                  f"{path or 'the top level'}: the reader takes {told[path]}, {JOB_KEYS} "
                  f"lists {docs[heading]}")
            compared += 1
    return f"{compared} mappings: the reader takes exactly the keys the reference lists"
