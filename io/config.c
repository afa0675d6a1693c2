/* The job-file schema: which keys exist, their types, ranges and defaults,
 * and the checks that need only the file itself (extents, positions). */
#include "config_reader.h"
#include "grid_bounds.h"
#include "survey_config.h"
#include "sf_config.h"
#include "sf_error.h"
#include "sf_file_read.h"
#include "fingerprint.h"
#include "sf_physics_registry.h"

#include <math.h>
#include <mpi.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static void read_grid(cfg_reader *r, sf_yaml_node *root, sf_config *c)
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

static void read_time(cfg_reader *r, sf_yaml_node *root, sf_config *c)
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

static void read_physics(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *p = cfg_section(r, root, "physics", "", 0);
    if (!p) return;
    int type = 0;
    char physics[256];
    sf_physics_names("|", physics, sizeof physics);
    if (cfg_choice(r, p, "type", "physics", physics, 0, &type, &c->physics_mark) > 0)
        c->physics = (sf_physics)type;
    int order_index = 2;
    if (cfg_choice(r, p, "order", "physics", "2|4|8", 0, &order_index, &c->order_mark) > 0)
        c->order = 2 << order_index;
    cfg_reject_unknown(r, p, "physics", "type, order");
}

static const char *article(const char *word) { return strchr("aeiou", word[0]) ? "an" : "a"; }

/* Does physics p take the key `what` stands for? */
typedef int (*physics_takes)(sf_physics p, int what);

static int takes_parameter(sf_physics p, int q) { return sf_physics_takes(p, (sf_parameter)q); }
static int takes_energy(sf_physics p, int what) { return (void)what, sf_physics_declared(p)->energy; }
static int takes_source(sf_physics p, int type) { return (sf_physics_declared(p)->sources >> type) & 1; }
static int takes_component(sf_physics p, int k)
{
    return (sf_physics_declared(p)->components >> k) & 1;
}
/* Models of several parameters name a file or dataset for each. */
static int takes_files(sf_physics p, int what) { return (void)what, sf_physics_declared(p)->nparams > 1; }

/* "elastic", "vti or tti": the names of the physics that take it. */
static void physics_taking(physics_takes takes, int what, char *out, size_t len)
{
    int n = 0, total = 0;
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) total += takes((sf_physics)p, what);
    out[0] = '\0';
    for (int p = 0; p < SF_PHYSICS_KINDS; ++p) {
        if (!takes((sf_physics)p, what)) continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", n == 0 ? "" : n == total - 1 ? " or " : ", ",
                 sf_physics_declared((sf_physics)p)->name);
        ++n;
    }
}

/* A key only other physics take: reported where it is written (and
 * consumed, so it is not also an unknown key). */
static void reject_foreign_key(cfg_reader *r, sf_yaml_node *map, const char *path, const char *key,
                               const sf_config *c, physics_takes takes, int what)
{
    if (takes(c->physics, what)) return;
    const sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) return;
    char full[256], who[96];
    snprintf(full, sizeof full, "%s%s%s", path, *path ? "." : "", key);
    physics_taking(takes, what, who, sizeof who);
    cfg_problem(r, n->line, n->column, full,
                "only %s %s job takes this key (physics.type: %s); this job is %s", article(who),
                who, who, sf_config_physics(c)->name);
}

/* Every parameter key (with suffix: "", "_range") the job's physics does not take. */
static void reject_foreign_parameters(cfg_reader *r, sf_yaml_node *map, const char *path,
                                      const sf_config *c, const char *suffix)
{
    for (int q = 0; q < SF_PARAMS; ++q) {
        char key[32];
        snprintf(key, sizeof key, "%s%s", sf_parameter_name((sf_parameter)q), suffix);
        reject_foreign_key(r, map, path, key, c, takes_parameter, q);
    }
}

/* The job physics' parameter names with a suffix, joined by sep (and
 * "and" before the last when last_and). */
static void parameter_list(const sf_config *c, const char *suffix, const char *sep, int last_and,
                           char *out, size_t len)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    out[0] = '\0';
    for (int n = 0; n < d->nparams; ++n) {
        size_t used = strlen(out);
        const char *join = n == 0 ? "" : last_and && n == d->nparams - 1 ? " and " : sep;
        snprintf(out + used, len - used, "%s%s%s", join, sf_parameter_name(d->param[n]), suffix);
    }
}

/* A key of the other physics' spelling, with the spelling to use instead. */
static void reject_misplaced(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                             const char *advice)
{
    const sf_yaml_node *n = sf_yaml_take(map, key);
    if (n) cfg_problem(r, n->line, n->column, path, "%s", advice);
}

static int compare_layers(const void *a, const void *b)
{
    double ta = ((const sf_layer *)a)->top, tb = ((const sf_layer *)b)->top;
    return (ta > tb) - (ta < tb);
}

static const cfg_range PARAMETER_RANGE[SF_PARAMS] = {
    [SF_PARAM_VP] = {10, 20000, 0, 0},      /* m/s: air to the fastest rocks */
    [SF_PARAM_VS] = {0, 20000, 0, 0},       /* m/s: 0 in fluids */
    [SF_PARAM_RHO] = {1, 25000, 0, 0},      /* kg/m^3 */
    /* 1 + 2 epsilon and 1 + 2 delta must stay positive; rocks keep well within. */
    [SF_PARAM_EPSILON] = {-0.45, 2, 0, 0},
    [SF_PARAM_DELTA] = {-0.45, 2, 0, 0},
    [SF_PARAM_THETA] = {-180, 180, 0, 0},   /* degrees */
    [SF_PARAM_PHI] = {-360, 360, 0, 0},     /* degrees */
};

const char *sf_config_point_problem(const sf_config *c, const double *value, char *text, size_t len)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    return d->point_problem ? d->point_problem(value, text, len) : NULL;
}

