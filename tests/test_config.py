"""Bad input: each class of mistake in a job file exits non-zero with a
message naming file:line:column, the key and what is allowed."""
import math
import os
import re

import numpy as np

from testlib import check, run

# A valid job; cases below edit single lines of it, so line numbers are known.
VALID = """\
grid:
  nx: 40
  ny: 40
  nz: 40
  dx: 10
  dy: 10
  dz: 10
time:
  dt: 0.001
  duration: 0.1
model:
  type: homogeneous
  vp: 2000
boundaries:
  cpml: 10
source:
  position: [200, 200, 200]
  frequency: 10
receivers:
  points:
    - [250, 200, 200]
output:
  gather: g.h5
"""


def edit(text, old, new):
    check(old in text, f"test set-up: '{old}' not in the job")
    return text.replace(old, new, 1)


def check_job(tmp, text, ranks=1, name="job.yaml", env=None):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return run(["check", name], ranks=ranks, cwd=tmp, env=env)


def expect_error(tmp, text, *patterns, ranks=1):
    rc, out, err = check_job(tmp, text, ranks=ranks)
    check(rc != 0, f"seisfd accepted the bad job (exit 0):\n{out}")
    for pattern in patterns:
        check(re.search(pattern, err), f"no /{pattern}/ in the error output:\n{err}")
    check("Traceback" not in err and "MPI_ABORT" not in err,
          f"the error is not a clean message:\n{err}")
    return err


def test_valid_job_passes(tmp):
    rc, out, err = check_job(tmp, VALID)
    check(rc == 0, f"the valid job was refused:\n{err}")
    check("is valid" in out, out)


def test_unknown_key(tmp):
    text = edit(VALID, "  dz: 10\n", "  dz: 10\n  colour: blue\n")
    expect_error(tmp, text, r"job\.yaml:8:3: grid\.colour: unknown key \(allowed here: nx, ny, "
                            r"nz, dx, dy, dz, origin\)")


def test_unknown_section(tmp):
    text = VALID + "outputs:\n  x: 1\n"
    expect_error(tmp, text, r"job\.yaml:24:1: outputs: unknown key")


def test_wrong_type(tmp):
    text = edit(VALID, "  dx: 10", "  dx: ten")
    expect_error(tmp, text, r"job\.yaml:5:7: grid\.dx: expected a number, got 'ten'")


def test_quoted_number_is_text(tmp):
    text = edit(VALID, "  nx: 40", '  nx: "40"')
    expect_error(tmp, text, r"job\.yaml:2:7: grid\.nx: expected a whole number")


def test_yaml_tags(tmp):
    """A tag cannot turn text into a number: !!str makes a value text (as
    quotes do); every other tag is refused at its key."""
    expect_error(tmp, edit(VALID, "  nx: 40", "  nx: !!str 41"),
                 r"job\.yaml:2:7: grid\.nx: expected a whole number, got '41' \(text: quoted, "
                 r"or tagged !!str\)")
    for tag, shown in (("!!int", "!!int"), ("!local", "!local"),
                       ("!<tag:yaml.org,2002:float>", "!!float")):
        expect_error(tmp, edit(VALID, "  nx: 40", f"  nx: {tag} 40"),
                     rf"job\.yaml:2:7: grid\.nx: YAML tag '{re.escape(shown)}' is not supported")
    expect_error(tmp, edit(VALID, "  points:", "  points: !!seq"),
                 r"job\.yaml:20:11: receivers\.points: YAML tag '!!seq' is not supported")
    text = edit(VALID, "    - [250, 200, 200]", "    - [250, !!float 200, 200]")
    expect_error(tmp, text, r"job\.yaml:21:13: receivers\.points\[0\]\[1\]: YAML tag '!!float'")
    rc, out, err = check_job(tmp, edit(VALID, "  gather: g.h5", "  gather: !!str g.h5"))
    check(rc == 0, f"!!str on a text value was refused:\n{err}")
    return "!!str is text; !!int, !!float, !!seq, local and verbatim tags refused"


def test_messages_escape_control_characters(tmp):
    """Keys and values are echoed with their control characters and line
    separators escaped: a message stays one line and cannot drive the
    terminal (fuzzing found a U+2028 splitting a message). A top that is not
    a number is reported once, not again as out of order."""
    text = edit(VALID, "  dz: 10\n", '  dz: 10\n  "col\\nour\\e[31m": 1\n')
    text = edit(text, "  type: homogeneous\n  vp: 2000\n",
                "  type: layered\n  layers:\n    - {top: 0, vp: 2000}\n"
                "    - {top: \"35\u2028\", vp: 2600}\n")
    err = expect_error(tmp, text,
                       r"job\.yaml:8:3: grid\.col\\x0aour\\x1b\[31m: unknown key",
                       r"job\.yaml:16:13: model\.layers\[1\]\.top: expected a number, got "
                       r"'35\\u2028' \(text")
    check("\x1b" not in err and "\u2028" not in err and "tops must increase" not in err,
          f"raw control characters or a second message:\n{err!r}")


def test_yaml_aliases_and_nesting(tmp):
    """Aliases are refused at their key; nesting deeper than 32 levels is
    refused rather than read recursively off the stack."""
    text = edit(edit(VALID, "  dx: 10", "  dx: &d 10"), "  dy: 10", "  dy: *d")
    expect_error(tmp, text, r"job\.yaml:6:7: grid\.dy: YAML aliases \(\*name\) are not supported")
    deep = "grid: " + "[" * 200000 + "\n"
    err = expect_error(tmp, deep, r"job\.yaml:1:38: grid(\[0\]){31}: lists and mappings nested "
                                  r"deeper than 32 levels")
    check(err.count("deeper than") == 1 and err.count("seisfd: error") == 1,
          f"one message expected:\n{err}")


