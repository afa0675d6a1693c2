"""A physics is one line of include/sf_physics_list.h and its folder
(docs/development.md, "One driver, physics as plug-ins"): generic code
names no particular physics, an unknown physics is one clear error, and
the job reader's and bench's choices come from the list."""
import os
import re
import subprocess

from testlib import BIN_DIR, ROOT, SEISFD, check, run, time_limit

LIST = "include/sf_physics_list.h"
REGISTRY = "src/physics_registry.c"   # its table of plug-ins, from the list
# The generic sources; tests/ may name physics freely.
GENERIC_TREES = ("src", "io", "halo", "include")
SOURCE_SUFFIXES = (".c", ".h", ".cu")
# Prose of messages that names a physics as a fact, not a choice: each
# stays allowed only while its file says it (so this list cannot rot).
ALLOWED_MENTIONS = {
    # the measurement the staging warning cites (docs/performance.md)
    "halo/gpu_aware_mpi.c": ["a 1000^3 acoustic step (no CPML)"],
}


def listed_tags():
    """The SF_PHYSICS_<TAG> of each X(TAG, getter) line of the list."""
    with open(os.path.join(ROOT, LIST)) as f:
        text = f.read()
    body = text[text.index("#define SF_PHYSICS_LIST(X)"):].split("\n\n")[0]
    tags = re.findall(r"X\((\w+),\s*\w+\)", body)
    check(tags, f"{LIST}: no X(TAG, getter) lines")
    return tags


def physics_names():
    """The names the program takes, as bench --help lists them."""
    p = subprocess.run([SEISFD, "bench", "--help"], capture_output=True, text=True,
                       timeout=time_limit(60))
    m = re.search(r"--physics (\S+)", p.stdout)
    check(p.returncode == 0 and m, f"bench --help lists no --physics:\n{p.stdout}{p.stderr}")
    return m.group(1).split("|")


def code_without_comments(text):
    """text with its comments blanked (lines kept), strings and character
    constants left whole."""
    pattern = re.compile(r'/\*.*?\*/|//[^\n]*|"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'', re.S)

    def blank(m):
        s = m.group(0)
        return "\n" * s.count("\n") if s.startswith("/") else s
    return pattern.sub(blank, text)


def generic_sources():
    """(relative path, text) of every C and CUDA source outside the
    physics' folders, the physics' kernel files (those of src/backends
    named after a folder of src/physics) and the list."""
    folders = set(os.listdir(os.path.join(ROOT, "src", "physics")))
    for tree in GENERIC_TREES:
        for dirpath, _, files in os.walk(os.path.join(ROOT, tree)):
            rel_dir = os.path.relpath(dirpath, ROOT)
            if rel_dir.split(os.sep)[:2] == ["src", "physics"]:
                continue
            for name in sorted(files):
                stem, suffix = os.path.splitext(name)
                path = os.path.join(rel_dir, name)
                if suffix not in SOURCE_SUFFIXES or path == LIST:
                    continue
                if rel_dir.split(os.sep)[:2] == ["src", "backends"] and stem in folders:
                    continue
                with open(os.path.join(ROOT, path), encoding="utf-8") as f:
                    yield path, f.read()


def test_generic_code_names_no_physics(tmp):
    """Outside the list, the physics' folders and their kernel files, no
    C or CUDA source holds an SF_PHYSICS_<TAG> of a particular physics, a
    table with a row per physics (but the registry's) or a string that
    names a physics: generic code asks the registry."""
    tags, names = listed_tags(), physics_names()
    check(len(tags) == len(names), f"{LIST} lists {tags}, the program takes {names}")
    # A particular physics' index, or a table with a row per physics.
    tag_pattern = re.compile(r"\bSF_PHYSICS_(?:%s)\b|\[\s*SF_PHYSICS_KINDS\s*\]" % "|".join(tags))
    name_pattern = re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, names)), re.I)
    found, scanned = [], []
    for path, text in generic_sources():
        scanned.append(path)
        allowed = ALLOWED_MENTIONS.get(path, [])
        for phrase in allowed:
            check(phrase in text, f"{path} no longer says '{phrase}': drop it from "
                  f"ALLOWED_MENTIONS")
        code = code_without_comments(text)
        for number, line in enumerate(code.split("\n"), 1):
            for m in tag_pattern.finditer(line):
                if path != REGISTRY:
                    found.append(f"{path}:{number}: {m.group(0)}")
            for literal in re.findall(r'"(?:\\.|[^"\\])*"', line):
                if name_pattern.search(literal) and not any(p in literal for p in allowed):
                    found.append(f"{path}:{number}: {literal}")
    check(len(scanned) > 50, f"only {len(scanned)} sources scanned")
    check(set(ALLOWED_MENTIONS) <= set(scanned),
          f"ALLOWED_MENTIONS names files not scanned: {set(ALLOWED_MENTIONS) - set(scanned)}")
    check(not found, "generic code names a physics (ask the registry, or move it into the "
          "physics' folder):\n" + "\n".join(found))
    return f"{len(scanned)} sources name none of {', '.join(names)}"