sf_parameter sf_config_point_key(const sf_config *c) { return sf_config_physics(c)->point_key; }

/* The physics' parameters of a homogeneous model or a layer. */
static void read_parameters(cfg_reader *r, sf_yaml_node *map, const char *path, const sf_config *c,
                            double value[SF_PARAMS])
{
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_mark mark[SF_PARAMS];
    reject_foreign_parameters(r, map, path, c, "");
    int ok = 1;
    for (int n = 0; n < d->nparams; ++n) {
        const sf_parameter q = d->param[n];
        const char *name = sf_parameter_name(q);
        mark[q] = cfg_mark(map);
        int got = cfg_number(r, map, name, path, PARAMETER_RANGE[q], n == 0, &value[q], &mark[q]);
        char full[96], needs[96];
        snprintf(full, sizeof full, "%s.%s", path, name);
        parameter_list(c, "", ", ", 1, needs, sizeof needs);
        if (got == 0 && n > 0)
            cfg_problem(r, map->line, map->column, full, "required key is missing (physics: "
                        "%s needs %s)", d->name, needs);
        ok &= got > 0;
    }
    char text[256];
    if (ok && sf_config_point_problem(c, value, text, sizeof text)) {
        const sf_parameter q = sf_config_point_key(c);
        char key[96];
        snprintf(key, sizeof key, "%s.%s", path, sf_parameter_name(q));
        cfg_problem(r, mark[q].line, mark[q].column, key, "%s", text);
    }
}

static void read_layers(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    char values[160], entry[192], keys[160];
    parameter_list(c, ": value", ", ", 0, values, sizeof values);
    snprintf(entry, sizeof entry, "{top: depth, %s}", values);
    parameter_list(c, "", ", ", 0, values, sizeof values);
    snprintf(keys, sizeof keys, "top, %s", values);
    sf_yaml_node *list = sf_yaml_take(m, "layers");
    if (!list) {
        cfg_problem(r, m->line, m->column, "model.layers", "required key is missing");
        return;
    }
    if (list->kind != SF_YAML_SEQUENCE || list->count == 0) {
        cfg_problem(r, list->line, list->column, "model.layers", "expected a list of %s entries",
                    entry);
        return;
    }
    c->model.nlayers = (int)list->count;
    c->model.layers = sf_calloc(list->count, sizeof *c->model.layers, "model layers");
    int last_ok = 0;
    for (size_t i = 0; i < list->count; ++i) {
        char path[64];
        snprintf(path, sizeof path, "model.layers[%zu]", i);
        sf_yaml_node *item = list->items[i];
        if (item->kind != SF_YAML_MAPPING) {
            cfg_problem(r, item->line, item->column, path, "expected %s", entry);
            last_ok = 0;
            continue;
        }
        /* Only tops that were read are compared: a bad one is reported once. */
        int top_ok = cfg_number(r, item, "top", path, CFG_COORDINATE, 1,
                                &c->model.layers[i].top, NULL) > 0;
        read_parameters(r, item, path, c, c->model.layers[i].value);
        cfg_reject_unknown(r, item, path, keys);
        if (i > 0 && top_ok && last_ok && c->model.layers[i].top <= c->model.layers[i - 1].top)
            cfg_problem(r, item->line, item->column, path,
                        "layer tops must increase with depth (%g follows %g)",
                        c->model.layers[i].top, c->model.layers[i - 1].top);
        last_ok = top_ok;
    }
    qsort(c->model.layers, list->count, sizeof *c->model.layers, compare_layers);
    if (c->model.layers[0].top > c->origin[2])
        cfg_problem(r, list->line, list->column, "model.layers[0].top",
                    "the first layer starts at %g m, below the top of the grid (z = %g m); "
                    "the model must cover the whole grid",
                    c->model.layers[0].top, c->origin[2]);
}

/* The accepted values of a model file's parameters; others are reported
 * as errors with their index. */
static const double DEFAULT_RANGE[SF_PARAMS][2] = {
    [SF_PARAM_VP] = {100.0, 15000.0},    [SF_PARAM_VS] = {0.0, 15000.0},
    [SF_PARAM_RHO] = {100.0, 25000.0},   [SF_PARAM_EPSILON] = {-0.2, 1.0},
    [SF_PARAM_DELTA] = {-0.3, 1.0},      [SF_PARAM_THETA] = {-180.0, 180.0},
    [SF_PARAM_PHI] = {-360.0, 360.0},
};

static void read_ranges(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_model_config *mc = &c->model;
    reject_foreign_parameters(r, m, "model", c, "_range");
    for (int n = 0; n < d->nparams; ++n) {
        const sf_parameter p = d->param[n];
        mc->range[p][0] = DEFAULT_RANGE[p][0];
        mc->range[p][1] = DEFAULT_RANGE[p][1];
        char key[32], full[64];
        snprintf(key, sizeof key, "%s_range", sf_parameter_name(p));
        snprintf(full, sizeof full, "model.%s", key);
        sf_mark mark;
        if (cfg_vector_key(r, m, key, "model", 2, PARAMETER_RANGE[p], 0, mc->range[p], &mark) > 0 &&
            mc->range[p][0] >= mc->range[p][1])
            cfg_problem(r, mark.line, mark.column, full,
                        "the minimum (%g) must be below the maximum (%g)", mc->range[p][0],
                        mc->range[p][1]);
    }
}