def test_wrong_structure(tmp):
    text = edit(VALID, "  position: [200, 200, 200]", "  position: [200, 200]")
    expect_error(tmp, text, r"job\.yaml:17:13: source\.position: expected a list of 3 numbers")


def test_missing_key(tmp):
    text = edit(VALID, "  frequency: 10\n", "")
    expect_error(tmp, text, r"job\.yaml:17:3: source\.frequency: required key is missing")


def test_missing_section(tmp):
    text = edit(VALID, "output:\n  gather: g.h5\n", "")
    expect_error(tmp, text, r"job\.yaml:1:1: output: required key is missing")


def test_out_of_range_value(tmp):
    text = edit(VALID, "  vp: 2000", "  vp: -5")
    expect_error(tmp, text, r"job\.yaml:13:7: model\.vp: -5 is out of range "
                            r"\(allowed: 10 <= x <= 20000\)")


def test_numbers_have_sane_ranges(tmp):
    """Each numeric key has a physical range, reported with the key and
    the allowed range (a frequency of 1e-300 once passed with a delay of
    1.5e300 s); a subnormal number is a number, refused by its range."""
    text = edit(VALID, "  frequency: 10", "  frequency: 1e-300")
    text = edit(text, "  dx: 10", "  dx: 1e-320")
    text = edit(text, "  nz: 40\n", "  nz: 40\n  origin: [0, 1e300, 0]\n")
    text = edit(text, "  duration: 0.1", "  duration: 0.1\n  cfl_safety: 1e-9")
    text = edit(text, "  points:", "  sampling: 1e-300\n  points:")
    text = edit(text, "    - [250, 200, 200]", "    - [250, 200, 2e9]")
    text = text + "run:\n  progress_interval: 1e-300\n"
    expect_error(tmp, text,
                 r"job\.yaml:6:7: grid\.dx: 9\.99989e-321 is out of range \(allowed: 0\.0001 <= x <= "
                 r"100000\)",
                 r"job\.yaml:5:15: grid\.origin\[1\]: 1e\+300 is out of range \(allowed: "
                 r"-1e\+08 <= x <= 1e\+08\)",
                 r"job\.yaml:12:15: time\.cfl_safety: 1e-09 is out of range \(allowed: 0\.01 <= x "
                 r"<= 1\)",
                 r"job\.yaml:20:14: source\.frequency: 1e-300 is out of range \(allowed: 0\.001 <= "
                 r"x <= 1e\+06\)",
                 r"job\.yaml:22:13: receivers\.sampling: 1e-300 is out of range \(allowed: 1e-10 "
                 r"<= x <= 10\)",
                 r"job\.yaml:24:18: receivers\.points\[0\]\[2\]: 2e\+09 is out of range",
                 r"job\.yaml:28:22: run\.progress_interval: 1e-300 is out of range",
                 r"7 problems in job file")
    return "7 keys out of range reported in one run"


def test_unsupported_order(tmp):
    text = edit(VALID, "  vp: 2000\n", "  vp: 2000\nphysics:\n  order: 6\n")
    expect_error(tmp, text, r"job\.yaml:15:10: physics\.order: expected one of 2\|4\|8, got '6'")


def test_several_problems_reported_together(tmp):
    text = edit(edit(VALID, "  dx: 10", "  dx: 0"), "  cpml: 10", "  cpml: many")
    err = expect_error(tmp, text, r"job\.yaml:5:7: grid\.dx", r"job\.yaml:15:9: boundaries\.cpml",
                       r"2 problems in job file")
    check(err.count("seisfd: error") == 1, f"expected one summary line:\n{err}")


def test_problems_of_each_stage_reported_together(tmp):
    """The file's problems come together: positions are checked whenever
    the grid and the section of the position were read cleanly, whatever
    else is wrong. The checks that need the model (here the CFL limit and
    the samples of a trace) come once the file is sound, again together;
    so do those that need the rank count (slabs, memory)."""
    text = edit(VALID, "  gather: g.h5", "  gather: g.h5\n  colour: blue")
    text = edit(text, "  dt: 0.001", "  dt: 0.003")
    text = edit(text, "  position: [200, 200, 200]", "  position: [200, 200, 500]")
    text = edit(text, "    - [250, 200, 200]", "    - [250, 200, 200]\n    - [250, -5, 200]")
    err = expect_error(tmp, text, r"job\.yaml:25:3: output\.colour: unknown key",
                       r"job\.yaml:17:13: source\.position: z = 500 m lies outside the grid",
                       r"job\.yaml:20:3: receivers \(receiver 1\): y = -5 m lies outside the grid",
                       r"3 problems in job file")
    check("CFL" not in err, f"a check of the second stage ran on a bad file:\n{err}")
    text = edit(edit(VALID, "  dt: 0.001", "  dt: 0.003"), "  points:",
                "  sampling: 1e-10\n  points:")
    err = expect_error(tmp, text, r"job\.yaml:9:7: time\.dt: 0\.003 s exceeds the stability",
                       r"job\.yaml:20:13: receivers\.sampling: 1e-10 s over 0\.1 s makes "
                       r"1000000001 samples per trace; at most 100000000 are allowed")
    text = edit(edit(edit(VALID, "  nx: 40", "  nx: 100000"), "  ny: 40", "  ny: 100000"),
                "  nz: 40", "  nz: 10")
    text = edit(edit(edit(text, "  cpml: 10", "  cpml: 2"), "  position: [200, 200, 200]",
                     "  position: [200, 200, 50]"), "    - [250, 200, 200]", "    - [250, 200, 50]")
    err = expect_error(tmp, text, r"job\.yaml:4:7: grid\.nz: 10 planes over 4 ranks gives slabs",
                       r"job\.yaml:2:7: grid\.nx: the job needs about [0-9.e+]+ GiB of memory per "
                       r"rank", ranks=4)
    check("out of memory" not in err, f"an allocation was tried:\n{err}")
    return "3 of the file, 2 with the model, 2 with the rank count"


