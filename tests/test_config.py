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


def check_job(tmp, text, ranks=1, name="job.yaml"):
    path = os.path.join(tmp, name)
    with open(path, "w") as f:
        f.write(text)
    return run(["check", name], ranks=ranks, cwd=tmp)


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


def test_unsupported_order(tmp):
    text = edit(VALID, "  vp: 2000\n", "  vp: 2000\nphysics:\n  order: 6\n")
    expect_error(tmp, text, r"job\.yaml:15:10: physics\.order: expected one of 2\|4\|8, got '6'")


def test_several_problems_reported_together(tmp):
    text = edit(edit(VALID, "  dx: 10", "  dx: 0"), "  cpml: 10", "  cpml: many")
    err = expect_error(tmp, text, r"job\.yaml:5:7: grid\.dx", r"job\.yaml:15:9: boundaries\.cpml",
                       r"2 problems in job file")
    check(err.count("seisfd: error") == 1, f"expected one summary line:\n{err}")


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
                            r"no interior in nx = 40")


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


def test_duplicate_key(tmp):
    text = edit(VALID, "  dy: 10", "  dy: 10\n  dy: 12")
    expect_error(tmp, text, r"job\.yaml:7:3: duplicate key 'dy' \(first given at line 6\)")


def test_missing_job_file(tmp):
    rc, out, err = run(["check", "nowhere.yaml"], cwd=tmp)
    check(rc != 0 and "cannot read the job file 'nowhere.yaml': No such file" in err, err)


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
                 r"job\.yaml:14:7: model\.vs: only an elastic job takes this key "
                 r"\(physics\.type: elastic\); this job is acoustic",
                 r"job\.yaml:20:9: source\.type: force sources need physics\.type: elastic",
                 r"job\.yaml:22:16: receivers\.components: an acoustic job has pressure \(p\) "
                 r"only",
                 r"job\.yaml:27:11: output\.energy: only an elastic job takes this key")


def test_elastic_parameters_missing_or_inconsistent(tmp):
    text = edit(ELASTIC, "  rho: 2000\n", "")
    expect_error(tmp, text, r"job\.yaml:14:3: model\.rho: required key is missing \(physics: "
                            r"elastic needs vp, vs and rho\)")
    text = edit(ELASTIC, "  vs: 1000", "  vs: 1800")
    expect_error(tmp, text, r"job\.yaml:16:7: model\.vs: 1800 m/s is too close to vp = 2000 "
                            r"m/s: an isotropic solid needs vs < 0\.8660 vp")
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
                 r"job\.yaml:21:9: source\.type: pressure is the acoustic source")
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
    expect_error(tmp, acoustic, r"job\.yaml:13:10: model\.paths: only an elastic job takes this key",
                 r"job\.yaml:15:13: model\.vs_range: only an elastic job takes this key",
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
                 r"position, depth, wavelet, frequency, delay, amplitude\)",
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