def declared_parameters():
    """The keys of the model parameters the physics' folders declare
    (their sf_parameter_declaration)."""
    pattern = re.compile(r'sf_parameter_declaration\s+\w+\s*=\s*\{[^}]*?\.name\s*=\s*"(\w+)"', re.S)
    names = set()
    for dirpath, _, files in os.walk(os.path.join(ROOT, "src", "physics")):
        for name in files:
            with open(os.path.join(dirpath, name), encoding="utf-8") as f:
                names.update(pattern.findall(f.read()))
    return sorted(names)


def test_generic_code_names_no_parameter(tmp):
    """Outside the physics' folders and their kernel files, no C or CUDA
    source holds a string naming a model parameter a physics declares, nor
    the old generic index of one (SF_PARAM_...): the job reader, the model
    builder and the model output loop over the job physics' declaration."""
    params = declared_parameters()
    check({"vp", "vs", "rho", "epsilon", "delta", "theta", "phi"} <= set(params),
          f"the physics' folders declare only {params}")
    name_pattern = re.compile(r"\b(?:%s)\b" % "|".join(map(re.escape, params)))
    found, scanned = [], 0
    for path, text in generic_sources():
        scanned += 1
        for number, line in enumerate(code_without_comments(text).split("\n"), 1):
            if re.search(r"\bSF_PARAM_\w+|\bsf_parameter\b", line):
                found.append(f"{path}:{number}: {line.strip()}")
            for literal in re.findall(r'"(?:\\.|[^"\\])*"', line):
                if name_pattern.search(literal):
                    found.append(f"{path}:{number}: {literal}")
    check(scanned > 50, f"only {scanned} sources scanned")
    check(not found, "generic code names a model parameter (ask the physics' declaration):\n" +
          "\n".join(found))
    return f"{scanned} sources name none of {', '.join(params)}"


def test_unknown_physics_index_is_one_error(tmp):
    """An index outside the list ends the run with one message naming it
    and the physics there are, never a fallback to another physics."""
    tags, names = listed_tags(), physics_names()
    unit_tests = os.path.join(BIN_DIR, "unit_tests")
    first = subprocess.run([unit_tests, "--physics-of", "0"], capture_output=True, text=True,
                           timeout=time_limit(60))
    check(first.returncode == 0 and first.stdout.strip() == names[0],
          f"index 0: exit {first.returncode}, '{first.stdout.strip()}'\n{first.stderr}")
    for index in (len(tags), -1):
        p = subprocess.run([unit_tests, "--physics-of", str(index)], capture_output=True,
                           text=True, timeout=time_limit(60))
        want = (f"seisfd: error: internal: no physics has index {index}; seisfd has "
                f"{len(names)}: {', '.join(names)}")
        check(p.returncode != 0 and want in p.stderr and not p.stdout.strip(),
              f"index {index}: exit {p.returncode}, stdout '{p.stdout.strip()}', stderr:\n"
              f"{p.stderr}")
    return f"indices {len(tags)} and -1 refused, naming the {len(names)} physics"


def write_job(tmp, physics, extra=""):
    path = os.path.join(tmp, "job.yaml")
    with open(path, "w") as f:
        f.write(f"""\
grid: {{nx: 30, ny: 30, nz: 30, dx: 10, dy: 10, dz: 10}}
time: {{dt: 0.001, duration: 0.05}}
physics:
  type: {physics}
model: {{type: homogeneous, vp: 2000}}
boundaries: {{cpml: 5}}
source: {{position: [150, 150, 150], frequency: 10}}
receivers:
  points: [[200, 150, 150]]
{extra}output: {{gather: g.h5}}
""")
    return "job.yaml"


def test_choices_come_from_the_list(tmp):
    """The job reader's physics.type and bench's --physics take the
    registry's names, the first being the default; a name outside it is
    one message listing them, with the nearest."""
    names = physics_names()
    rc, out, err = run(["check", write_job(tmp, names[-1] + "x")], cwd=tmp)
    want = f"physics.type: expected one of {'|'.join(names)}, got '{names[-1]}x'; did you mean"
    check(rc != 0 and want in err, f"exit {rc}:\n{err}")
    usage = subprocess.run([SEISFD, "bench", "--help"], capture_output=True, text=True,
                           timeout=time_limit(60)).stdout
    check(f"the physics to time (default {names[0]})" in " ".join(usage.split()),
          f"bench --help:\n{usage}")
    return f"physics.type and --physics take {'|'.join(names)}"


def test_velocity_needs_the_physics_that_records_it(tmp):
    """The reader names the physics that record particle velocity from
    their declarations."""
    rc, out, err = run(["check", write_job(tmp, "acoustic", "  components: [vz]\n")], cwd=tmp)
    check(rc != 0 and "an acoustic job has pressure (p) only; particle velocity needs "
          "physics.type: elastic" in err, f"exit {rc}:\n{err}")
    return "vz in an acoustic job names elastic"
