/* The model section of a job file: a homogeneous medium, layers, or
 * model files (raw, HDF5, SEG-Y) with their grid and accepted ranges;
 * the parameters each physics takes. */
#include "config_keys.h"
#include "config_sections.h"

#include "sf_error.h"
#include "sf_physics_registry.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* q: the index of a parameter among every physics' (sf_any_parameter). */
static int takes_parameter(sf_physics p, int q)
{
    return sf_physics_takes_parameter(p, sf_any_parameter(q));
}

/* Models of several parameters name a file or dataset for each. */
static int takes_files(sf_physics p, int what) { return (void)what, sf_physics_declared(p)->nparams > 1; }

/* Every parameter key (with suffix: "", "_range") the job's physics does not take. */
static void reject_foreign_parameters(cfg_reader *r, sf_yaml_node *map, const char *path,
                                      const sf_config *c, const char *suffix)
{
    for (int q = 0; sf_any_parameter(q); ++q) {
        char key[32];
        snprintf(key, sizeof key, "%s%s", sf_any_parameter(q), suffix);
        cfg_reject_foreign_key(r, map, path, key, c, takes_parameter, q);
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
        snprintf(out + used, len - used, "%s%s%s", join, d->param[n]->name, suffix);
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

/* Which model types take a key, and whether the physics has several
 * parameters (one file or dataset each). */
static int file_kind(const sf_config *c) { return c->model.kind >= SF_MODEL_RAW; }
static int several(const sf_config *c) { return sf_config_physics(c)->nparams > 1; }
static int offers_parameters(const sf_config *c) { return c->model.kind == SF_MODEL_HOMOGENEOUS; }
static int offers_layers(const sf_config *c) { return c->model.kind == SF_MODEL_LAYERED; }
static int offers_path(const sf_config *c)
{
    return file_kind(c) && (!several(c) || c->model.kind == SF_MODEL_HDF5);
}
static int offers_paths(const sf_config *c)
{
    return file_kind(c) && several(c) && c->model.kind != SF_MODEL_HDF5;
}
static int offers_dataset(const sf_config *c) { return c->model.kind == SF_MODEL_HDF5 && !several(c); }
static int offers_datasets(const sf_config *c) { return c->model.kind == SF_MODEL_HDF5 && several(c); }
static int offers_dims(const sf_config *c)
{
    return c->model.kind == SF_MODEL_RAW || c->model.kind == SF_MODEL_SEGY;
}
static int offers_endian(const sf_config *c) { return c->model.kind == SF_MODEL_RAW; }

/* The model's keys, in the order an unknown key is told them. The readers
 * below take each key's name, range and choices from its row; which keys
 * a model type takes is each row's offered. */
enum { TYPE, PARAMETERS, LAYERS, PATH, PATHS, DATASET, DATASETS, DIMS, ENDIAN, ORIGIN, SPACING,
       INTERPOLATION, EXTEND, RANGES };

static const cfg_key MODEL_ROWS[] = {
    [TYPE] = {.name = "type", .type = CFG_KEY_CHOICE, .choices = "homogeneous|layered|raw|hdf5|segy",
              .required = 1, .help = "a homogeneous medium, layers, or a model file"},
    [PARAMETERS] = {.name = "<parameter>", .type = CFG_KEY_PARAMETERS, .suffix = "",
                    .offered = offers_parameters, .form = "number", .required = 1,
                    .help = "homogeneous: each parameter of the job's physics (below)"},
    [LAYERS] = {.name = "layers", .type = CFG_KEY_SPECIAL, .offered = offers_layers,
                .form = "list of {top: depth, <parameter>: value, ...}", .required = 1,
                .range = CFG_RANGE_COORDINATE, .unit = "m",
                .help = "layered: each layer from its top down to the next top; tops increase and "
                        "the first covers the grid's top"},
    [PATH] = {.name = "path", .type = CFG_KEY_TEXT, .form = "path", .offered = offers_path,
              .required = 1, .help = "raw, hdf5, segy: the model file"},
    [PATHS] = {.name = "paths", .type = CFG_KEY_SPECIAL, .offered = offers_paths, .required = 1,
               .form = "mapping {<parameter>: FILE}",
               .help = "raw, segy with several parameters: a file each"},
    [DATASET] = {.name = "dataset", .type = CFG_KEY_TEXT, .offered = offers_dataset,
                 .fallback = "the parameter's name", .help = "hdf5: the dataset"},
    [DATASETS] = {.name = "datasets", .type = CFG_KEY_SPECIAL, .offered = offers_datasets,
                  .form = "mapping {<parameter>: NAME}", .fallback = "the parameters' names",
                  .help = "hdf5 with several parameters: a dataset each"},
    [DIMS] = {.name = "dims", .type = CFG_KEY_VECTOR, .count = 3, .offered = offers_dims,
              .range = {1, SF_MAX_AXIS_POINTS, 0, 0}, .fallback = "raw: required; segy: the headers'",
              .unit = "points", .help = "raw, segy: the model's points along x, y, z (whole numbers)"},
    [ENDIAN] = {.name = "endian", .type = CFG_KEY_CHOICE, .choices = "little|big",
                .offered = offers_endian, .fallback = "little", .help = "raw: the byte order"},
    [ORIGIN] = {.name = "origin", .type = CFG_KEY_VECTOR, .count = 3, .offered = file_kind,
                .range = CFG_RANGE_COORDINATE, .fallback = "the file's attribute, else the grid's",
                .unit = "m", .help = "raw, hdf5, segy: the model grid's first point"},
    [SPACING] = {.name = "spacing", .type = CFG_KEY_VECTOR, .count = 3, .offered = file_kind,
                 .range = CFG_RANGE_SPACING, .fallback = "segy: required; else the file's "
                 "attribute, else the grid's", .unit = "m",
                 .help = "raw, hdf5, segy: the model grid's spacings"},
    [INTERPOLATION] = {.name = "interpolation", .type = CFG_KEY_CHOICE, .choices = "linear|nearest",
                       .offered = file_kind, .fallback = "linear",
                       .help = "raw, hdf5, segy: how the model reaches the grid's points"},
    [EXTEND] = {.name = "extend", .type = CFG_KEY_BOOLEAN, .offered = file_kind,
                .fallback = "false",
                .help = "raw, hdf5, segy: repeat edge values where the grid reaches past the model"},
    [RANGES] = {.name = "<parameter>_range", .type = CFG_KEY_PARAMETERS, .suffix = "_range",
                .offered = file_kind, .form = "list of 2 numbers, min < max",
                .fallback = "the parameter's (below)",
                .help = "raw, hdf5, segy: the values the file may hold, within the limits"},
};
const cfg_table CFG_MODEL_KEYS =
    CFG_TABLE("model", NULL, "Required. Each type takes the keys its meaning names.", MODEL_ROWS);

#define NAME(k) (MODEL_ROWS[k].name)

/* Any value a job may give parameter n: its declared limits. */
static cfg_range parameter_limits(const sf_config *c, int n)
{
    const sf_parameter_declaration *q = sf_config_physics(c)->param[n];
    return (cfg_range){q->limits[0], q->limits[1], 0, 0};
}

const char *sf_config_point_problem(const sf_config *c, const double *value, char *text, size_t len)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    return d->point_problem ? d->point_problem(value, text, len) : NULL;
}

int sf_config_point_key(const sf_config *c) { return sf_config_physics(c)->point_key; }

/* The physics' parameters of a homogeneous model or a layer. */
static void read_parameters(cfg_reader *r, sf_yaml_node *map, const char *path, const sf_config *c,
                            double value[SF_MAX_PARAMS])
{
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_mark mark[SF_MAX_PARAMS];
    reject_foreign_parameters(r, map, path, c, "");
    int ok = 1;
    for (int n = 0; n < d->nparams; ++n) {
        const char *name = d->param[n]->name;
        mark[n] = cfg_mark(map);
        int got = cfg_number(r, map, name, path, parameter_limits(c, n), n == 0, &value[n],
                             &mark[n]);
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
        const int q = sf_config_point_key(c);
        char key[96];
        snprintf(key, sizeof key, "%s.%s", path, d->param[q]->name);
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
    sf_yaml_node *list = sf_yaml_take(m, NAME(LAYERS));
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
        int top_ok = cfg_number(r, item, "top", path, MODEL_ROWS[LAYERS].range, 1,
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

/* The accepted values of a model file's parameters (the declared range,
 * or <name>_range); others are reported as errors with their index. */
static void read_ranges(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    sf_model_config *mc = &c->model;
    reject_foreign_parameters(r, m, "model", c, "_range");
    for (int n = 0; n < d->nparams; ++n) {
        mc->range[n][0] = d->param[n]->range[0];
        mc->range[n][1] = d->param[n]->range[1];
        char key[32], full[64];
        snprintf(key, sizeof key, "%s_range", d->param[n]->name);
        snprintf(full, sizeof full, "model.%s", key);
        sf_mark mark;
        if (cfg_vector_key(r, m, key, "model", 2, parameter_limits(c, n), 0, mc->range[n],
                           &mark) > 0 &&
            mc->range[n][0] >= mc->range[n][1])
            cfg_problem(r, mark.line, mark.column, full,
                        "the minimum (%g) must be below the maximum (%g)", mc->range[n][0],
                        mc->range[n][1]);
    }
}

static void read_model_grid(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    sf_model_config *mc = &c->model;
    double dims[3] = {0, 0, 0};
    /* HDF5 datasets carry their shape; raw files cannot; SEG-Y may need it. */
    if (mc->kind != SF_MODEL_HDF5 &&
        cfg_vector_key(r, m, NAME(DIMS), "model", 3, MODEL_ROWS[DIMS].range,
                       mc->kind == SF_MODEL_RAW, dims, &mc->dims_mark) > 0) {
        for (int a = 0; a < 3; ++a) {
            mc->dims[a] = (long)dims[a];
            if (dims[a] != floor(dims[a]))
                cfg_problem(r, mc->dims_mark.line, mc->dims_mark.column, "model.dims",
                            "dimensions must be whole numbers");
        }
    }
    mc->origin_given = cfg_vector_key(r, m, NAME(ORIGIN), "model", 3, MODEL_ROWS[ORIGIN].range, 0,
                                      mc->origin, &mc->origin_mark) > 0;
    mc->spacing_given = cfg_vector_key(r, m, NAME(SPACING), "model", 3, MODEL_ROWS[SPACING].range,
                                       mc->kind == SF_MODEL_SEGY, mc->spacing,
                                       &mc->spacing_mark) > 0;
    int nearest = 0;
    cfg_choice(r, m, NAME(INTERPOLATION), "model", MODEL_ROWS[INTERPOLATION].choices, 0, &nearest,
               NULL);
    mc->interpolation = nearest ? SF_INTERP_NEAREST : SF_INTERP_LINEAR;
    cfg_boolean(r, m, NAME(EXTEND), "model", &mc->extend);
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
             "give model.paths: {%s}", cfg_article(d->name), d->name, files);
    reject_misplaced(r, m, NAME(PATH), "model.path", advice);
    sf_yaml_node *paths = cfg_section(r, m, NAME(PATHS), "model", 1);
    if (!paths) return;
    for (int n = 0; n < d->nparams; ++n)
        cfg_string(r, paths, d->param[n]->name, "model.paths", 1, &mc->path[n],
                   &mc->path_mark[n]);
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
             "model.datasets: {%s} (default: %s)", cfg_article(d->name), d->name, names, keys);
    reject_misplaced(r, m, NAME(DATASET), "model.dataset", advice);
    sf_yaml_node *given = cfg_section(r, m, NAME(DATASETS), "model", 0);
    for (int n = 0; n < d->nparams; ++n) {
        const char *name = d->param[n]->name;
        if (!given || cfg_string(r, given, name, "model.datasets", 0, &mc->dataset[n], NULL) <= 0)
            mc->dataset[n] = sf_strdup(name);
    }
    if (given) cfg_reject_unknown(r, given, "model.datasets", keys);
}

static void read_model_file(cfg_reader *r, sf_yaml_node *m, sf_config *c)
{
    const sf_physics_declaration *d = sf_config_physics(c);
    const int several = d->nparams > 1;
    sf_model_config *mc = &c->model;
    cfg_reject_foreign_key(r, m, "model", NAME(PATHS), c, takes_files, 0);
    cfg_reject_foreign_key(r, m, "model", NAME(DATASETS), c, takes_files, 0);
    if (several && mc->kind != SF_MODEL_HDF5) {
        read_model_paths(r, m, c);
    } else {
        cfg_string(r, m, NAME(PATH), "model", 1, &mc->path[0], &mc->path_mark[0]);
        for (int n = 1; n < d->nparams && mc->path[0]; ++n) {
            mc->path[n] = sf_strdup(mc->path[0]);
            mc->path_mark[n] = mc->path_mark[0];
        }
    }
    if (mc->kind == SF_MODEL_HDF5 && several)
        read_model_datasets(r, m, c);
    else if (mc->kind == SF_MODEL_HDF5 &&
             cfg_string(r, m, NAME(DATASET), "model", 0, &mc->dataset[0], NULL) <= 0)
        mc->dataset[0] = sf_strdup(d->param[0]->name);
    if (mc->kind == SF_MODEL_RAW) {
        int endian = 0;
        cfg_choice(r, m, NAME(ENDIAN), "model", MODEL_ROWS[ENDIAN].choices, 0, &endian, NULL);
        mc->endian = endian ? SF_ENDIAN_BIG : SF_ENDIAN_LITTLE;
    }
    read_model_grid(r, m, c);
}

void cfg_read_model(cfg_reader *r, sf_yaml_node *root, sf_config *c)
{
    sf_yaml_node *m = cfg_section(r, root, "model", "", 1);
    if (!m) return;
    c->model.mark = cfg_mark(m);
    int kind = 0;
    if (cfg_choice(r, m, NAME(TYPE), "model", MODEL_ROWS[TYPE].choices, 1, &kind, NULL) <= 0)
        return;
    c->model.kind = (sf_model_kind)kind;
    switch (c->model.kind) {
    case SF_MODEL_HOMOGENEOUS: read_parameters(r, m, "model", c, c->model.value); break;
    case SF_MODEL_LAYERED: read_layers(r, m, c); break;
    default: read_model_file(r, m, c);
    }
    cfg_reject_unknown_keys(r, m, &CFG_MODEL_KEYS, c);
}
