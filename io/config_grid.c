/* The grid, time and boundaries sections of a job file: the points and
 * spacings, the time step and record length, the absorbing layers and
 * the free surface. */
#include "config_keys.h"
#include "config_sections.h"

#include "sf_config.h"

#include <stddef.h>
#include <stdio.h>

#define GRID_POINTS(axis, i)                                                                   \
    {.name = "n" axis, .type = CFG_KEY_INTEGER, .lo = 1, .hi = SF_MAX_AXIS_POINTS,             \
     .required = 1, .unit = "points", .help = "grid points along " axis,                       \
     .value = CFG_AT(sf_config, n[i]), .mark = CFG_AT(sf_config, n_mark[i])}
#define GRID_SPACING(axis, i)                                                                  \
    {.name = "d" axis, .type = CFG_KEY_NUMBER, .range = CFG_RANGE_SPACING, .required = 1,            \
     .unit = "m", .help = "grid spacing along " axis, .value = CFG_AT(sf_config, spacing[i])}

static const cfg_key GRID_ROWS[] = {
    GRID_POINTS("x", 0), GRID_POINTS("y", 1), GRID_POINTS("z", 2),
    GRID_SPACING("x", 0), GRID_SPACING("y", 1), GRID_SPACING("z", 2),
    {.name = "origin", .type = CFG_KEY_VECTOR, .count = 3, .range = CFG_RANGE_COORDINATE,
     .fallback = "[0, 0, 0]", .unit = "m",
     .help = "coordinates [x, y, z] of grid point (0, 0, 0); z is depth",
     .value = CFG_AT(sf_config, origin)},
};
const cfg_table CFG_GRID_KEYS = CFG_TABLE("grid", NULL, "Required.", GRID_ROWS);

void cfg_read_grid(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    cfg_read_mapping(r, root, "grid", "", 1, &CFG_GRID_KEYS, c, c, NULL);
}

/* time.dt: a number, or `auto` (also when absent) for the stable step
 * the CFL limit gives. */
static int read_dt(cfg_reader *r, sf_yaml_node *t, const char *path, const cfg_key *key,
                   void *place)
{
    sf_config *c = place;
    const sf_yaml_node *dt = sf_yaml_peek(t, key->name);
    if (dt && !cfg_is_auto(dt))
        return cfg_number(r, t, key->name, path, key->range, 1, &c->dt, &c->dt_mark);
    c->dt_auto = 1;
    c->dt_mark = cfg_mark(dt ? dt : t);
    if (dt) sf_yaml_take(t, key->name);
    return dt != NULL;
}

static const cfg_key TIME_ROWS[] = {
    {.name = "dt", .type = CFG_KEY_SPECIAL, .read = read_dt, .form = "number or `auto`",
     .range = {1e-10, 1, 0, 0}, .fallback = "`auto`: cfl_safety times the stable step",
     .unit = "s", .help = "time step"},
    {.name = "cfl_safety", .type = CFG_KEY_NUMBER, .range = {0.01, 1, 0, 0}, .fallback = "0.8",
     .help = "fraction of the stability limit `dt: auto` takes",
     .value = CFG_AT(sf_config, cfl_safety)},
    {.name = "nt", .type = CFG_KEY_INTEGER, .lo = 1, .hi = SF_MAX_STEPS,
     .fallback = "give nt or duration, not both", .unit = "steps",
     .help = "length of the record in steps", .value = CFG_AT(sf_config, nt),
     .mark = CFG_AT(sf_config, record_mark)},
    {.name = "duration", .type = CFG_KEY_NUMBER, .range = {0, 1e5, 1, 0},
     .fallback = "give nt or duration, not both", .unit = "s",
     .help = "length of the record in seconds", .value = CFG_AT(sf_config, duration)},
    {.name = "dispersion_correction", .type = CFG_KEY_BOOLEAN, .fallback = "true",
     .help = "undo the leapfrog's time error in the source and the traces",
     .value = CFG_AT(sf_config, dispersion_correction)},
};
const cfg_table CFG_TIME_KEYS = CFG_TABLE("time", NULL, "Required.", TIME_ROWS);

void cfg_read_time(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *t = cfg_section(r, root, "time", "", 1);
    if (!t) return;
    int got[sizeof TIME_ROWS / sizeof TIME_ROWS[0]];
    cfg_read_keys(r, t, &CFG_TIME_KEYS, c, c, got);
    const int has_nt = cfg_key_result(&CFG_TIME_KEYS, got, "nt");
    const int has_duration = cfg_key_result(&CFG_TIME_KEYS, got, "duration");
    const sf_yaml_node *duration = sf_yaml_peek(t, "duration");
    if (has_nt <= 0 && duration) c->record_mark = cfg_mark(duration);
    if (has_nt == 0 && has_duration == 0)
        cfg_problem(r, t->line, t->column, "time", "give either nt (steps) or duration (seconds)");
    if (has_nt > 0 && has_duration > 0)
        cfg_problem(r, duration->line, duration->column, "time.duration",
                    "give either nt or duration, not both");
    cfg_reject_unknown_keys(r, t, &CFG_TIME_KEYS, c);
}