def test_sizes_refused_before_allocating(tmp):
    """Sizes that pass the ranges of their keys but not together fail as
    file:line:column errors of check, before anything big is allocated: too
    many steps, a grid too large for the memory of the node (once an
    allocation of 2e15 bytes on every rank and an MPI_ABORT banner), too
    many receivers (a 100000 x 100000 grid once took minutes to make) and
    traces too large."""
    text = edit(VALID, "  dt: 0.001", "  dt: 1e-10")
    expect_error(tmp, text, r"job\.yaml:10:13: time\.duration: 0\.1 s at dt = 1e-10 s makes "
                            r"1000000008 time steps; at most 100000000 are allowed \(a shorter "
                            r"record, or a larger dt\); the count includes the steps past the "
                            r"record's end",
                 r"receivers\.sampling: 1e-10 s over 0\.1 s makes 1000000001 samples per "
                 r"trace; at most 100000000 are allowed")
    # nt within its range, and the steps the correction needs past it.
    text = edit(edit(VALID, "  duration: 0.1", "  nt: 100000000"),
                "  dt: 0.001", "  dt: 0.0001")
    expect_error(tmp, text, r"job\.yaml:10:7: time\.nt: 100000000 steps make 100000008 time "
                            r"steps; at most 100000000 are allowed \(fewer steps\); the count "
                            r"includes the steps past the record's end")
    big = edit(edit(edit(VALID, "  nx: 40", "  nx: 100000"), "  ny: 40", "  ny: 100000"),
               "  nz: 40", "  nz: 100000")
    err = expect_error(tmp, big, r"job\.yaml:2:7: grid\.nx: the job needs about [0-9.e+]+ GiB of "
                                 r"memory per rank \(model [0-9.e+]+, wavefields and halos "
                                 r"[0-9.e+]+, CPML [0-9.e+]+, receivers and traces [0-9.e+-]+ GiB\), "
                                 r"but rank \d+ on host \S+ has [0-9.e+]+ GiB \(the memory "
                                 r"available there shared by its 2 ranks\); use more ranks",
                       ranks=2)
    check(err.count("needs about") == 1 and "out of memory" not in err, f"not one message:\n{err}")
    grid = edit(VALID, "  points:", "  grid: {origin: [0, 0, 20], spacing: [1, 1], "
                                    "count: [100000, 100000]}\n  points:")
    expect_error(tmp, grid, r"job\.yaml:20:54: receivers\.grid\.count: 10000000000 receivers, with "
                            r"the 1 listed before, are more than the 10000000 a job may have")
    traces = edit(edit(VALID, "  duration: 0.1", "  nt: 1000000"), "  points:",
                  "  grid: {origin: [0, 0, 20], spacing: [0.1, 0.1], count: [1000, 1000]}\n"
                  "  points:")
    expect_error(tmp, traces, r"job\.yaml:20:3: receivers: the job needs about [0-9.e+]+ GiB .* "
                              r"receivers and traces [0-9.e+]+ GiB.*record fewer receivers or "
                              r"samples")
    rc, out, err = run(["bench", "--size", "100000", "--steps", "2", "--copy-mib", "1"], cwd=tmp)
    check(rc != 0 and re.search(r"^bench: grid\.nx: the job needs about", err, re.M)
          and "MPI_ABORT" not in err, f"bench with a grid too large (exit {rc}):\n{err}")
    return "steps, grid memory, receiver count, trace memory, a benchmark's grid"


def test_gpu_aware_mpi_key_and_variable(tmp):
    """run.gpu_aware_mpi takes auto, on or off, at its line; the variable
    that job scripts set overrides it, and a bad value of the variable is
    one error naming it. The set-up says which halo path each rank takes
    and why (here the CPU's host memory, whatever the setting)."""
    text = VALID + "run:\n  device: cpu\n  gpu_aware_mpi: maybe\n"
    expect_error(tmp, text, r"job\.yaml:26:18: run\.gpu_aware_mpi: expected one of auto\|on\|off, "
                            r"got 'maybe'")
    text = VALID + "run:\n  device: cpu\n  gpu_aware_mpi: on\n"
    rc, out, err = check_job(tmp, text, ranks=2, env={"SEISFD_GPU_AWARE_MPI": "sometimes"})
    check(rc != 0 and "SEISFD_GPU_AWARE_MPI: expected auto, on or off, got 'sometimes'" in err
          and err.count("seisfd: error") == 1, f"bad variable (exit {rc}):\n{err}")
    rc, out, err = check_job(tmp, text, ranks=2)
    check(rc == 0 and re.search(r"halo buffers +host memory, by rank:\n +ranks 0-1: host memory: "
                                r"the CPU backend", out), f"the halo path of the set-up:\n{out}")
    return "the key at its line, the variable named, the halo path stated"


def test_receiver_outside_grid(tmp):
    text = edit(VALID, "    - [250, 200, 200]", "    - [250, 200, 200]\n    - [450, 200, 200]")
    expect_error(tmp, text, r"job\.yaml:20:3: receivers \(receiver 1\): x = 450 m lies outside "
                            r"the grid \(allowed: 0 <= x <= 390 m\)")