static void read_model_grid(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    sf_model_config *mc = &c->model;
    double dims[3] = {0, 0, 0};
    /* HDF5 datasets carry their shape; raw files cannot; SEG-Y may need it. */
    if (mc->kind != SF_MODEL_HDF5 &&
        cfg_vector_key(r, m, "dims", "model", 3, (cfg_range){1, SF_MAX_AXIS_POINTS, 0, 0},
                       mc->kind == SF_MODEL_RAW, dims, &mc->dims_mark) > 0) {
        for (int a = 0; a < 3; ++a) {
            mc->dims[a] = (long)dims[a];
            if (dims[a] != floor(dims[a]))
                cfg_problem(r, mc->dims_mark.line, mc->dims_mark.column, "model.dims",
                            "dimensions must be whole numbers");
        }
    }
    mc->origin_given = cfg_vector_key(r, m, "origin", "model", 3, CFG_COORDINATE, 0, mc->origin,
                                      &mc->origin_mark) > 0;
    mc->spacing_given = cfg_vector_key(r, m, "spacing", "model", 3, CFG_SPACING,
                                       mc->kind == SF_MODEL_SEGY, mc->spacing,
                                       &mc->spacing_mark) > 0;
    int nearest = 0;
    cfg_choice(r, m, "interpolation", "model", "linear|nearest", 0, &nearest, NULL);
    mc->interpolation = nearest ? SF_INTERP_NEAREST : SF_INTERP_LINEAR;
    cfg_boolean(r, m, "extend", "model", &mc->extend);
    read_ranges(r, m, c);
}

/* A raw or SEG-Y model of several parameters: one file each, all required. */
static void read_model_paths(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_model_config *mc = &c->model;
    char files[192], keys[160], advice[320];
    parameter_list(c, ": FILE", ", ", 0, files, sizeof files);
    parameter_list(c, "", ", ", 0, keys, sizeof keys);
    snprintf(advice, sizeof advice, "%s %s model in raw or SEG-Y files has one file per parameter: "
             "give model.paths: {%s}", article(d->name), d->name, files);
    reject_misplaced(r, m, "path", "model.path", advice);
    sf_yaml_node *paths = cfg_section(r, m, "paths", "model", 1);
    if (!paths) return;
    for (int n = 0; n < d->nparams; ++n)
        cfg_string(r, paths, sf_parameter_name(d->param[n]), "model.paths", 1,
                   &mc->path[d->param[n]], &mc->path_mark[d->param[n]]);
    cfg_reject_unknown(r, paths, "model.paths", keys);
}

/* An HDF5 model of several parameters: one file, a dataset each (default: its name). */
static void read_model_datasets(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_model_config *mc = &c->model;
    char names[192], keys[160], advice[320];
    parameter_list(c, ": NAME", ", ", 0, names, sizeof names);
    parameter_list(c, "", ", ", 0, keys, sizeof keys);
    snprintf(advice, sizeof advice, "%s %s model reads one dataset per parameter: give "
             "model.datasets: {%s} (default: %s)", article(d->name), d->name, names, keys);
    reject_misplaced(r, m, "dataset", "model.dataset", advice);
    sf_yaml_node *given = cfg_section(r, m, "datasets", "model", 0);
    for (int n = 0; n < d->nparams; ++n) {
        const sf_parameter p = d->param[n];
        const char *name = sf_parameter_name(p);
        if (!given || cfg_string(r, given, name, "model.datasets", 0, &mc->dataset[p], NULL) <= 0)
            mc->dataset[p] = sf_strdup(name);
    }
    if (given) cfg_reject_unknown(r, given, "model.datasets", keys);
}

static void read_model_file(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    const int several = sf_config_physics(c)->nparams > 1;
    sf_model_config *mc = &c->model;
    reject_foreign_key(r, m, "model", "paths", c, takes_files, 0);
    reject_foreign_key(r, m, "model", "datasets", c, takes_files, 0);
    if (several && mc->kind != SF_MODEL_HDF5) {
        read_model_paths(r, m, c);
    } else {
        cfg_string(r, m, "path", "model", 1, &mc->path[0], &mc->path_mark[0]);
        const sf_physics_declaration *d = sf_config_physics(c);
        for (int n = 1; n < d->nparams && mc->path[0]; ++n) {
            mc->path[d->param[n]] = sf_strdup(mc->path[0]);
            mc->path_mark[d->param[n]] = mc->path_mark[0];
        }
    }
    if (mc->kind == SF_MODEL_HDF5 && several)
        read_model_datasets(r, m, c);
    else if (mc->kind == SF_MODEL_HDF5 &&
             cfg_string(r, m, "dataset", "model", 0, &mc->dataset[0], NULL) <= 0)
        mc->dataset[0] = sf_strdup("vp");
    if (mc->kind == SF_MODEL_RAW) {
        int endian = 0;
        cfg_choice(r, m, "endian", "model", "little|big", 0, &endian, NULL);
        mc->endian = endian ? SF_ENDIAN_BIG : SF_ENDIAN_LITTLE;
    }
    read_model_grid(r, m, c);
}

/* The keys a model type takes, for the unknown-key message. */
static void model_keys(const sf_config *c, char *out, size_t len)
{
    const int several = sf_config_physics(c)->nparams > 1;
    char params[160], ranges[192];
    parameter_list(c, "", ", ", 0, params, sizeof params);
    parameter_list(c, "_range", ", ", 0, ranges, sizeof ranges);
    const char *grid = "origin, spacing, interpolation, extend";
    switch (c->model.kind) {
    case SF_MODEL_HOMOGENEOUS: snprintf(out, len, "type, %s", params); break;
    case SF_MODEL_LAYERED: snprintf(out, len, "type, layers"); break;
    case SF_MODEL_RAW:
        snprintf(out, len, "type, %s, dims, endian, %s, %s", several ? "paths" : "path", grid,
                 ranges);
        break;
    case SF_MODEL_HDF5:
        snprintf(out, len, "type, path, %s, %s, %s", several ? "datasets" : "dataset", grid, ranges);
        break;
    default:
        snprintf(out, len, "type, %s, dims, %s, %s", several ? "paths" : "path", grid, ranges);
    }
}