/* The thickness of each face's layer, read as the table's whole numbers. */
typedef struct {
    long face[6];
} cpml_faces;

#define CPML_FACE(face_name, f)                                                                \
    {.name = face_name, .type = CFG_KEY_INTEGER, .lo = 0, .hi = 1000, .fallback = "20",        \
     .unit = "points", .help = "absorbing layer at the " face_name " face",                    \
     .value = CFG_AT(cpml_faces, face[f])}

static const cfg_key CPML_FACE_ROWS[] = {
    CPML_FACE("xmin", 0), CPML_FACE("xmax", 1), CPML_FACE("ymin", 2),
    CPML_FACE("ymax", 3), CPML_FACE("zmin", 4), CPML_FACE("zmax", 5),
};
static const cfg_table CFG_CPML_FACE_KEYS =
    CFG_TABLE("boundaries.cpml", "boundaries.cpml, as a mapping of faces",
              "Faces left out keep 20 points (zmin: 0 with free_surface: true).", CPML_FACE_ROWS);

/* boundaries.cpml: one thickness for every face, or a mapping of faces. */
static int read_cpml(cfg_reader *r, sf_yaml_node *b, const char *path, const cfg_key *key,
                     void *place)
{
    sf_config *c = place;
    sf_yaml_node *n = sf_yaml_take(b, key->name);
    if (!n) return 0;
    c->cpml_mark = cfg_mark(n);
    cpml_faces faces;
    for (int f = 0; f < 6; ++f) faces.face[f] = c->cpml[f];
    if (n->kind == SF_YAML_MAPPING) {
        cfg_read_keys(r, n, &CFG_CPML_FACE_KEYS, &faces, c, NULL);
        cfg_reject_unknown_keys(r, n, &CFG_CPML_FACE_KEYS, c);
    } else {
        long v;
        char full[64];
        snprintf(full, sizeof full, "%s.%s", path, key->name);
        if (cfg_integer_node(r, n, full, key->lo, key->hi, &v) <= 0) return -1;
        for (int f = 0; f < 6; ++f) faces.face[f] = v;
    }
    for (int f = 0; f < 6; ++f) c->cpml[f] = (int)faces.face[f];
    return 1;
}

static const cfg_key BOUNDARY_ROWS[] = {
    {.name = "cpml", .type = CFG_KEY_SPECIAL, .read = read_cpml, .lo = 0, .hi = 1000,
     .form = "whole number, or a mapping of faces (below)", .keys = &CFG_CPML_FACE_KEYS,
     .fallback = "20 on every face", .unit = "points",
     .help = "thickness of the absorbing layers (CPML)"},
    {.name = "free_surface", .type = CFG_KEY_BOOLEAN, .fallback = "false",
     .help = "the top face (zmin) is a free surface instead of an absorbing layer",
     .value = CFG_AT(sf_config, free_surface)},
    {.name = "cpml_reflection", .type = CFG_KEY_NUMBER, .range = {1e-12, 0.5, 0, 0},
     .fallback = "chosen from the layer thickness",
     .help = "reflection coefficient the layers aim at",
     .value = CFG_AT(sf_config, cpml_reflection)},
};
const cfg_table CFG_BOUNDARY_KEYS = CFG_TABLE("boundaries", NULL, "Optional.", BOUNDARY_ROWS);

void cfg_read_boundaries(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *b = cfg_section(r, root, "boundaries", "", 0);
    if (!b) return;
    int zmin_given = sf_yaml_peek(b, "cpml") && sf_yaml_peek(b, "cpml")->kind == SF_YAML_MAPPING &&
                     sf_yaml_peek(sf_yaml_peek(b, "cpml"), "zmin");
    cfg_read_keys(r, b, &CFG_BOUNDARY_KEYS, c, c, NULL);
    cfg_reject_unknown_keys(r, b, &CFG_BOUNDARY_KEYS, c);
    if (c->free_surface) {
        if (zmin_given && c->cpml[SF_FACE_ZMIN] != 0)
            cfg_problem(r, c->cpml_mark.line, c->cpml_mark.column, "boundaries.cpml.zmin",
                        "must be 0 with free_surface: true (the free surface is the top face)");
        c->cpml[SF_FACE_ZMIN] = 0;
    }
}
