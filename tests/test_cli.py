"""The command line (README, "Running"): help for every command, clear
usage errors, --version's backends and their physics, `seisfd check`
without mpirun and with --ranks, and `make install`."""
import glob
import os
import re
import subprocess

from testlib import ROOT, SEISFD, Skipped, check, check_sanitizers, run, time_limit

COMMANDS = ("run", "check", "bench")
EXAMPLES = sorted(glob.glob(os.path.join(ROOT, "configs", "*.yaml")))
PHYSICS = ["acoustic", "elastic", "vti", "tti", "visco_acoustic", "visco_elastic"]


def seisfd(args, cwd=None, env=None, program=SEISFD, timeout=120):
    """seisfd started directly, as a user types it (no mpirun): (exit
    status, stdout, stderr)."""
    env = dict(os.environ, OMP_NUM_THREADS="1", **(env or {}))
    try:
        p = subprocess.run([program, *args], cwd=cwd, env=env, capture_output=True, text=True,
                           timeout=time_limit(timeout))
    except subprocess.TimeoutExpired:
        check(False, f"seisfd {' '.join(args)} did not finish within {timeout} s")
    check_sanitizers(p.stderr, f"seisfd {' '.join(args)}")
    return p.returncode, p.stdout, p.stderr


def help_invocations():
    """Every way of asking for help, with the usage line it must print."""
    cases = [(["help"], "usage: seisfd COMMAND"), (["--help"], "usage: seisfd COMMAND"),
             (["-h"], "usage: seisfd COMMAND"), (["help", "help"], "usage: seisfd help")]
    for c in COMMANDS:
        cases += [(["help", c], f"usage: seisfd {c}"), ([c, "--help"], f"usage: seisfd {c}"),
                  ([c, "-h"], f"usage: seisfd {c}")]
    # --help wins over anything else given, a job file among it.
    cases += [(["run", "configs/quickstart.yaml", "--help"], "usage: seisfd run"),
              (["check", "--ranks", "x", "-h"], "usage: seisfd check")]
    return cases


def test_help_for_every_command(tmp):
    for args, first_line in help_invocations():
        rc, out, err = seisfd(args, cwd=tmp)
        check(rc == 0 and out.startswith(first_line) and not err,
              f"seisfd {' '.join(args)}: exit {rc}, stdout:\n{out}\nstderr:\n{err}")
    rc, out, err = seisfd(["help"], cwd=tmp)
    for c in COMMANDS:
        check(re.search(rf"^  {c} ", out, re.M), f"'{c}' missing from seisfd help:\n{out}")
    return f"{len(help_invocations())} ways of asking, exit 0 and the usage on stdout"


def test_help_and_version_do_not_start_mpi(tmp):
    """With an Open MPI setting that makes MPI_Init fail, a command that
    needs MPI fails, while help, --version and usage errors answer as
    ever: they are decided before MPI starts."""
    broken = {"OMPI_MCA_pml": "no_such_pml"}
    rc, out, err = seisfd(["check", os.path.join(ROOT, "configs", "quickstart.yaml")], cwd=tmp,
                          env=broken)
    if rc == 0:
        raise Skipped("this MPI starts despite OMPI_MCA_pml=no_such_pml (not Open MPI)")
    for args, first_line in help_invocations():
        rc, out, err = seisfd(args, cwd=tmp, env=broken)
        check(rc == 0 and out.startswith(first_line) and not err,
              f"seisfd {' '.join(args)} started MPI (exit {rc}):\n{out}\n{err}")
    rc, out, err = seisfd(["--version"], cwd=tmp, env=broken)
    check(rc == 0 and out.startswith("seisfd ") and "backends" in out,
          f"--version started MPI (exit {rc}):\n{out}\n{err}")
    rc, out, err = seisfd(["bench", "--size", "many"], cwd=tmp, env=broken)
    check(rc == 2 and err.startswith("seisfd: error: bench: --size"),
          f"a usage error started MPI (exit {rc}):\n{err}")
    return "help, --version and a usage error answer where MPI cannot start; check fails there"