static void read_model(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *m = cfg_section(r, root, "model", "", 1);
    if (!m) return;
    c->model.mark = cfg_mark(m);
    int kind = 0;
    if (cfg_choice(r, m, "type", "model", "homogeneous|layered|raw|hdf5|segy", 1, &kind, NULL) <= 0)
        return;
    c->model.kind = (sf_model_kind)kind;
    switch (c->model.kind) {
    case SF_MODEL_HOMOGENEOUS: read_parameters(r, m, "model", c, c->model.value); break;
    case SF_MODEL_LAYERED: read_layers(r, m, c); break;
    default: read_model_file(r, m, c);
    }
    char keys[320];
    model_keys(c, keys, sizeof keys);
    cfg_reject_unknown(r, m, "model", keys);
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

static void read_boundaries(cfg_reader *r, sf_yaml_node *root, sf_config *c)
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

static const char *const SOURCE_TYPE_NAMES[] = {"pressure", "explosive", "force", "moment"};

/* The source types physics p takes, as "explosive, force or moment". */
static void source_types(sf_physics p, char *out, size_t len)
{
    const unsigned taken = sf_physics_declared(p)->sources;
    int total = 0, n = 0;
    for (int t = 0; t < 4; ++t) total += (taken >> t) & 1;
    out[0] = '\0';
    for (int t = 0; t < 4; ++t) {
        if (!((taken >> t) & 1)) continue;
        size_t used = strlen(out);
        snprintf(out + used, len - used, "%s%s", n == 0 ? "" : n == total - 1 ? " or " : ", ",
                 SOURCE_TYPE_NAMES[t]);
        ++n;
    }
}

/* The source type: each physics declares those it takes and its default
 * (pressure for the acoustic kinds; an explosion, a force or a moment
 * tensor for elastic jobs). */
static void read_source_type(cfg_reader *r, sf_yaml_node *s, sf_config *c)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_source_config *src = &c->source;
    int type = d->default_source;
    src->type_mark = cfg_mark(s);
    int given = cfg_choice(r, s, "type", "source", "pressure|explosive|force|moment", 0, &type,
                           &src->type_mark) > 0;
    src->type = (sf_source_type)type;
    if (!given || ((d->sources >> type) & 1)) return;
    /* A type of another physics is reported once; the job goes on as its
     * default type so that no key is asked for because of it. */
    char taken[96], takers[96];
    source_types(c->physics, taken, sizeof taken);
    physics_taking(takes_source, type, takers, sizeof takers);
    cfg_problem(r, src->type_mark.line, src->type_mark.column, "source.type",
                "%s sources need physics.type: %s (%s %s job takes %s)", SOURCE_TYPE_NAMES[type],
                takers, article(d->name), d->name, taken);
    src->type = (sf_source_type)d->default_source;
}

/* A list of numbers that only one source type takes, required there and
 * not all zero. */
static void read_source_vector(cfg_reader *r, sf_yaml_node *s, const char *key, int n,
                               sf_source_type owner, const char *owner_name, sf_config *c,
                               double *out)
{
    char full[64];
    snprintf(full, sizeof full, "source.%s", key);
    if (c->source.type != owner) {
        const sf_yaml_node *v = sf_yaml_take(s, key);
        if (v) cfg_problem(r, v->line, v->column, full, "only for source.type: %s", owner_name);
        return;
    }
    sf_mark mark;
    if (cfg_vector_key(r, s, key, "source", n, CFG_SCALE, 1, out, &mark) <= 0) return;
    double norm = 0.0;
    for (int i = 0; i < n; ++i) norm += fabs(out[i]);
    if (norm == 0.0)
        cfg_problem(r, mark.line, mark.column, full, "all components are zero: the source would "
                    "radiate nothing");
}

static void read_source(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *s = cfg_section(r, root, "source", "", 1);
    if (!s) return;
    read_source_type(r, s, c);
    if (!c->survey.enabled) {
        cfg_vector_key(r, s, "position", "source", 3, CFG_COORDINATE, 1, c->source.position,
                       &c->source.position_mark);
    } else if (sf_yaml_peek(s, "position")) {
        const sf_yaml_node *n = sf_yaml_take(s, "position");
        cfg_problem(r, n->line, n->column, "source.position",
                    "a survey places each shot in survey.shots or survey.grid; the source section "
                    "gives the other keys (wavelet, frequency, ...) for every shot");
    }
    cfg_read_wavelet(r, s, "source", NULL, &c->source.wavelet);
    const sf_yaml_node *delay = sf_yaml_peek(s, "delay");
    if (cfg_is_auto(delay))
        sf_yaml_take(s, "delay");
    else
        cfg_number(r, s, "delay", "source", CFG_DELAY, 0, &c->source.delay, NULL);
    c->source.delay_auto = !delay || cfg_is_auto(delay);
    cfg_number(r, s, "amplitude", "source", CFG_SCALE, 0, &c->source.amplitude,
               &c->source.amplitude_mark);
    read_source_vector(r, s, "direction", 3, SF_SOURCE_FORCE, "force", c, c->source.direction);
    read_source_vector(r, s, "moment", 6, SF_SOURCE_MOMENT, "moment", c, c->source.moment);
    const unsigned vectors = (1u << SF_SOURCE_FORCE) | (1u << SF_SOURCE_MOMENT);
    cfg_reject_unknown(r, s, "source",
                       sf_config_physics(c)->sources & vectors
                           ? "type, position, " CFG_WAVELET_KEYS ", delay, amplitude, "
                             "direction, moment"
                           : "type, position, " CFG_WAVELET_KEYS ", delay, amplitude");
}

/* Receivers are counted before they are made: a 100000 x 100000 grid is
 * refused at once instead of after minutes of positions. 1 when count
 * more fit, else 0 with a problem at mark. */