def test_source_outside_grid(tmp):
    text = edit(VALID, "  position: [200, 200, 200]", "  position: [200, 200, -1]")
    expect_error(tmp, text, r"job\.yaml:17:13: source\.position: z = -1 m lies outside the grid")


def test_cpml_leaves_no_interior(tmp):
    text = edit(VALID, "  cpml: 10", "  cpml: {xmin: 20, xmax: 20}")
    expect_error(tmp, text, r"job\.yaml:15:9: boundaries\.cpml: xmin \+ xmax = 40 points leave "
                            r"no interior in nx = 40; the order-8 stencil needs 4 "
                            r"\(allowed: xmin \+ xmax <= 36\)")


def test_cpml_leaves_interior_thinner_than_stencil(tmp):
    """Fewer interior points than the stencil's radius would put points of
    one layer within the other layer's reach."""
    text = edit(VALID, "  cpml: 10", "  cpml: {zmin: 20, zmax: 18}")
    expect_error(tmp, text, r"job\.yaml:15:9: boundaries\.cpml: zmin \+ zmax = 38 points leave "
                            r"2 interior points in nz = 40; the order-8 stencil needs 4")


def test_slab_thinner_than_stencil(tmp):
    text = edit(VALID, "  nz: 40", "  nz: 10")
    text = edit(text, "  position: [200, 200, 200]", "  position: [200, 200, 50]")
    text = edit(text, "    - [250, 200, 200]", "    - [250, 200, 50]")
    text = edit(text, "  cpml: 10", "  cpml: 2")
    expect_error(tmp, text, r"job\.yaml:4:7: grid\.nz: 10 planes over 4 ranks gives slabs of 2 "
                            r"planes; every slab needs at least 4 planes .* at most 2 ranks",
                 ranks=4)


def test_dt_above_cfl(tmp):
    text = edit(VALID, "  dt: 0.001", "  dt: 0.003")
    err = expect_error(tmp, text, r"job\.yaml:9:7: time\.dt: 0\.003 s exceeds the stability "
                                  r"\(CFL\) limit")
    limit = 2.0 / (2000 * math.sqrt(3 * (205 / 72 + 2 * (8 / 5 + 1 / 5 + 8 / 315 + 1 / 560)) / 100))
    m = re.search(r"largest stable dt is ([0-9.e-]+) s \(allowed: 0 < dt <= ([0-9.e-]+)\)", err)
    check(m, f"no largest stable dt in:\n{err}")
    shown = float(m.group(1))
    check(shown <= limit and limit - shown < 1e-5 * limit,
          f"reported limit {m.group(1)}, expected {limit:.9g} rounded down")


def test_dt_auto_respects_cfl(tmp):
    rc, out, err = check_job(tmp, edit(VALID, "  dt: 0.001", "  dt: auto"))
    check(rc == 0, err)
    m = re.search(r"dt = ([0-9.e-]+) s = ([0-9.]+) of the CFL limit", out)
    check(m and abs(float(m.group(2)) - 0.8) < 1e-3, f"auto dt is not 0.8 of the limit:\n{out}")


def test_nt_and_duration_together(tmp):
    text = edit(VALID, "  duration: 0.1", "  duration: 0.1\n  nt: 100")
    expect_error(tmp, text, r"job\.yaml:10:13: time\.duration: give either nt or duration")


def test_yaml_syntax_error(tmp):
    text = edit(VALID, "  dy: 10", "  dy: [10")
    expect_error(tmp, text, r"job\.yaml:\d+:\d+: YAML syntax error")


# Common slips, with the line:column of the mistake (libyaml notices most
# of them at the next token, often on the next line) and what is said.
SYNTAX_SLIPS = [
    ("  ny: 40", "  ny 40", "3:3", r"a key needs ': ' \(a colon and a space\) after it \(libyaml: "
     r"could not find expected ':' while scanning a simple key, noticed at line 4, column 3\)"),
    ("  ny: 40", "  ny:40", "3:3", r"a key needs ': '"),
    ("  ny: 40", "   ny: 40", "3:6", r"': ' inside a value \(quote the value\), or a key indented "
     r"deeper than the one before it"),
    ("  vp: 2000", " vp: 2000", "13:2", r"this line is indented unlike the keys of its section"),
    ("  position: [200, 200, 200]", "  position: [200, 200, 200", "17:13",
     r"the '\[' here is not closed with '\]' \(libyaml: did not find expected ',' or '\]' while "
     r"parsing a flow sequence, noticed at line 18, column 12\)"),
    ("  cpml: 10", "  cpml: {xmin: 10", "15:9", r"the '\{' here is not closed with '\}'"),
    ("  type: homogeneous", "  type: 'homogeneous", "12:9",
     r"the quoted text that starts here is not closed \(libyaml: found unexpected end of stream "
     r"while scanning a quoted scalar, noticed at line 24, column 1\)"),
    ("  gather: g.h5", '  gather: "g.h5', "23:11",
     r"the quoted text that starts here is not closed"),
    ("  ny: 40", "\tny: 40", "3:1", r"a tab character: YAML indents with spaces only"),
    ("    - [250, 200, 200]", "\t- [250, 200, 200]", "21:1", r"a tab character"),
]


def test_yaml_syntax_errors_point_at_the_mistake(tmp):
    """A missing colon, a key indented wrongly, a bracket or quote left
    open and a tab are reported at the line of the mistake, in words, with
    libyaml's own account."""
    for old, new, at, message in SYNTAX_SLIPS:
        err = expect_error(tmp, edit(VALID, old, new),
                           rf"job\.yaml:{at}: YAML syntax error: {message}")
        check(err.count("YAML syntax error") == 1, f"one message expected:\n{err}")
    return f"{len(SYNTAX_SLIPS)} slips, each at its line"