USAGE_ERRORS = [
    ([], "no command given", "usage: seisfd COMMAND"),
    (["chek", "job.yaml"], "unknown command 'chek'; did you mean 'check'\\?",
     "usage: seisfd COMMAND"),
    (["job.yaml"], "unknown command 'job.yaml'$", "usage: seisfd COMMAND"),
    (["help", "runn"], "help: unknown command 'runn'; did you mean 'run'\\?",
     "usage: seisfd COMMAND"),
    (["--version", "now"], "--version takes no arguments, got 'now'", "usage: seisfd COMMAND"),
    (["run"], "run: no job file given", "usage: seisfd run"),
    (["run", "a.yaml", "b.yaml"], "run: one job file expected, got 'a.yaml' and 'b.yaml'",
     "usage: seisfd run"),
    (["run", "--restart", "later", "a.yaml"], "run: --restart expects resume or fresh, got 'later'",
     "usage: seisfd run"),
    (["run", "--restrat", "fresh", "a.yaml"], "run: unknown option '--restrat'; did you mean "
     "'--restart'\\?", "usage: seisfd run"),
    (["check", "--ranks", "0", "a.yaml"], "check: --ranks expects a whole number in 1..1048576, "
     "got '0'", "usage: seisfd check"),
    (["check", "--ranks"], "check: --ranks expects a whole number in 1..1048576$",
     "usage: seisfd check"),
    (["bench", "--szie", "64"], "bench: unknown option '--szie'; did you mean '--size'\\?",
     "usage: seisfd bench"),
    (["bench", "--physics", "acustic"], "bench: --physics expects one of "
     "acoustic\\|elastic\\|vti\\|tti\\|visco_acoustic\\|visco_elastic, got 'acustic'; "
     "did you mean 'acoustic'\\?",
     "usage: seisfd bench"),
    (["bench", "--order", "6"], "bench: --order expects one of 2\\|4\\|8, got '6'$",
     "usage: seisfd bench"),
    (["bench", "--size", "32", "--cpml", "20"], "bench: --cpml leaves fewer interior points",
     "usage: seisfd bench"),
    (["bench", "--relaxation-layout", "coarse"], "bench: --relaxation-layout: acoustic has no "
     "attenuation to lay out$", "usage: seisfd bench"),
]


def test_usage_errors_name_the_mistake(tmp):
    """One line naming what was wrong, a blank line, the usage of the
    command concerned, exit 2, nothing on stdout."""
    for args, message, usage in USAGE_ERRORS:
        rc, out, err = seisfd(args, cwd=tmp)
        lines = err.split("\n")
        check(rc == 2 and not out and re.match(rf"seisfd: error: {message}", lines[0])
              and lines[1] == "" and lines[2].startswith(usage),
              f"seisfd {' '.join(args)}: exit {rc}, stderr:\n{err}")
    return f"{len(USAGE_ERRORS)} mistakes, each named, exit 2"


def bench_usage_options(usage):
    """{flag: value or None} from the usage's option lines (an option too
    wide for the column ends its line, its meaning on the next)."""
    options = {}
    for m in re.finditer(r"^  (--[a-z-]+)(?: (\S+))?(?:  |$)", usage, re.M):
        options[m.group(1)] = m.group(2)
    return options