static int receivers_fit(cfg_reader *r, const sf_config *c, double count, sf_mark mark,
                         const char *key)
{
    if ((double)c->receivers.count + count <= SF_MAX_RECEIVERS) return 1;
    cfg_problem(r, mark.line, mark.column, key, "%.0f receivers, with the %ld listed before, are "
                "more than the %d a job may have", count, c->receivers.count, SF_MAX_RECEIVERS);
    return 0;
}

static void add_receiver(sf_receiver_config *rc, long *capacity, const double p[3])
{
    if (rc->count == *capacity) {
        *capacity = *capacity ? 2 * *capacity : 64;
        rc->position = realloc(rc->position, (size_t)*capacity * sizeof *rc->position);
        if (!rc->position) sf_fatal("out of memory storing receiver positions");
    }
    memcpy(rc->position[rc->count++], p, sizeof(double[3]));
}

static void read_receiver_points(cfg_reader *r, sf_yaml_node *list, sf_config *c, long *cap)
{
    if (list->kind != SF_YAML_SEQUENCE || list->count == 0) {
        cfg_problem(r, list->line, list->column, "receivers.points",
                    "expected a list of [x, y, z] positions");
        return;
    }
    if (!receivers_fit(r, c, (double)list->count, cfg_mark(list), "receivers.points")) return;
    for (size_t i = 0; i < list->count; ++i) {
        char path[64];
        double p[3];
        snprintf(path, sizeof path, "receivers.points[%zu]", i);
        if (cfg_vector(r, list->items[i], path, 3, CFG_COORDINATE, p) > 0)
            add_receiver(&c->receivers, cap, p);
    }
}

static void read_receiver_line(cfg_reader *r, sf_yaml_node *line, sf_config *c, long *cap)
{
    double a[3], b[3];
    long count = 0;
    sf_mark cmark;
    int ok = cfg_vector_key(r, line, "start", "receivers.line", 3, CFG_COORDINATE, 1, a, NULL) > 0;
    ok &= cfg_vector_key(r, line, "end", "receivers.line", 3, CFG_COORDINATE, 1, b, NULL) > 0;
    ok &= cfg_integer(r, line, "count", "receivers.line", 1, SF_MAX_RECEIVERS, 1, &count,
                      &cmark) > 0;
    cfg_reject_unknown(r, line, "receivers.line", "start, end, count");
    if (!ok || !receivers_fit(r, c, (double)count, cmark, "receivers.line.count")) return;
    c->receivers.line = sf_receiver_line_make(c->receivers.count, count, a, b);
    for (long i = 0; i < count; ++i) {
        double f = count > 1 ? (double)i / (double)(count - 1) : 0.0, p[3];
        for (int k = 0; k < 3; ++k) p[k] = a[k] + f * (b[k] - a[k]);
        add_receiver(&c->receivers, cap, p);
    }
}

static void read_receiver_grid(cfg_reader *r, sf_yaml_node *g, sf_config *c, long *cap)
{
    double origin[3], step[2], count[2];
    int ok =
        cfg_vector_key(r, g, "origin", "receivers.grid", 3, CFG_COORDINATE, 1, origin, NULL) > 0;
    ok &= cfg_vector_key(r, g, "spacing", "receivers.grid", 2, CFG_SPACING, 1, step, NULL) > 0;
    sf_mark cmark;
    ok &= cfg_vector_key(r, g, "count", "receivers.grid", 2, (cfg_range){1, 1e6, 0, 0}, 1, count,
                         &cmark) > 0;
    cfg_reject_unknown(r, g, "receivers.grid", "origin, spacing, count");
    if (!ok) return;
    if (count[0] != floor(count[0]) || count[1] != floor(count[1])) {
        cfg_problem(r, cmark.line, cmark.column, "receivers.grid.count",
                    "counts must be whole numbers");
        return;
    }
    if (!receivers_fit(r, c, count[0] * count[1], cmark, "receivers.grid.count")) return;
    for (long j = 0; j < (long)count[1]; ++j)
        for (long i = 0; i < (long)count[0]; ++i) {
            double p[3] = {origin[0] + (double)i * step[0], origin[1] + (double)j * step[1],
                           origin[2]};
            add_receiver(&c->receivers, cap, p);
        }
}

/* A list of distinct components (or snapshot fields); an acoustic job
 * has pressure only. Returns how many were read, 0 when the key is absent. */
static int read_components(cfg_reader *r, sf_yaml_node *map, const char *key, const char *path,
                           const sf_config *c, sf_component out[SF_COMPONENTS])
{
    char full[64];
    snprintf(full, sizeof full, "%s.%s", path, key);
    sf_yaml_node *n = sf_yaml_take(map, key);
    if (!n) return 0;
    if (n->kind != SF_YAML_SEQUENCE || n->count == 0 || n->count > SF_COMPONENTS) {
        cfg_problem(r, n->line, n->column, full, "expected a list of distinct names out of "
                    "[vx, vy, vz, p]");
        return -1;
    }
    int count = 0, seen[SF_COMPONENTS] = {0};
    for (size_t i = 0; i < n->count; ++i) {
        const sf_yaml_node *item = n->items[i];
        int found = -1;
        for (int k = 0; item->kind == SF_YAML_SCALAR && k < SF_COMPONENTS; ++k)
            if (!strcmp(item->value, sf_component_name((sf_component)k))) found = k;
        if (found < 0 || seen[found]) {
            cfg_problem(r, item->line, item->column, full, found < 0 ? "expected one of vx, vy, "
                        "vz, p, got '%s'" : "'%s' is listed twice",
                        item->kind == SF_YAML_SCALAR ? item->value : sf_yaml_kind_name(item->kind));
            continue;
        }
        const sf_physics_declaration *d = sf_config_physics(c);
        if (!takes_component(c->physics, found)) {
            /* Every physics records the pressure; particle velocity is some physics' only. */
            char who[96];
            physics_taking(takes_component, found, who, sizeof who);
            cfg_problem(r, item->line, item->column, full, "%s %s job has pressure (p) "
                        "only; particle velocity needs physics.type: %s", article(d->name),
                        d->name, who);
            continue;
        }
        seen[found] = 1;
        out[count++] = (sf_component)found;
    }
    return count;
}