def test_misspelt_keys_get_a_suggestion(tmp):
    """An unknown key a few edits from a key of its section is told that
    key (a swap of neighbours is one edit, case aside); a key near none, or
    too short to tell ('nq' is as near ny as nz), is not. Values of a
    choice are told the nearest choice."""
    text = edit(VALID, "  frequency: 10", "  frequncy: 10")
    text = edit(text, "  nz: 40\n", "  nz: 40\n  orgin: [0, 0, 0]\n  nq: 3\n  colour: blue\n")
    text = edit(text, "  cpml: 10", "  cmpl: 10")
    text = edit(text, "output:", "outputs:")
    text = edit(text, "  type: homogeneous", "  type: Homogenous")
    err = expect_error(tmp, text,
                       r"job\.yaml:5:3: grid\.orgin: unknown key, did you mean 'origin'\? "
                       r"\(allowed here: nx, ny, nz, dx, dy, dz, origin\)",
                       r"job\.yaml:6:3: grid\.nq: unknown key \(allowed here",
                       r"job\.yaml:7:3: grid\.colour: unknown key \(allowed here",
                       r"job\.yaml:15:9: model\.type: expected one of homogeneous\|layered\|raw\|"
                       r"hdf5\|segy, got 'Homogenous'; did you mean 'homogeneous'\?",
                       r"job\.yaml:18:3: boundaries\.cmpl: unknown key, did you mean 'cpml'\?",
                       r"job\.yaml:21:3: source\.frequncy: unknown key, did you mean 'frequency'\?",
                       r"job\.yaml:25:1: outputs: unknown key, did you mean 'output'\?")
    check(err.count("did you mean") == 5, f"suggestions beyond the misspelt keys:\n{err}")
    return "4 keys and a value told the nearest; 2 keys told none"


def test_duplicate_key(tmp):
    text = edit(VALID, "  dy: 10", "  dy: 10\n  dy: 12")
    expect_error(tmp, text, r"job\.yaml:7:3: duplicate key 'dy' \(first given at line 6\)")


def test_missing_job_file(tmp):
    rc, out, err = run(["check", "nowhere.yaml"], cwd=tmp)
    check(rc != 0 and "cannot read the job file 'nowhere.yaml': No such file" in err, err)


def test_job_file_not_a_regular_file(tmp):
    """A directory or a FIFO given as the job file is refused by what it
    is (a directory once asked for 2^63 bytes; a FIFO would block)."""
    os.mkdir(os.path.join(tmp, "jobdir"))
    os.mkfifo(os.path.join(tmp, "jobfifo"))
    for name, what in (("jobdir", "a directory, not a file"),
                       ("jobfifo", r"a FIFO \(named pipe\), not a regular file")):
        for ranks in (1, 2):
            rc, out, err = run(["check", name], ranks=ranks, cwd=tmp, timeout=30)
            check(rc != 0 and re.search(rf"seisfd: error: cannot read the job file '{name}': "
                                        rf"{what}", err), f"{name} on {ranks} ranks:\n{err}")
            check(err.count("seisfd: error") == 1 and "MPI_ABORT" not in err
                  and "out of memory" not in err, f"{name}: not one clean error:\n{err}")
    return "a directory and a FIFO, on 1 and 2 ranks"


def test_dispersion_warning(tmp):
    text = edit(VALID, "  frequency: 10", "  frequency: 30")
    rc, out, err = check_job(tmp, text)
    check(rc == 0, f"a dispersion warning must not stop the job:\n{err}")
    check(re.search(r"warning: job\.yaml:18:14: source\.frequency: 2\.67 points per minimum "
                    r"wavelength \(vp_min 2000 m/s, upper frequency 75 Hz", err),
          f"no dispersion warning naming the numbers:\n{err}")


def write_raw(path, values, dtype="<f4"):
    np.asarray(values, dtype=dtype).tofile(path)


def raw_job(path):
    return edit(VALID, "  type: homogeneous\n  vp: 2000\n",
                f"  type: raw\n  path: {path}\n  dims: [40, 40, 40]\n")


def test_raw_model_missing_file(tmp):
    expect_error(tmp, raw_job("absent.bin"),
                 r"job\.yaml:13:9: model\.path: cannot read 'absent\.bin': No such file")


def test_raw_model_wrong_size(tmp):
    write_raw(os.path.join(tmp, "short.bin"), np.full(40 * 40 * 39, 2000.0))
    expect_error(tmp, raw_job("short.bin"), r"model\.path: 'short\.bin' holds 249600 bytes, but "
                                            r"dims 40 x 40 x 40 of float32 need 256000")


def test_raw_model_nan_and_negative(tmp):
    v = np.full((40, 40, 40), 2000.0)
    v[25, 3, 7] = np.nan
    v[31, 0, 0] = -1.0
    write_raw(os.path.join(tmp, "bad.bin"), v)
    expect_error(tmp, raw_job("bad.bin"), r"model file 'bad\.bin': vp at index \(i=7, j=3, "
                                          r"k=25\) is nan", ranks=3)
    v[25, 3, 7] = 2000.0
    write_raw(os.path.join(tmp, "bad.bin"), v)
    expect_error(tmp, raw_job("bad.bin"), r"vp at index \(i=0, j=0, k=31\) is -1; velocities must "
                                          r"be finite and within 100\.\.15000 m/s "
                                          r"\(model\.vp_range\)", ranks=2)