def test_bench_usage_is_the_parsers_table(tmp):
    """Every option the usage lists is one the parser takes, with each of
    the words it lists; --physics lists the physics of the registry, the
    ones --version says the CPU backend runs."""
    rc, usage, err = seisfd(["bench", "--help"], cwd=tmp)
    options = bench_usage_options(usage)
    check(len(options) >= 15 and "--physics" in options, f"options read from:\n{usage}")
    for flag, value in options.items():
        if value is None:
            # A switch: the parser goes on to the next argument.
            rc, out, err = seisfd(["bench", flag, "--no-such-option"], cwd=tmp)
            check(rc == 2 and "unknown option '--no-such-option'" in err, f"{flag}:\n{err}")
            continue
        rc, out, err = seisfd(["bench", flag], cwd=tmp)
        check(rc == 2 and err.startswith(f"seisfd: error: bench: {flag} expects"),
              f"{flag} without its value:\n{err}")
        for word in value.split("|") if "|" in value else []:
            # The word is taken: the error is the next option's.
            rc, out, err = seisfd(["bench", flag, word, "--size", "1"], cwd=tmp)
            check(rc == 2 and err.startswith("seisfd: error: bench: --size expects"),
                  f"{flag} {word} refused:\n{err}")
    check(options["--physics"].split("|") == PHYSICS, f"--physics lists {options['--physics']}")
    # Readable at 80 columns: the meanings in one column near the left,
    # whatever the widest option (the list of physics once pushed it to
    # column 69, a few words a line).
    starts = {m.start(2) - m.start(0) for m in re.finditer(r"^(  --\S+(?: \S+)?  +)(\S)", usage, re.M)}
    long = [line for line in usage.splitlines() if len(line) > 79]
    check(len(starts) == 1 and max(starts) <= 34 and not long,
          f"meanings start at columns {sorted(starts)}; lines past 79: {long}")
    rc, out, err = seisfd(["--version"], cwd=tmp)
    cpu = re.search(r"^  physics +cpu: (.*)$", out, re.M)
    check(cpu and cpu.group(1).split(", ") == PHYSICS, f"--version:\n{out}")
    return f"{len(options)} options, each taken by the parser"


def test_version_names_each_backends_physics(tmp):
    rc, out, err = seisfd(["--version"], cwd=tmp)
    check(rc == 0 and re.match(r"seisfd \d+\.\d+\.\d+\n", out), f"exit {rc}:\n{out}\n{err}")
    backends = re.search(r"^  backends  ([a-z, ]+)", out, re.M)
    check(backends, f"no backends line:\n{out}")
    names = [b.strip() for b in backends.group(1).split(",")]
    for backend in names:
        line = re.search(rf"^  physics   {backend}: (.*)$", out, re.M)
        check(line and set(line.group(1).split(", ")) <= set(PHYSICS) and line.group(1),
              f"no physics line for the {backend} backend:\n{out}")
    return "backends " + ", ".join(names)


def test_check_every_example_without_mpirun(tmp):
    """Each shipped example checks without a launcher (the survey's
    ranks_per_shot of 2 included), saying which rank counts it takes."""
    for path in EXAMPLES:
        rc, out, err = seisfd(["check", path], cwd=tmp, timeout=300)
        check(rc == 0 and "is valid" in out, f"seisfd check {path}: exit {rc}:\n{err[-3000:]}")
        check(re.search(r"^  ranks +(1 to \d+ \(slabs|a multiple of \d+ \(survey)", out, re.M)
              and "no count checked" in out, f"no rank counts in the check of {path}:\n{out}")
    check(not os.listdir(tmp), f"check created files: {os.listdir(tmp)}")
    return f"{len(EXAMPLES)} examples"


def test_check_for_a_rank_count(tmp):
    """check --ranks N checks N ranks without mpirun: survey.ranks_per_shot
    must divide N and a shot's slabs be 4 planes thick; under mpirun the
    check is for its ranks, which --ranks cannot contradict."""
    survey = os.path.join(ROOT, "configs", "survey.yaml")
    rc, out, err = seisfd(["check", "--ranks", "3", survey], cwd=tmp)
    check(rc != 0 and re.search(r"survey\.yaml:\d+:\d+: survey\.ranks_per_shot: 2 does not divide "
                                r"the 3 ranks of this run into equal groups \(allowed: 1, 3\)",
                                err), f"exit {rc}:\n{err}")
    rc, out, err = seisfd(["check", "--ranks", "4", survey], cwd=tmp)
    check(rc == 0 and "2 groups of 2 ranks" in out and "checked for 4: 2 groups" in out,
          f"exit {rc}:\n{out}\n{err}")
    quickstart = os.path.join(ROOT, "configs", "quickstart.yaml")
    rc, out, err = seisfd(["check", "--ranks", "21", quickstart], cwd=tmp)
    check(rc != 0 and re.search(r"quickstart\.yaml:\d+:\d+: grid\.nz: 81 planes over 21 ranks "
                                r"gives slabs of 3 planes.*at most 20 ranks", err),
          f"exit {rc}:\n{err}")
    # A shot's group too large fails for every count: check alone says so.
    with open(survey) as f:
        text = f.read().replace("ranks_per_shot: 2 ", "ranks_per_shot: 13 ")
    with open(os.path.join(tmp, "wide.yaml"), "w") as f:
        f.write(text)
    rc, out, err = seisfd(["check", "wide.yaml"], cwd=tmp)
    check(rc != 0 and re.search(r"wide\.yaml:\d+:\d+: grid\.nz: 49 planes over 13 ranks gives "
                                r"slabs of 3 planes.*at most 12 ranks per shot", err),
          f"exit {rc}:\n{err}")
    # Under mpirun, for its ranks, one of them too.
    rc, out, err = run(["check", survey], ranks=1, cwd=tmp)
    check(rc != 0 and "survey.ranks_per_shot: 2 does not divide the 1 rank of this run" in err,
          f"check under mpirun -np 1: exit {rc}:\n{err}")
    rc, out, err = run(["check", "--ranks", "4", survey], ranks=2, cwd=tmp)
    check(rc != 0 and "--ranks 4 differs from the 2 ranks mpirun started" in err,
          f"exit {rc}:\n{err}")
    return "divisibility, slabs, a group too large; under mpirun for its ranks"