/* Receivers record what the physics declares by default (vx, vy and vz
 * in an elastic job, p otherwise). */
static void read_receiver_components(cfg_reader *r, sf_yaml_node *rs, sf_config *c)
{
    sf_receiver_config *rc = &c->receivers;
    int n = read_components(r, rs, "components", "receivers", c, rc->component);
    if (n > 0) {
        rc->ncomponents = n;
        return;
    }
    rc->ncomponents = 0;
    for (int k = 0; k < SF_COMPONENTS; ++k)
        if ((sf_config_physics(c)->default_receivers >> k) & 1)
            rc->component[rc->ncomponents++] = (sf_component)k;
}

static void read_receivers(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *rs = cfg_section(r, root, "receivers", "", 1);
    if (!rs) return;
    c->receivers.mark = cfg_mark(rs);
    c->receivers.sampling_mark = c->receivers.mark;
    const sf_yaml_node *sampling = sf_yaml_peek(rs, "sampling");
    if (cfg_is_auto(sampling)) {
        sf_yaml_take(rs, "sampling");
        c->receivers.sampling_mark = cfg_mark(sampling);
    } else {
        cfg_number(r, rs, "sampling", "receivers", (cfg_range){1e-10, 10, 0, 0}, 0,
                   &c->receivers.sampling, &c->receivers.sampling_mark);
    }
    read_receiver_components(r, rs, c);
    long capacity = 0;
    sf_yaml_node *n;
    if ((n = sf_yaml_take(rs, "points"))) read_receiver_points(r, n, c, &capacity);
    if ((n = cfg_section(r, rs, "line", "receivers", 0))) read_receiver_line(r, n, c, &capacity);
    if ((n = cfg_section(r, rs, "grid", "receivers", 0))) read_receiver_grid(r, n, c, &capacity);
    cfg_reject_unknown(r, rs, "receivers", "sampling, components, points, line, grid");
    if (!sf_yaml_peek(rs, "points") && !sf_yaml_peek(rs, "line") && !sf_yaml_peek(rs, "grid"))
        cfg_problem(r, rs->line, rs->column, "receivers",
                    "give at least one of points, line or grid");
}

static void read_decimation(cfg_reader *r, sf_yaml_node *snap, sf_config *c)
{
    sf_yaml_node *n = sf_yaml_take(snap, "decimation");
    if (!n) return;
    double d[3];
    long single;
    if (n->kind == SF_YAML_SEQUENCE) {
        if (cfg_vector(r, n, "output.snapshots.decimation", 3, (cfg_range){1, 1000, 0, 0}, d) <= 0)
            return;
        for (int a = 0; a < 3; ++a) {
            c->snapshot_decimation[a] = (long)d[a];
            if (d[a] != (double)(long)d[a])
                cfg_problem(r, n->line, n->column, "output.snapshots.decimation",
                            "decimation factors must be whole numbers");
        }
    } else if (cfg_integer_node(r, n, "output.snapshots.decimation", 1, 1000, &single) > 0) {
        for (int a = 0; a < 3; ++a) c->snapshot_decimation[a] = single;
    }
}

/* Snapshots store every component the physics has (p; an elastic job's
 * vx, vy, vz and p) unless `fields` chooses. */
static void read_snapshot_fields(cfg_reader *r, sf_yaml_node *snap, sf_config *c)
{
    int n = read_components(r, snap, "fields", "output.snapshots", c, c->snapshot_field);
    if (n > 0) {
        c->snapshot_nfields = n;
        return;
    }
    c->snapshot_nfields = 0;
    for (int k = 0; k < SF_COMPONENTS; ++k)
        if ((sf_config_physics(c)->components >> k) & 1)
            c->snapshot_field[c->snapshot_nfields++] = (sf_component)k;
}

static void read_snapshots(cfg_reader *r, sf_yaml_node *o, sf_config *c)
{
    sf_yaml_node *snap = cfg_section(r, o, "snapshots", "output", 0);
    if (!snap) return;
    cfg_string(r, snap, "path", "output.snapshots", 1, &c->snapshot_path, &c->snapshot_mark);
    cfg_integer(r, snap, "every", "output.snapshots", 1, SF_MAX_STEPS, 1, &c->snapshot_every, NULL);
    read_decimation(r, snap, c);
    read_snapshot_fields(r, snap, c);
    cfg_reject_unknown(r, snap, "output.snapshots", "path, every, decimation, fields");
}

/* A survey writes each shot into output.directory under names of its
 * own; the single-shot keys that name files are not for it. */
static void read_survey_output(cfg_reader *r, sf_yaml_node *o, sf_config *c)
{
    static const char *const single_shot[] = {"gather", "snapshots", "model", "energy", NULL};
    static const char *const why[] = {
        "a survey names each shot's gather shot_NNNN.h5 in output.directory; give that instead",
        "snapshots are for single-shot jobs; a survey writes gathers only",
        "the model on the grid is written by single-shot jobs only (run one shot without survey:)",
        "the energy series is for single-shot jobs; a survey writes gathers only"};
    for (int k = 0; single_shot[k]; ++k) {
        const sf_yaml_node *n = sf_yaml_take(o, single_shot[k]);
        char full[64];
        snprintf(full, sizeof full, "output.%s", single_shot[k]);
        if (n) cfg_problem(r, n->line, n->column, full, "%s", why[k]);
    }
    cfg_string(r, o, "directory", "output", 1, &c->output_directory, &c->output_directory_mark);
    cfg_boolean(r, o, "segy", "output", &c->survey_segy);
    c->segy_mark = c->output_directory_mark;
}