# An elastic job; cases below edit single lines of it.
ELASTIC = """\
physics:
  type: elastic
grid:
  nx: 40
  ny: 40
  nz: 40
  dx: 10
  dy: 10
  dz: 10
time:
  dt: 0.001
  duration: 0.1
model:
  type: homogeneous
  vp: 2000
  vs: 1000
  rho: 2000
boundaries:
  cpml: 10
source:
  type: force
  direction: [0, 0, 1]
  position: [200, 200, 200]
  frequency: 10
receivers:
  components: [vx, vz, p]
  points:
    - [250, 200, 200]
output:
  gather: g.h5
"""


def test_elastic_job_passes_with_its_cfl_limit(tmp):
    """The elastic CFL limit is 2 / (vp_max * |staggered symbol| * sqrt(sum 1/h^2)),
    the symbol 2 sum |s_m| = 2.5726 at order 8; dispersion counts vs."""
    rc, out, err = check_job(tmp, edit(ELASTIC, "  dt: 0.001", "  dt: auto"))
    check(rc == 0, f"the elastic job was refused:\n{err}")
    symbol = 2 * (1225 / 1024 + 245 / 3072 + 49 / 5120 + 5 / 7168)
    limit = 2.0 / (2000 * symbol * math.sqrt(3) / 10)
    m = re.search(r"dt = ([0-9.e-]+) s = ([0-9.]+) of the CFL limit ([0-9.e-]+) s", out)
    check(m and abs(float(m.group(3)) / limit - 1) < 1e-5 and abs(float(m.group(2)) - 0.8) < 1e-3,
          f"the elastic CFL limit is not {limit:.6g} s:\n{out}")
    for text in ("seisfd: elastic, order 8", "vs 1000 .. 1000 m/s, rho 2000 .. 2000 kg/m^3",
                 "points per minimum wavelength (vs_min", "force (0, 0, 1) N",
                 "components vx vz p"):
        check(text in out, f"'{text}' missing from the summary:\n{out}")


def test_elastic_dt_above_cfl(tmp):
    expect_error(tmp, edit(ELASTIC, "  dt: 0.001", "  dt: 0.003"),
                 r"job\.yaml:11:7: time\.dt: 0\.003 s exceeds the stability \(CFL\) limit for "
                 r"vp_max = 2000 m/s.*largest stable dt is 0\.00224")


def test_elastic_dispersion_warning_names_vs(tmp):
    rc, out, err = check_job(tmp, edit(ELASTIC, "  frequency: 10", "  frequency: 20"))
    check(rc == 0, err)
    check(re.search(r"warning: job\.yaml:24:14: source\.frequency: 2 points per minimum "
                    r"wavelength \(vs_min 1000 m/s", err), f"no dispersion warning on vs:\n{err}")


def test_elastic_keys_on_an_acoustic_job(tmp):
    text = edit(VALID, "  vp: 2000\n", "  vp: 2000\n  vs: 1000\n")
    text = edit(text, "  frequency: 10\n", "  frequency: 10\n  type: force\n")
    text = edit(text, "  points:\n", "  components: [vx, p]\n  points:\n")
    text = edit(text, "  gather: g.h5\n", "  gather: g.h5\n  energy: e.csv\n")
    expect_error(tmp, text,
                 r"job\.yaml:14:7: model\.vs: only an elastic or visco_elastic job takes this key "
                 r"\(physics\.type: elastic or visco_elastic\); this job is acoustic",
                 r"job\.yaml:20:9: source\.type: force sources need physics\.type: elastic",
                 r"job\.yaml:22:16: receivers\.components: an acoustic job has pressure \(p\) "
                 r"only",
                 r"job\.yaml:27:11: output\.energy: only an elastic job takes this key")


def test_elastic_parameters_missing_or_inconsistent(tmp):
    text = edit(ELASTIC, "  rho: 2000\n", "")
    expect_error(tmp, text, r"job\.yaml:14:3: model\.rho: required key is missing \(physics: "
                            r"elastic needs vp, vs and rho\)")
    text = edit(ELASTIC, "  vs: 1000", "  vs: 1800")
    expect_error(tmp, text, r"job\.yaml:16:7: model\.vs: vs = 1800 m/s is not below 0\.8660 vp = 1732\.05 "
                            r"m/s \(vp = 2000 m/s\): an isotropic solid")
    text = edit(ELASTIC, "  type: homogeneous\n  vp: 2000\n  vs: 1000\n  rho: 2000\n",
                "  type: layered\n  layers:\n    - {top: 0, vp: 1500, vs: 0}\n")
    expect_error(tmp, text, r"job\.yaml:16:7: model\.layers\[0\]\.rho: required key is missing")


def test_elastic_source_keys(tmp):
    expect_error(tmp, edit(ELASTIC, "  direction: [0, 0, 1]\n", ""),
                 r"job\.yaml:21:3: source\.direction: required key is missing")
    expect_error(tmp, edit(ELASTIC, "  direction: [0, 0, 1]", "  direction: [0, 0, 0]"),
                 r"job\.yaml:22:14: source\.direction: all components are zero")
    expect_error(tmp, edit(ELASTIC, "  type: force", "  type: moment"),
                 r"job\.yaml:22:14: source\.direction: only for source\.type: force",
                 r"job\.yaml:21:3: source\.moment: required key is missing")
    expect_error(tmp, edit(ELASTIC, "  type: force", "  type: pressure"),
                 r"job\.yaml:21:9: source\.type: pressure sources need physics\.type: acoustic, vti, "
                 r"tti or visco_acoustic \(an elastic job takes explosive, force or moment\)")
    text = edit(edit(ELASTIC, "  type: force", "  type: moment"), "  direction: [0, 0, 1]",
                "  moment: [1, 1, 1, 0, 0]")
    expect_error(tmp, text, r"job\.yaml:22:11: source\.moment: expected a list of 6 numbers")


