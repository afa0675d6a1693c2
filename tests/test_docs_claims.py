"""What the docs say the program can do is what the program says of itself
(docs/testing.md, "The documentation"): the README's table of physics per
backend against `seisfd --version`, and docs/benchmark.md's table of bench
options against `seisfd bench --help`, which prints the parser's own table."""
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
    range)} from bench --help's option lines."""
    out = program_output(["bench", "--help"])
    options = {}
    for line in out.split("\n"):
        m = re.match(r"^  (--[a-z-]+)(?: (\S+))?\s{2,}(.*)$", line)
        if m:
            options[m.group(1)] = (m.group(2), "")
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