static void read_output(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *o = cfg_section(r, root, "output", "", 1);
    if (!o) return;
    cfg_boolean(r, o, "overwrite", "output", &c->overwrite);
    cfg_string(r, o, "report", "output", 0, &c->report_path, &c->report_mark);
    if (c->survey.enabled) {
        read_survey_output(r, o, c);
        cfg_reject_unknown(r, o, "output", "directory, segy, overwrite, report");
        return;
    }
    const sf_yaml_node *dir = sf_yaml_take(o, "directory");
    if (dir)
        cfg_problem(r, dir->line, dir->column, "output.directory",
                    "only a survey (a survey: section) writes into a directory; a single shot "
                    "names its gather with output.gather");
    cfg_string(r, o, "gather", "output", 1, &c->gather_path, &c->gather_mark);
    cfg_string(r, o, "segy", "output", 0, &c->segy_path, &c->segy_mark);
    read_snapshots(r, o, c);
    cfg_string(r, o, "model", "output", 0, &c->model_output_path, &c->model_output_mark);
    reject_foreign_key(r, o, "output", "energy", c, takes_energy, 0);
    cfg_string(r, o, "energy", "output", 0, &c->energy_path, &c->energy_mark);
    cfg_reject_unknown(r, o, "output", sf_config_physics(c)->energy
                                           ? "gather, segy, overwrite, snapshots, model, energy, "
                                             "report"
                                           : "gather, segy, overwrite, snapshots, model, report");
}

static void read_run(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *u = cfg_section(r, root, "run", "", 0);
    if (!u) return;
    int device = 0;
    if (cfg_choice(r, u, "device", "run", "auto|cpu|cuda", 0, &device, NULL) > 0)
        c->device = (sf_device_kind)device;
    int gpu_aware = 0;
    if (cfg_choice(r, u, "gpu_aware_mpi", "run", "auto|on|off", 0, &gpu_aware,
                   &c->gpu_aware_mpi_mark) > 0)
        c->gpu_aware_mpi = (sf_gpu_aware_mode)gpu_aware;
    cfg_number(r, u, "progress_interval", "run", (cfg_range){1e-3, 1e6, 0, 0}, 0,
               &c->progress_interval, NULL);
    cfg_integer(r, u, "check_every", "run", 0, SF_MAX_STEPS, 0, &c->check_every,
                &c->check_every_mark);
    int slabs = 0;
    if (cfg_choice(r, u, "slabs", "run", "balanced|equal", 0, &slabs, NULL) > 0)
        c->slabs = (sf_slab_policy)slabs;
    cfg_reject_unknown(r, u, "run", "device, gpu_aware_mpi, progress_interval, check_every, slabs");
}

static void check_position(cfg_reader *r, const sf_config *c, const double p[3], sf_mark m,
                           const char *what)
{
    char why[256];
    if (cfg_outside_grid(c, p, why, sizeof why)) cfg_problem(r, m.line, m.column, what, "%s", why);
}

/* The sections the geometry checks read, and whether each was read
 * without problems: a check runs when its sections are sound, whatever
 * problems other sections had, so that one run reports them all. */
typedef struct {
    int grid, boundaries, source, receivers, survey;
} clean_sections;

static void check_geometry(cfg_reader *r, const sf_config *c, const clean_sections *ok)
{
    static const char axis[3] = {'x', 'y', 'z'};
    if (!ok->grid) return;
    for (int a = 0; a < 3 && ok->boundaries; ++a) {
        /* Each layer's terms reach a stencil radius past it; the kernels
         * rely on no point lying in one layer and in the other's reach. */
        const int lo = c->cpml[2 * a], hi = c->cpml[2 * a + 1], radius = c->order / 2;
        const long interior = c->n[a] - lo - hi;
        if (interior < radius) {
            char left[48] = "no interior";
            if (interior > 0) snprintf(left, sizeof left, "%ld interior point%s", interior, interior == 1 ? "" : "s");
            /* Layers left at their default are named at the grid's size. */
            const sf_mark at = c->cpml_mark.line ? c->cpml_mark : c->n_mark[a];
            cfg_problem(r, at.line, at.column, "boundaries.cpml",
                        "%cmin + %cmax = %d points leave %s in n%c = %ld; the order-%d stencil "
                        "needs %d (allowed: %cmin + %cmax <= %ld)",
                        axis[a], axis[a], lo + hi, left, axis[a], c->n[a], c->order, radius,
                        axis[a], axis[a], c->n[a] - radius);
        }
    }
    if (c->survey.enabled) {
        if (ok->survey) cfg_check_survey_geometry(r, c, ok->receivers);
        if (c->survey.receivers == SF_RECEIVERS_MOVING) return;
    } else if (ok->source) {
        check_position(r, c, c->source.position, c->source.position_mark, "source.position");
    }
    for (long i = 0; i < c->receivers.count && ok->receivers; ++i) {
        char what[64];
        snprintf(what, sizeof what, "receivers (receiver %ld)", i);
        check_position(r, c, c->receivers.position[i], c->receivers.mark, what);
    }
}

static void set_defaults(sf_config *c)
{
    memset(c, 0, sizeof *c);
    c->physics = SF_PHYSICS_DEFAULT;
    c->order = 8;
    for (int f = 0; f < 6; ++f) c->cpml[f] = 20;
    c->cfl_safety = 0.8;
    c->dispersion_correction = 1;
    c->source.amplitude = 1.0;
    c->progress_interval = 5.0;
    c->check_every = 100;
    c->device = SF_DEVICE_AUTO;
    c->gpu_aware_mpi = SF_GPU_AWARE_AUTO;
    for (int a = 0; a < 3; ++a) c->snapshot_decimation[a] = 1;
}