def test_elastic_receiver_components(tmp):
    expect_error(tmp, edit(ELASTIC, "  components: [vx, vz, p]", "  components: [vx, vw, vx]"),
                 r"job\.yaml:26:20: receivers\.components: expected one of vx, vy, vz, p, got 'vw'",
                 r"job\.yaml:26:24: receivers\.components: 'vx' is listed twice")


def test_elastic_model_file_keys(tmp):
    raw = edit(ELASTIC, "  type: homogeneous\n  vp: 2000\n  vs: 1000\n  rho: 2000\n",
               "  type: raw\n  path: vp.bin\n  dims: [40, 40, 40]\n")
    expect_error(tmp, raw, r"job\.yaml:15:9: model\.path: an elastic model in raw or SEG-Y files "
                           r"has one file per parameter: give model\.paths: \{vp: FILE, vs: FILE, "
                           r"rho: FILE\}",
                 r"job\.yaml:14:3: model\.paths: required key is missing")
    h5 = edit(ELASTIC, "  type: homogeneous\n  vp: 2000\n  vs: 1000\n  rho: 2000\n",
              "  type: hdf5\n  path: m.h5\n  dataset: vp\n")
    expect_error(tmp, h5, r"job\.yaml:16:12: model\.dataset: an elastic model reads one dataset "
                          r"per parameter: give model\.datasets")
    acoustic = edit(VALID, "  type: homogeneous\n  vp: 2000\n",
                    "  type: raw\n  paths: {vp: a.bin}\n  dims: [40, 40, 40]\n  vs_range: [0, 1]\n")
    expect_error(tmp, acoustic, r"job\.yaml:13:10: model\.paths: only an elastic, vti, tti, visco_acoustic or "
                                r"visco_elastic job takes this key",
                 r"job\.yaml:15:13: model\.vs_range: only an elastic or visco_elastic job takes this key",
                 r"job\.yaml:12:3: model\.path: required key is missing")


# A valid survey (two shots, one rank a shot); cases below edit its lines.
SURVEY = """\
grid:
  nx: 40
  ny: 40
  nz: 40
  dx: 10
  dy: 10
  dz: 10
time:
  dt: 0.001
  duration: 0.1
model:
  type: homogeneous
  vp: 2000
boundaries:
  cpml: 10
source:
  frequency: 10
receivers:
  points:
    - [250, 200, 200]
survey:
  ranks_per_shot: 1
  shots:
    - {position: [200, 200, 200]}
    - {position: [150, 200], depth: 100, amplitude: 2}
output:
  directory: out
"""


def test_survey_valid_prints_its_summary(tmp):
    rc, out, err = check_job(tmp, SURVEY, ranks=2)
    check(rc == 0, f"the valid survey was refused:\n{err}")
    for text in ("survey            2 shots, receivers fixed, 2 groups of 1 rank",
                 "out/shot_0001.h5 .. shot_0002.h5", "job hash", "instability check every 100 "
                 "steps", "restart           no manifest yet: all 2 shots to compute", "is valid"):
        check(text in out, f"'{text}' missing from the summary:\n{out}")
    check(not os.path.exists(os.path.join(tmp, "out")), "check created the output directory")


def test_survey_manifest_not_a_regular_file(tmp):
    os.makedirs(os.path.join(tmp, "out", "manifest.jsonl"))
    # The output checks come first and name it as an output's path.
    expect_error(tmp, SURVEY, r"job\.yaml:27:14: output\.directory: 'out/manifest\.jsonl' is a "
                              r"directory, which an output cannot replace")


def test_survey_ranks_per_shot_must_divide_the_ranks(tmp):
    expect_error(tmp, edit(SURVEY, "  ranks_per_shot: 1", "  ranks_per_shot: 3"),
                 r"job\.yaml:22:19: survey\.ranks_per_shot: 3 does not divide the 2 ranks of "
                 r"this run into equal groups \(allowed: 1, 2\)", ranks=2)


def test_survey_shots_and_grid_exclusive(tmp):
    text = edit(SURVEY, "  shots:\n", "  grid: {start: [100, 100, 100], step: [50, 50], "
                "count: [2, 2]}\n  shots:\n")
    expect_error(tmp, text, r"job\.yaml:23:9: survey\.grid: give the shots either as a list "
                            r"\(shots\) or as a grid, not both")
    expect_error(tmp, edit(SURVEY, "  shots:\n    - {position: [200, 200, 200]}\n"
                           "    - {position: [150, 200], depth: 100, amplitude: 2}\n", ""),
                 r"job\.yaml:22:3: survey: give the shots, as a list \(shots\) or as a grid")


def test_survey_shot_entries(tmp):
    text = edit(SURVEY, "[150, 200], depth: 100", "[150, 200]")
    text = edit(text, "    - {position: [200, 200, 200]}",
                "    - {position: [200, 200, 200], depth: 5, colour: red}")
    expect_error(tmp, text,
                 r"job\.yaml:24:18: survey\.shots\[0\]\.position: gives z and the entry gives "
                 r"depth too",
                 r"job\.yaml:24:45: survey\.shots\[0\]\.colour: unknown key \(allowed here: "
                 r"position, depth, wavelet, frequency, frequencies, sweep_length, sweep_taper, "
                 r"length, file, dataset, trace, format, delay, amplitude\)",
                 r"job\.yaml:25:18: survey\.shots\[1\]\.position: \[x, y\] needs depth")
    text = SURVEY + "  overrides:\n    - {shot: 3, amplitude: 1}\n"
    text = edit(text, "output:\n  directory: out\n", "") + "output:\n  directory: out\n"
    expect_error(tmp, text, r"job\.yaml:\d+:\d+: survey\.overrides\[0\]\.shot: 3 is out of range "
                            r"\(allowed: 1 \.\. 2\)")