def installed_build_flags():
    """The make variables that rebuild nothing: CUDA as bin/seisfd was built."""
    rc, out, err = seisfd(["--version"])
    return ["CUDA=0"] if "built without CUDA" in out else ["CUDA=1"]


def test_make_install(tmp):
    """make install PREFIX=... puts seisfd, seisfd-plot and the examples
    where they work from; DESTDIR stages the same tree."""
    if os.path.dirname(SEISFD) != os.path.join(ROOT, "bin"):
        raise Skipped("installs the normal build (bin/), not this one")
    prefix = os.path.join(tmp, "prefix")
    make = ["make", "--no-print-directory", *installed_build_flags(), "install"]
    p = subprocess.run([*make, f"PREFIX={prefix}"], cwd=ROOT, capture_output=True, text=True,
                       timeout=time_limit(1800))
    check(p.returncode == 0, f"make install failed:\n{p.stdout[-2000:]}\n{p.stderr[-2000:]}")
    installed = os.path.join(prefix, "bin", "seisfd")
    examples = sorted(glob.glob(os.path.join(prefix, "share", "seisfd", "examples", "*.yaml")))
    check([os.path.basename(e) for e in examples] == [os.path.basename(e) for e in EXAMPLES],
          f"examples installed: {examples}")
    rc, out, err = seisfd(["help"], cwd=tmp, program=installed)
    check(rc == 0 and out.startswith("usage: seisfd COMMAND"), f"installed help:\n{out}\n{err}")
    example = os.path.join(prefix, "share", "seisfd", "examples", "quickstart.yaml")
    rc, out, err = seisfd(["check", example], cwd=tmp, program=installed)
    check(rc == 0 and "is valid" in out, f"installed check of {example}:\n{err[-2000:]}")
    plot = os.path.join(prefix, "bin", "seisfd-plot")
    check(os.access(plot, os.X_OK), f"{plot} is not executable")
    p = subprocess.run([plot, "--help"], cwd=tmp, capture_output=True, text=True, timeout=time_limit(120),
                       env=dict(os.environ, PATH="/usr/bin:/bin"))
    check(p.returncode == 0 and p.stdout.startswith("usage: seisfd-plot"),
          f"seisfd-plot --help: exit {p.returncode}:\n{p.stdout}\n{p.stderr}")
    stage = os.path.join(tmp, "stage")
    p = subprocess.run([*make, "PREFIX=/opt/seisfd", f"DESTDIR={stage}"], cwd=ROOT,
                       capture_output=True, text=True, timeout=time_limit(1800))
    staged = [os.path.relpath(os.path.join(d, f), stage) for d, _, fs in os.walk(stage) for f in fs]
    check(p.returncode == 0 and "opt/seisfd/bin/seisfd" in staged and
          "opt/seisfd/bin/seisfd-plot" in staged and
          "opt/seisfd/share/seisfd/examples/survey.yaml" in staged,
          f"DESTDIR staging (exit {p.returncode}): {sorted(staged)}\n{p.stderr[-2000:]}")
    return f"seisfd, seisfd-plot and {len(examples)} examples, also under DESTDIR"