void sf_config_sample_medium(sf_model_config *m)
{
    m->kind = SF_MODEL_HOMOGENEOUS;
    static const double SAMPLE[SF_PARAMS] = {
        [SF_PARAM_VP] = 3000.0, [SF_PARAM_VS] = 1700.0, [SF_PARAM_RHO] = 2200.0,
        [SF_PARAM_EPSILON] = 0.2, [SF_PARAM_DELTA] = 0.1, [SF_PARAM_THETA] = 30.0,
        [SF_PARAM_PHI] = 20.0};
    for (int q = 0; q < SF_PARAMS; ++q) m->value[q] = SAMPLE[q];
}

const char *sf_component_name(sf_component c)
{
    static const char *const names[SF_COMPONENTS] = {"vx", "vy", "vz", "p"};
    return (unsigned)c < SF_COMPONENTS ? names[c] : "?";
}


typedef void (*section_reader)(cfg_reader *r, sf_yaml_node *root, sf_config *c);

/* Reads a section; 1 when it had no problems. */
static int read_cleanly(cfg_reader *r, sf_yaml_node *root, sf_config *c, section_reader read)
{
    int before = r->problems;
    read(r, root, c);
    return r->problems == before;
}

int sf_config_parse(const char *text, size_t length, const char *path, sf_config *c)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    set_defaults(c);
    c->source_path = sf_strdup(path);
    c->text = sf_malloc(length + 1, "the job text");
    memcpy(c->text, text, length);
    c->text[length] = '\0';

    cfg_reader r = {.file = path, .print = rank == 0};
    char err[512];
    sf_yaml_node *root = sf_yaml_parse(text, length, err, sizeof err);
    if (!root) {
        char text[1024];
        snprintf(text, sizeof text, "%s:%s", path, err);
        if (r.print) cfg_print_line(text);
        return 1;
    }
    if (root->kind != SF_YAML_MAPPING) {
        cfg_problem(&r, root->line, root->column, NULL,
                    "a job file is a mapping of sections (grid, time, model, ...)");
        sf_yaml_free(root);
        return r.problems;
    }
    /* The source and output sections read differently in a survey. */
    c->survey.enabled = sf_yaml_peek(root, "survey") != NULL;
    sf_hash_text(cfg_job_hash(root), c->hash);
    clean_sections ok;
    ok.grid = read_cleanly(&r, root, c, read_grid);
    read_time(&r, root, c);
    read_physics(&r, root, c);
    read_model(&r, root, c);
    ok.boundaries = read_cleanly(&r, root, c, read_boundaries);
    ok.source = read_cleanly(&r, root, c, read_source);
    ok.receivers = read_cleanly(&r, root, c, read_receivers);
    ok.survey = read_cleanly(&r, root, c, cfg_read_survey);
    read_output(&r, root, c);
    read_run(&r, root, c);
    cfg_reject_unknown(&r, root, "",
                       "grid, time, physics, model, boundaries, source, receivers, survey, output, "
                       "run");
    check_geometry(&r, c, &ok);
    sf_yaml_free(root);
    return r.problems;
}

void sf_config_free(sf_config *c)
{
    free(c->source_path);
    free(c->text);
    free(c->model.layers);
    for (int p = 0; p < SF_PARAMS; ++p) {
        free(c->model.path[p]);
        free(c->model.dataset[p]);
    }
    free(c->receivers.position);
    free(c->gather_path);
    free(c->snapshot_path);
    free(c->model_output_path);
    free(c->segy_path);
    free(c->energy_path);
    free(c->output_directory);
    free(c->report_path);
    sf_wavelet_spec_free(&c->source.wavelet);
    for (long n = 0; n < c->survey.count; ++n) {
        if (!c->survey.shots[n].wavelet) continue;
        sf_wavelet_spec_free(c->survey.shots[n].wavelet);
        free(c->survey.shots[n].wavelet);
    }
    free(c->survey.shots);
    for (long k = 0; k < c->nwavelets; ++k) {
        sf_wavelet_free(c->wavelets[k]);
        free(c->wavelets[k]);
    }
    free(c->wavelets);
    free(c->wavelets_spec);
    memset(c, 0, sizeof *c);
}

/* A job file is text of at most this size (a broadcast of one int count). */
enum { MAX_JOB_BYTES = 1 << 28 };

void sf_config_load(const char *path, sf_config *cfg)
{
    int rank = 0;
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    long length = -1;
    char *text = NULL, reason[256] = "";
    if (rank == 0) {
        size_t read = 0;
        text = sf_file_read_text(path, MAX_JOB_BYTES, &read, reason, sizeof reason);
        if (text) length = (long)read;
    }
    SF_MPI_CHECK(MPI_Bcast(&length, 1, MPI_LONG, 0, MPI_COMM_WORLD), "broadcasting the job size");
    if (length < 0) sf_fail_collective("cannot read the job file '%s': %s", path, reason);
    if (rank != 0) text = sf_malloc((size_t)length + 1, "the job text");
    SF_MPI_CHECK(MPI_Bcast(text, (int)length, MPI_CHAR, 0, MPI_COMM_WORLD),
                 "broadcasting the job file");
    int problems = sf_config_parse(text, (size_t)length, path, cfg);
    free(text);
    /* Signature files are read once the job parses: their keys are known good. */
    if (!problems) problems = cfg_load_wavelets(cfg);
    if (problems) {
        if (rank == 0)
            fprintf(stderr, "seisfd: error: %d problem%s in job file '%s'\n", problems,
                    problems == 1 ? "" : "s", path);
        sf_exit_collective();
    }
}

void sf_config_report(const sf_config *cfg, sf_mark mark, const char *fmt, ...)
{
    if (sf_error_rank() != 0) return;
    va_list ap;
    va_start(ap, fmt);
    cfg_vprint(cfg->source_path, mark, NULL, fmt, ap);
    va_end(ap);
}