def test_survey_shot_outside_the_grid(tmp):
    expect_error(tmp, edit(SURVEY, "[200, 200, 200]}", "[500, 200, 200]}"),
                 r"job\.yaml:24:7: survey\.shots\[0\]: shot 1 at \(500, 200, 200\) m: x = 500 m "
                 r"lies outside the grid \(allowed: 0 <= x <= 390 m\)")
    grid = edit(SURVEY, "  shots:\n    - {position: [200, 200, 200]}\n"
                "    - {position: [150, 200], depth: 100, amplitude: 2}\n",
                "  grid: {start: [300, 200, 100], step: [50, 50], count: [3, 1]}\n")
    expect_error(tmp, grid, r"job\.yaml:23:9: survey\.grid: shot 3 at \(400, 200, 100\) m: x = 400 m "
                            r"lies outside the grid")


def test_survey_moving_receivers_outside_the_grid(tmp):
    text = edit(SURVEY, "  ranks_per_shot: 1\n", "  ranks_per_shot: 1\n  receivers: moving\n")
    text = edit(text, "    - [250, 200, 200]", "    - [0, 0, 200]\n    - [210, 0, 50]")
    expect_error(tmp, text,
                 r"job\.yaml:19:3: receivers: shot 1 \(survey\.shots\[0\]\): receiver 1 at "
                 r"\(410, 200, 50\) m \(moving with the shot\): x = 410 m lies outside the grid")


def test_survey_geometry_of_many_shots(tmp):
    """Moving receivers are checked through their box: 90000 shots of
    100000 receivers each once took minutes of check (a pass over every
    receiver of every shot). Past 10 shots outside, the rest are counted
    in one line."""
    text = edit(SURVEY, "  ranks_per_shot: 1\n", "  ranks_per_shot: 1\n  receivers: moving\n")
    text = edit(text, "  points:\n    - [250, 200, 200]",
                "  line: {start: [-20, 0, 50], end: [20, 0, 50], count: 100000}")
    text = edit(text, "  shots:\n    - {position: [200, 200, 200]}\n"
                "    - {position: [150, 200], depth: 100, amplitude: 2}\n",
                "  grid: {start: [50, 50, 100], step: [0.5, 0.5], count: [300, 300]}\n")
    path = os.path.join(tmp, "job.yaml")
    with open(path, "w") as f:
        f.write(text)
    # Every shot lies inside with its receivers; what check refuses is the
    # room their 90000 gathers would take (terabytes), and it says so alone.
    rc, out, err = run(["check", "job.yaml"], cwd=tmp, timeout=40)
    refusal = re.search(r"job\.yaml:\d+:\d+: output\.directory: the 90000 shots to compute "
                        r"need [\d.e+]+ MiB in 'out', but its file system has ([\d.e+]+) MiB "
                        r"free", err)
    check(rc != 0 and refusal and len(re.findall(r"^job\.yaml:", err, re.M)) == 1,
          f"not the free-space refusal alone:\n{err}")
    # In MiB as labelled (a MB is 5% less): within what others write meanwhile.
    fs = os.statvfs(tmp)
    mib = fs.f_bavail * fs.f_frsize / 1048576
    check(abs(float(refusal.group(1)) / mib - 1) < 0.01,
          f"{refusal.group(1)} MiB free said, {mib:.4g} MiB free")
    text = edit(text, "count: [300, 300]", "count: [700, 300]")
    err = expect_error(tmp, text, r"job\.yaml:19:3: receivers: shot 642 \(survey\.grid\): "
                                  r"receiver 98750 at \(390\.000395, 50, 50\) m \(moving with "
                                  r"the shot\): x = 390\.000395 m lies outside the grid",
                       r"job\.yaml:21:3: survey: 17690 more shots lie outside the grid or have "
                       r"receivers outside it \(the first 10 are named above\)",
                       r"17700 problems in job file")
    check(err.count("moving with the shot") == 10, f"not 10 shots named:\n{err}")


def test_survey_refuses_single_shot_keys(tmp):
    text = edit(SURVEY, "  frequency: 10\n", "  frequency: 10\n  position: [1, 2, 3]\n")
    text = edit(text, "  directory: out\n", "  directory: out\n  gather: g.h5\n"
                "  snapshots: {path: s.h5, every: 5}\n")
    expect_error(tmp, text,
                 r"job\.yaml:18:13: source\.position: a survey places each shot in "
                 r"survey\.shots or survey\.grid",
                 r"job\.yaml:29:11: output\.gather: a survey names each shot's gather "
                 r"shot_NNNN\.h5 in output\.directory",
                 r"job\.yaml:30:14: output\.snapshots: snapshots are for single-shot jobs")
    expect_error(tmp, VALID + "  directory: out\n",
                 r"job\.yaml:24:14: output\.directory: only a survey \(a survey: section\) "
                 r"writes into a directory")
    expect_error(tmp, edit(VALID, "output:\n", "run:\n  check_every: -1\noutput:\n"),
                 r"job\.yaml:23:16: run\.check_every: -1 is out of range \(allowed: 0 \.\. "
                 r"100000000\)")
