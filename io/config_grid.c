/* The grid, time and boundaries sections of a job file: the points and
 * spacings, the time step and record length, the absorbing layers and
 * the free surface. */
#include "config_sections.h"

#include "sf_config.h"

#include <stddef.h>

void cfg_read_grid(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *g = cfg_section(r, root, "grid", "", 1);
    if (!g) return;
    static const char *nk[3] = {"nx", "ny", "nz"}, *dk[3] = {"dx", "dy", "dz"};
    for (int a = 0; a < 3; ++a) {
        cfg_integer(r, g, nk[a], "grid", 1, SF_MAX_AXIS_POINTS, 1, &c->n[a], &c->n_mark[a]);
        cfg_number(r, g, dk[a], "grid", CFG_SPACING, 1, &c->spacing[a], NULL);
    }
    cfg_vector_key(r, g, "origin", "grid", 3, CFG_COORDINATE, 0, c->origin, NULL);
    cfg_reject_unknown(r, g, "grid", "nx, ny, nz, dx, dy, dz, origin");
}

void cfg_read_time(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *t = cfg_section(r, root, "time", "", 1);
    if (!t) return;
    const sf_yaml_node *dt = sf_yaml_peek(t, "dt");
    if (cfg_is_auto(dt)) {
        sf_yaml_take(t, "dt");
        c->dt_auto = 1;
        c->dt_mark = cfg_mark(dt);
    } else if (dt) {
        cfg_number(r, t, "dt", "time", (cfg_range){1e-10, 1, 0, 0}, 1, &c->dt, &c->dt_mark);
    } else {
        c->dt_auto = 1;
        c->dt_mark = cfg_mark(t);
    }
    cfg_number(r, t, "cfl_safety", "time", (cfg_range){0.01, 1, 0, 0}, 0, &c->cfl_safety, NULL);
    cfg_boolean(r, t, "dispersion_correction", "time", &c->dispersion_correction);
    sf_mark nmark, dmark;
    int has_nt = cfg_integer(r, t, "nt", "time", 1, SF_MAX_STEPS, 0, &c->nt, &nmark);
    int has_duration =
        cfg_number(r, t, "duration", "time", (cfg_range){0, 1e5, 1, 0}, 0, &c->duration, &dmark);
    c->record_mark = has_nt > 0 ? nmark : dmark;
    if (has_nt == 0 && has_duration == 0)
        cfg_problem(r, t->line, t->column, "time", "give either nt (steps) or duration (seconds)");
    if (has_nt > 0 && has_duration > 0)
        cfg_problem(r, dmark.line, dmark.column, "time.duration",
                    "give either nt or duration, not both");
    cfg_reject_unknown(r, t, "time", "dt, cfl_safety, nt, duration, dispersion_correction");
}

static void read_cpml(cfg_reader *r, sf_yaml_node *b, sf_config *c)
{
    static const char *faces[6] = {"xmin", "xmax", "ymin", "ymax", "zmin", "zmax"};
    sf_yaml_node *n = sf_yaml_take(b, "cpml");
    if (!n) return;
    c->cpml_mark = cfg_mark(n);
    if (n->kind == SF_YAML_MAPPING) {
        for (int f = 0; f < 6; ++f) {
            long v;
            if (cfg_integer(r, n, faces[f], "boundaries.cpml", 0, 1000, 0, &v, NULL) > 0)
                c->cpml[f] = (int)v;
        }
        cfg_reject_unknown(r, n, "boundaries.cpml", "xmin, xmax, ymin, ymax, zmin, zmax");
        return;
    }
    long v; /* a single number applies to every face */
    if (cfg_integer_node(r, n, "boundaries.cpml", 0, 1000, &v) > 0)
        for (int f = 0; f < 6; ++f) c->cpml[f] = (int)v;
}

void cfg_read_boundaries(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *b = cfg_section(r, root, "boundaries", "", 0);
    if (!b) return;
    int zmin_given = sf_yaml_peek(b, "cpml") && sf_yaml_peek(b, "cpml")->kind == SF_YAML_MAPPING &&
                     sf_yaml_peek(sf_yaml_peek(b, "cpml"), "zmin");
    read_cpml(r, b, c);
    cfg_boolean(r, b, "free_surface", "boundaries", &c->free_surface);
    cfg_number(r, b, "cpml_reflection", "boundaries", (cfg_range){1e-12, 0.5, 0, 0}, 0,
               &c->cpml_reflection, NULL);
    cfg_reject_unknown(r, b, "boundaries", "cpml, free_surface, cpml_reflection");
    if (c->free_surface) {
        if (zmin_given && c->cpml[SF_FACE_ZMIN] != 0)
            cfg_problem(r, c->cpml_mark.line, c->cpml_mark.column, "boundaries.cpml.zmin",
                        "must be 0 with free_surface: true (the free surface is the top face)");
        c->cpml[SF_FACE_ZMIN] = 0;
    }
}
